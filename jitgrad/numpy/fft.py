"""jnp.fft: the real-valued helpers of the standard's fft extension (fftfreq, rfftfreq,
fftshift, ifftshift). The transforms themselves (fft, rfft, ...) return complex values and wait
for a complex dtype, which jitgrad does not have yet."""
from __future__ import annotations

import numpy as np

from ..dtypes import canonical_dtype, default_float
from ._convert import _integer, asarray, normalize_axes


def fftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """Sample frequencies [0, 1, ..., n/2-1, -n/2, ..., -1] / (d n), as NumPy."""
    from .creation import asarray as _asarray
    n = _integer(n, "fftfreq: n")
    dt = canonical_dtype(dtype) if dtype is not None else default_float()
    return _asarray(np.fft.fftfreq(n, d).astype(dt), device=device)


def rfftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """Sample frequencies [0, 1, ..., n//2] / (d n) of an rfft of length n."""
    from .creation import asarray as _asarray
    n = _integer(n, "rfftfreq: n")
    dt = canonical_dtype(dtype) if dtype is not None else default_float()
    return _asarray(np.fft.rfftfreq(n, d).astype(dt), device=device)


def _shift(x, axes, sign):
    from .shape import roll
    x = asarray(x)
    axes = normalize_axes(axes, x.ndim)
    if not axes:
        return x
    return roll(x, tuple(sign * (x.shape[a] // 2) for a in axes), axes)


def fftshift(x, /, *, axes=None):
    """The zero frequency moved to the middle: a roll by n // 2 along each axis."""
    return _shift(x, axes, 1)


def ifftshift(x, /, *, axes=None):
    """The inverse of fftshift: a roll by -(n // 2) along each axis."""
    return _shift(x, axes, -1)
