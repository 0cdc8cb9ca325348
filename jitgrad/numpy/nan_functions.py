"""NumPy's NaN-skipping reductions (nansum, nanmean, nanvar, nanargmax, nancumsum, ...): the
plain reduction over the input with each NaN replaced by the reduction's identity."""
from __future__ import annotations

from ..ir.types import kind_of
from ._convert import asarray, astype
from .half_compute import narrowed, widened
from .creation import ones_like
from .elementwise import isnan, logical_not, true_divide, where as _where
from .reductions import all, argmax, argmin, cumprod, cumsum, max, min, prod, sum  # noqa: A004
from .ufuncs import abs, logical_or, maximum, minimum, sqrt, square, subtract  # noqa: A004


def _filled(a, value, where=None):
    """(a with NaNs, and the entries `where` leaves out, replaced by value; the mask of those
    entries, or None where there are none)."""
    x = asarray(a)
    missing = isnan(x) if kind_of(x.dtype) in "fc" else None
    if where is not None:
        out = logical_not(asarray(where))
        missing = out if missing is None else logical_or(missing, out)
    return (x, None) if missing is None else (_where(missing, value, x), missing)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """numpy.nansum: NaNs count as zero."""
    x, _ = _filled(a, 0, where)
    s = sum(x, axis=axis, dtype=dtype, keepdims=keepdims)
    return s if initial is None else s + initial


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """numpy.nanprod: NaNs count as one."""
    x, _ = _filled(a, 1, where)
    p = prod(x, axis=axis, dtype=dtype, keepdims=keepdims)
    return p if initial is None else p * initial


def _extreme(reduce, combine, fill):
    def nan_extreme(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        x, nans = _filled(a, fill, where)
        m = reduce(x, axis=axis, keepdims=keepdims)
        if nans is not None:    # an all-NaN slice gives NaN, as NumPy (which also warns)
            m = _where(all(nans, axis=axis, keepdims=keepdims), float("nan"), m)
        return m if initial is None else combine(m, initial)
    return nan_extreme


nanmax = _extreme(max, maximum, float("-inf"))
nanmax.__name__ = nanmax.__qualname__ = "nanmax"
nanmax.__doc__ = "numpy.nanmax: the maximum ignoring NaNs (NaN where a slice is all NaN)."
nanmin = _extreme(min, minimum, float("inf"))
nanmin.__name__ = nanmin.__qualname__ = "nanmin"
nanmin.__doc__ = "numpy.nanmin: the minimum ignoring NaNs (NaN where a slice is all NaN)."


def _nan_arg(reduce, fill, name):
    def nan_arg(a, axis=None, out=None, keepdims=False):
        x, nans = _filled(a, fill)
        i = reduce(x, axis=axis, keepdims=keepdims)
        # jax.numpy's choice: -1 for an all-NaN slice (NumPy raises)
        return i if nans is None else _where(all(nans, axis=axis, keepdims=keepdims), -1, i)
    nan_arg.__name__ = nan_arg.__qualname__ = name
    nan_arg.__doc__ = f"jnp.{name}: the index of the {name[6:]}imum ignoring NaNs; -1 for an " \
                      "all-NaN slice, as jax.numpy (NumPy raises)."
    return nan_arg


nanargmax = _nan_arg(argmax, float("-inf"), "nanargmax")
nanargmin = _nan_arg(argmin, float("inf"), "nanargmin")


def _count(a, axis, keepdims, where, like=None):
    """How many entries are neither NaN nor left out by `where`; in `like`'s dtype when that is
    inexact (an int64 count would make a float32 mean or variance float64)."""
    x, missing = _filled(a, 0, where)
    kept = ones_like(x, dtype=bool) if missing is None else logical_not(missing)
    n = sum(kept, axis=axis, keepdims=keepdims)
    return astype(n, like.dtype) if like is not None and kind_of(like.dtype) in "fc" else n


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """numpy.nanmean: the mean of the non-NaN values (NaN where there are none)."""
    (x,), half = widened(a)          # 16-bit floats: in float32, rounded once (mean's rule)
    s = nansum(x, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    return narrowed(true_divide(s, _count(x, axis, keepdims, where, like=s)), half)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    """numpy.nanvar: the variance of the non-NaN values, divided by (count - ddof)."""
    (x,), half = widened(a)
    return narrowed(_nanvar(x, axis, dtype, ddof, keepdims, where), half)


def _nanvar(x, axis, dtype, ddof, keepdims, where):
    # deviations of the kept entries only: a NaN entry's deviation would be NaN, and its zero
    # cotangent times that NaN a NaN gradient
    x0, missing = _filled(x, 0, where)
    d = subtract(x0, nanmean(x, axis=axis, dtype=dtype, keepdims=True, where=where))
    d = d if missing is None else _where(missing, 0, d)
    d = abs(d) if kind_of(d.dtype) == "c" else d
    ss = nansum(square(d), axis=axis, keepdims=keepdims, where=where)
    n = _count(x, axis, keepdims, where, like=ss)
    v = true_divide(ss, subtract(n, ddof))
    return _where(n > ddof, v, float("nan"))     # NumPy: NaN where count <= ddof


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    """numpy.nanstd: the square root of nanvar (taken before a 16-bit result is rounded)."""
    (x,), half = widened(a)
    return narrowed(sqrt(_nanvar(x, axis, dtype, ddof, keepdims, where)), half)


def nancumsum(a, axis=None, dtype=None, out=None):
    """numpy.nancumsum: NaNs count as zero."""
    return cumsum(_filled(a, 0)[0], axis=axis, dtype=dtype)


def nancumprod(a, axis=None, dtype=None, out=None):
    """numpy.nancumprod: NaNs count as one."""
    return cumprod(_filled(a, 1)[0], axis=axis, dtype=dtype)

