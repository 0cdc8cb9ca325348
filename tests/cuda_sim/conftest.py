"""Fixtures for tests that run under NUMBA_ENABLE_CUDASIM=1 (see tests/test_cuda_sim_runner.py).

numba-cuda's simulator has no warp shuffles (numba/numba#8433, still so in numba-cuda 0.30.4),
so reduction kernels that use `cuda.shfl_down_sync` get a full-warp emulation here.
"""
import threading

import pytest

from jitgrad.codegen.cuda_toolchain import cuda_simulator_enabled

WARP = 32
FULL_MASK = 0xFFFFFFFF
_exchanges_lock = threading.Lock()


class _WarpExchange:
    """Where the 32 lanes of one simulated warp swap values."""

    def __init__(self):
        self.values = [None] * WARP
        # A timeout so a lane that raised (and never arrives) fails the test instead of hanging it.
        self.barrier = threading.Barrier(WARP, timeout=30)


def _shfl_down_sync(fake_cuda, mask, value, delta):
    if mask != FULL_MASK:
        raise NotImplementedError("the simulator shim only emulates full-warp shuffles")
    # Simulator threads are BlockThreads: one Python thread per CUDA thread of the running block.
    thread = threading.current_thread()
    lane, warp = thread.thread_id % WARP, thread.thread_id // WARP
    with _exchanges_lock:  # one FakeCUDAModule per launch, so its exchanges die with the launch
        exchanges = fake_cuda.__dict__.setdefault("_warp_exchanges", {})
        exchange = exchanges.setdefault((tuple(thread.blockIdx), warp), _WarpExchange())
    exchange.values[lane] = value
    exchange.barrier.wait()  # every lane has published
    result = exchange.values[lane + delta] if lane + delta < WARP else value
    exchange.barrier.wait()  # every lane has read before the next shuffle overwrites
    return result


@pytest.fixture(autouse=True, scope="session")
def simulator_warp_shuffles():
    if not cuda_simulator_enabled():
        yield
        return
    from numba.cuda.simulator.kernelapi import FakeCUDAModule

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FakeCUDAModule, "shfl_down_sync", _shfl_down_sync, raising=False)
        yield
