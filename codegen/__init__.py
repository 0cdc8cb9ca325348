"""Code generation backends: device type -> fn(graph, optimized, schedule, plan) -> Executable."""
from .cpu import compile_cpu
from .cuda import compile_cuda

BACKENDS = {"cpu": compile_cpu, "cuda": compile_cuda}
