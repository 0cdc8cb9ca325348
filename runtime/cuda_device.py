"""CUDA availability, the per-device stream, and device contexts.

Probed lazily so importing jitgrad never touches a driver. numba 0.68 still ships a deprecated
built-in `numba.cuda`, so a successful `import numba.cuda` proves nothing: the NVIDIA package
`numba_cuda` must be installed. Under NUMBA_ENABLE_CUDASIM=1 numba.cuda is the simulator, which
reports one fake GPU; jitgrad then treats "cuda:0" as usable (that is how CI tests the backend),
and gives the simulator the warp shuffles its kernels use (runtime/cuda_sim.py).
"""
from __future__ import annotations

import contextlib
import functools
import importlib.util
import os

from . import cuda_sim

INSTALL_HINT = "pip install 'jitgrad[cuda]' (numba-cuda[cu13] and cuda-python)"


class CudaUnavailableError(RuntimeError):
    """A cuda device was asked for where none can be used."""


def simulator_enabled() -> bool:
    """True when numba.cuda is (or will be) the simulator in this process."""
    try:  # parsed like numba does: an int, anything unparsable means off
        return int(os.environ.get("NUMBA_ENABLE_CUDASIM", "0")) != 0
    except ValueError:
        return False


@functools.lru_cache(maxsize=1)
def probe() -> tuple:
    """(device count, reason when zero)."""
    if importlib.util.find_spec("numba_cuda") is None:
        return 0, f"numba-cuda is not installed ({INSTALL_HINT})"
    try:
        from numba import cuda     # lazy: numba.cuda and the driver, probed on first use
    except Exception as e:  # a broken install
        return 0, f"numba-cuda could not be imported ({type(e).__name__}: {e})"
    try:
        if not cuda.is_available():
            return 0, "no CUDA driver or GPU was found on this machine"
        return len(cuda.gpus), ""
    except Exception as e:
        return 0, f"the CUDA driver could not be initialized ({type(e).__name__}: {e})"


def is_available() -> bool:
    return probe()[0] > 0


def unavailable_reason() -> str:
    """Why no cuda device can be used here ("" when one can)."""
    return probe()[1]


def device_count() -> int:
    return probe()[0]


def check_available(index: int) -> None:
    count, why = probe()
    if count == 0:
        raise CudaUnavailableError(f"cuda:{index} was requested but CUDA is not available: {why}")
    if index >= count:
        raise CudaUnavailableError(f"cuda:{index} was requested but only {count} CUDA device(s) "
                                   f"exist (cuda:0..cuda:{count - 1})")


def numba_cuda():
    """The numba.cuda module (real or simulator); callers have checked availability."""
    from numba import cuda     # lazy: numba.cuda, imported when a cuda device is used
    if simulator_enabled():
        cuda_sim.install()
    return cuda


@functools.lru_cache(maxsize=None)
def stream(index: int = 0):
    """The one stream jitgrad runs device `index`'s work on: kernels and copies queue on it in
    order, so nothing between them needs a host synchronization."""
    with context(index):
        return numba_cuda().default_stream()


@contextlib.contextmanager
def context(index: int = 0):
    """Make device `index` current (a no-op with one device, the common case)."""
    if device_count() <= 1:
        yield
        return
    with numba_cuda().gpus[index]:
        yield


def synchronize(index: int | None = None) -> None:
    """Wait for all queued work on device `index` (every device when None)."""
    if not is_available():
        return
    for i in range(device_count()) if index is None else (index,):
        stream(i).synchronize()
