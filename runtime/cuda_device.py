"""CUDA availability, probed lazily so importing jitgrad never touches a driver."""
from __future__ import annotations

import functools


@functools.lru_cache(maxsize=1)
def _probe() -> tuple:
    """(device count, reason when zero)."""
    try:
        from numba import cuda
    except Exception as e:  # numba-cuda missing or broken
        return 0, f"numba-cuda is not usable ({e.__class__.__name__}); install the 'cuda' extra"
    try:
        if not cuda.is_available():
            return 0, "no CUDA driver or GPU was found on this machine"
        return len(cuda.gpus), ""
    except Exception as e:
        return 0, f"the CUDA driver could not be initialized ({e})"


def is_available() -> bool:
    return _probe()[0] > 0


def device_count() -> int:
    return _probe()[0]


def check_available(index: int) -> None:
    count, why = _probe()
    if count == 0:
        raise RuntimeError(f"CUDA device requested but CUDA is not available: {why}")
    if index >= count:
        raise RuntimeError(f"cuda:{index} requested but only {count} CUDA device(s) exist")
