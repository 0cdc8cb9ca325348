"""Threading setup for compiled CPU code: numba's OpenMP threads (prange) and OpenBLAS's threads
(np.dot inside a compiled entry) share the same 2 cores.

Both pools spin-wait after finishing work so that the next parallel region starts fast. When a
compiled entry alternates prange kernels and BLAS calls, each pool's spinning threads steal the
cores the other pool needs: an MLP training step with prange loops around np.dot measured
44-46 ms instead of 5.4 ms serial (FACTS.md). With OMP_WAIT_POLICY=passive the OpenMP workers
sleep as soon as a region ends, and the same step took 5.7 ms; OpenBLAS then gets both cores
whenever it runs, and prange regions pay a wake-up (microseconds) that only kernels above
codegen.cpu_kernels.PARALLEL_MIN take. That is the choice made here.

`configure()` must run before the OpenMP runtime starts (the first prange call in the process);
codegen.cpu calls it before compiling anything. Settings the user made in the environment win.
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
