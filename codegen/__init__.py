"""Code generation: device type -> backend, `BACKENDS[device](graph, optimized, schedule, plan)
-> Executable`. Each backend's modules load on its first compile (the CUDA ones never on a
CPU-only run).

Laid out by stage and target:

    kernel/     target-independent: a kernel node's canonical text (its cache name), iteration
                spaces, the scalar evaluator and Python-syntax expression table the source
                renderers share, control-flow nodes, cost thresholds, source buffers
    cpu/        the CPU backend: LLVM units built with llvmlite (kernels/: one generator per kernel
                kind; llvm_*.py: expressions, math, complex, small GEMMs, the JIT), sequenced
                over the memory plan (backend.py, units.py, host.py, waves.py: the pool's
                concurrent waves), loops (loops.py, loop_fused.py), cold-compile prefetch
                (unit_prefetch.py)
    cuda/       the CUDA backend: numba.cuda kernels generated from the same kernel description
                (fused/: one generator per kernel kind), eager per-op kernels (eager.py), host
                loops, the toolchain
    native/     ahead-of-time export: the CPU's LLVM units linked into a C library
    coverage.py why_not(node, target): why a target does not build a kernel, one table
    disk_cache.py  the kernel cache on disk that every target (and the pipeline cache) writes
    pipeline_cache.py  `optimize`: the pass pipeline's result for a backend, cached on disk (a
                jitted function's graph and the CPU's loop bodies alike)
"""


def _cpu(*args):
    from .cpu.backend import compile_cpu    # lazy: llvmlite loads on the first CPU compile
    return compile_cpu(*args)


def _cuda(*args):
    from .cuda.backend import compile_cuda  # lazy: numba.cuda, never loaded on a CPU run
    return compile_cuda(*args)


def _cpu_layout(optimized, plan):
    from .cpu.waves import planned          # lazy: as _cpu, on the first CPU compile
    return planned(optimized, plan)


BACKENDS = {"cpu": _cpu, "cuda": _cuda}
# device type -> fn(optimized, plan): the memory plan as that backend runs it (the CPU pool's
# concurrent waves), computed with the pass pipeline and cached with it
LAYOUTS = {"cpu": _cpu_layout}
