"""Code generation backends: device type -> fn(graph, optimized, schedule, plan) -> Executable.
Each backend's modules load on its first compile (the CUDA ones never on a CPU-only run)."""


def _cpu(*args):
    from .cpu import compile_cpu       # lazy: the CPU backend loads llvmlite on the first compile
    return compile_cpu(*args)


def _cuda(*args):
    from .cuda import compile_cuda     # lazy: the CUDA backend loads numba.cuda, never on a CPU run
    return compile_cuda(*args)


BACKENDS = {"cpu": _cpu, "cuda": _cuda}

