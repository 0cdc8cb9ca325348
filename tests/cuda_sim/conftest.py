"""The simulator's settings: a shorter GIL switch interval (0.5 ms instead of CPython's 5 ms).

The simulator runs every CUDA thread of a block as a Python thread, and its barriers (syncthreads,
the warp shuffles of runtime/cuda_sim.py) wake up to 256 of them, each waiting for the GIL: at
5 ms per hand-over a warp reduction of a 7 x 33 array took 6.5 s, at 0.5 ms 1.6 s. Speed only:
results do not depend on thread interleaving (the kernels synchronise as on a GPU)."""
import sys

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

SWITCH_INTERVAL_S = 5e-4

if cuda_simulator_enabled():
    sys.setswitchinterval(SWITCH_INTERVAL_S)
