"""torch.accelerator's device-agnostic queries; jitgrad's one accelerator kind is cuda.

>>> import jitgrad as jg
>>> device = jg.accelerator.current_accelerator() if jg.accelerator.is_available() else jg.device("cpu")
"""
from __future__ import annotations

from .runtime import cuda_device as _cuda

__all__ = ["is_available", "device_count", "current_accelerator", "current_device_index",
           "set_device_index", "synchronize"]

_index = 0


def is_available() -> bool:
    """Whether a cuda device (driver and GPU) is present."""
    return _cuda.is_available()


def device_count() -> int:
    return _cuda.device_count()


def current_accelerator(check_available: bool = False):
    """jg.device("cuda") when CUDA is available (or check_available is False and a cuda build
    could use one); None otherwise -- torch's answer on a machine without an accelerator."""
    if not _cuda.is_available():
        return None
    from .runtime.device import device      # lazy: only when an accelerator answers
    return device("cuda")


def current_device_index() -> int:
    return _index


def set_device_index(device) -> None:
    global _index
    _index = device if isinstance(device, int) else int(getattr(device, "index", 0) or 0)


set_device_idx = set_device_index


def synchronize(device=None) -> None:
    if _cuda.is_available():
        _cuda.synchronize(None if device is None else getattr(device, "index", device))
