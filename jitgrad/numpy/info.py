"""__array_namespace_info__: what this Array API namespace offers (standard 2023.12)."""
from __future__ import annotations

import numpy as _np

from ..runtime.device import CPU, device as as_device
from .dtype_functions import default_dtypes, isdtype

_DTYPES = {"bool": _np.dtype("bool"), "int8": _np.dtype("int8"), "int16": _np.dtype("int16"),
           "int32": _np.dtype("int32"), "int64": _np.dtype("int64"), "uint8": _np.dtype("uint8"),
           "uint16": _np.dtype("uint16"), "uint32": _np.dtype("uint32"),
           "uint64": _np.dtype("uint64"),
           "float32": _np.dtype("float32"), "float64": _np.dtype("float64"),
           "complex64": _np.dtype("complex64"), "complex128": _np.dtype("complex128")}


class Info:
    """jnp.__array_namespace_info__(): capabilities, devices and dtypes."""

    def capabilities(self):
        """The standard 2023.12's two keys ("max dimensions" came in 2024.12)."""
        # boolean masks and unique_* give data-dependent shapes eagerly; jit raises for them
        return {"boolean indexing": True, "data-dependent shapes": True}

    def default_device(self):
        return CPU

    def devices(self):
        from .. import cuda  # lazy: jitgrad.cuda loads numba; import jitgrad must not
        return [CPU] + ([as_device("cuda")] if cuda.is_available() else [])

    def _check(self, device):
        if device is not None and as_device(device) not in self.devices():
            raise ValueError(f"{device} is not one of this namespace's devices {self.devices()}")

    def default_dtypes(self, *, device=None):
        self._check(device)
        return default_dtypes()

    def dtypes(self, *, device=None, kind=None):
        """name -> dtype of every dtype jitgrad computes in (of `kind`, when given)."""
        self._check(device)
        if kind is None:
            return dict(_DTYPES)
        return {n: d for n, d in _DTYPES.items() if isdtype(d, kind)}


def __array_namespace_info__():
    return Info()
