"""NumPy's window functions bartlett, blackman, hamming and hanning (kaiser is in
bessel_functions.py): M points in the default float dtype (float32; float64 with enable_x64), as jax.numpy."""
from __future__ import annotations

import math

from ..dtypes import default_float
from .creation import ones, zeros
from .elementwise import true_divide
from .spaced import arange
from .ufuncs import abs, add, cos, multiply, subtract  # noqa: A004


def _points(M, name):
    """n = 1 - M, 3 - M, ..., M - 1 over M - 1 (the window's positions in [-1, 1]), or the
    result itself for M < 2."""
    if not isinstance(M, int) or isinstance(M, bool):
        raise TypeError(f"{name}: M must be an int, got {type(M).__name__}")
    if M < 1:
        return None, zeros(0, default_float())
    if M == 1:
        return None, ones(1, default_float())
    return true_divide(arange(1 - M, M, 2, dtype=default_float()), M - 1), None


def _cosine_window(name, *coefficients):
    """sum_k c_k cos(k pi n / (M - 1))."""
    def window(M):
        t, early = _points(M, name)
        if early is not None:
            return early
        out = coefficients[0]
        for k, c in enumerate(coefficients[1:], 1):
            out = add(out, multiply(c, cos(multiply(k * math.pi, t))))
        return out
    window.__name__ = window.__qualname__ = name
    window.__doc__ = f"numpy.{name}: the {name.capitalize()} window of M points."
    return window


hamming = _cosine_window("hamming", 0.54, 0.46)
hanning = _cosine_window("hanning", 0.5, 0.5)
blackman = _cosine_window("blackman", 0.42, 0.5, 0.08)


def bartlett(M):
    """numpy.bartlett: the triangular window of M points."""
    t, early = _points(M, "bartlett")
    return early if early is not None else subtract(1, abs(t))
