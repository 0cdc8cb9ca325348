"""numpy.i0 and the Kaiser window built on it, over bessel.py's series (loaded on first use:
jitgrad.numpy lists them as lazy attributes)."""
from __future__ import annotations

from ..dtypes import default_float
from ..ir.types import kind_of
from .bessel import i0 as _bessel_i0
from ._convert import asarray, astype
from .elementwise import true_divide, where
from .spaced import arange
from .ufuncs import abs, multiply, sqrt, square, subtract  # noqa: A004


def i0(x):
    """numpy.i0: the modified Bessel function of the first kind, order 0."""
    v = asarray(x)
    return _bessel_i0(v if kind_of(v.dtype) == "f" else astype(v, default_float()))


def kaiser(M, beta):
    """numpy.kaiser: I0(beta sqrt(1 - t**2)) / I0(beta) for M points t in [-1, 1]."""
    if not isinstance(M, int) or isinstance(M, bool):
        raise TypeError(f"kaiser: M must be an int, got {type(M).__name__}")
    if M < 2:
        return asarray([1.0] * max(M, 0), dtype=default_float())
    t = true_divide(arange(1 - M, M, 2, dtype=default_float()), M - 1)
    beta = asarray(beta, dtype=default_float())
    inside = sqrt(where(abs(t) >= 1, 0, subtract(1, square(t))))
    return true_divide(i0(multiply(beta, inside)), i0(beta))
