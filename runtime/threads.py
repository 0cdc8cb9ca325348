"""Threading setup for OpenMP code in the process: OMP_WAIT_POLICY=passive, set before an OpenMP
runtime starts.

jitgrad's CPU kernels run on the runtime's own pool (runtime/thread_pool.py), not OpenMP. OpenMP
comes in with numba code the process runs (the benchmarks' hand-written numba kernels, whose
`prange` loops run on OpenMP under numba's omp threading layer) and with an OpenMP build of
OpenBLAS. Such pools spin-wait after finishing work so that the next parallel region starts fast;
when prange kernels alternate with BLAS calls, each pool's spinning threads steal the cores the
other needs: an MLP training step with prange loops around np.dot measured 44-46 ms instead of
5.4 ms serial (FACTS.md). With
OMP_WAIT_POLICY=passive the OpenMP workers sleep as soon as a region ends, and the same step took
5.7 ms; regions then pay a wake-up (microseconds), which only kernels above
codegen.kernel.costs.PARALLEL_MIN take in jitgrad's own pool too. That is the choice made here.

`configure()` must run before the OpenMP runtime starts; codegen/cpu/backend.py calls it before
compiling anything. Settings the user made in the environment win.
"""
from __future__ import annotations

import os

DEFAULTS = {"OMP_WAIT_POLICY": "PASSIVE"}
_done = False


def configure() -> None:
    global _done
    if _done:
        return
    for k, v in DEFAULTS.items():
        os.environ.setdefault(k, v)
    _done = True
