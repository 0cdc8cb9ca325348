"""Warp shuffles for numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1).

The stock simulator has no `cuda.shfl_*_sync` (numba/numba#8433, still so in numba-cuda 0.30.4),
and jitgrad's reduce and rowwise kernels fold warps with `cuda.shfl_down_sync`. So that those
kernels run unchanged under the simulator a user debugs with, `install()` adds a full-warp
`shfl_down_sync` to the simulator's per-launch module, once, when jitgrad first uses numba.cuda
in simulator mode (runtime/cuda_device.numba_cuda). A simulator that has its own shuffle keeps it.

The simulator runs each CUDA thread of a block as one Python thread (a `BlockThread` with
`thread_id`, `blockIdx`); the 32 lanes of a warp swap values through a barrier. Only full-warp
masks are emulated: every generated kernel shuffles with all 32 lanes of whole-warp blocks.
"""
from __future__ import annotations

import threading

WARP = 32
FULL_MASK = 0xFFFFFFFF
BARRIER_TIMEOUT_S = 30   # a lane that raised never arrives: fail the launch instead of hanging it
_exchanges_lock = threading.Lock()


class _WarpExchange:
    """Where the 32 lanes of one simulated warp swap values."""

    def __init__(self):
        self.values = [None] * WARP
        self.barrier = threading.Barrier(WARP, timeout=BARRIER_TIMEOUT_S)


def shfl_down_sync(fake_cuda, mask, value, delta):
    """Lane i gets lane i+delta's `value` (its own where i+delta is past the warp), as CUDA's."""
    if mask != FULL_MASK:
        raise NotImplementedError(
            f"jitgrad's simulator shuffle emulates full warps only (mask 0xFFFFFFFF), "
            f"got mask {mask:#x}")
    thread = threading.current_thread()
    lane, warp = thread.thread_id % WARP, thread.thread_id // WARP
    with _exchanges_lock:   # one fake module per launch, so its exchanges die with the launch
        exchanges = fake_cuda.__dict__.setdefault("_jitgrad_warp_exchanges", {})
        exchange = exchanges.setdefault((tuple(thread.blockIdx), warp), _WarpExchange())
    exchange.values[lane] = value
    exchange.barrier.wait()   # every lane has published
    result = exchange.values[lane + delta] if lane + delta < WARP else value
    exchange.barrier.wait()   # every lane has read before the next shuffle overwrites
    return result


def install() -> None:
    """Give the simulator's kernel-side `cuda` module a shfl_down_sync (idempotent)."""
    from numba.cuda.simulator.kernelapi import FakeCUDAModule     # lazy: numba's CUDA simulator
    if not hasattr(FakeCUDAModule, "shfl_down_sync"):
        FakeCUDAModule.shfl_down_sync = shfl_down_sync
