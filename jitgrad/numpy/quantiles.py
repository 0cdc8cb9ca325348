"""quantile and percentile (NumPy's, jax.numpy's), and the NaN-skipping forms nanquantile and
nanpercentile: a sort along the reduced axes, then a gather of the two neighbours of each
position q * (n - 1), so derivatives flow to the selected values."""
from __future__ import annotations

from ..dtypes import default_float
from ..ir.types import kind_of
from ._convert import asarray, astype, normalize_axes
from .elementwise import isnan, logical_not, true_divide, where
from .host_values import concrete
from .indexing import take_along_axis
from .reductions import any, sort, sum  # noqa: A004
from .shape import expand_dims, moveaxis, reshape
from .ufuncs import add, ceil, floor, minimum, multiply, rint, subtract


def _lerp(lo, hi, frac):
    return add(lo, multiply(subtract(hi, lo), frac))


# method -> the value at fractional position pos between the sorted neighbours lo and hi
_METHODS = {
    "linear": lambda lo, hi, frac: _lerp(lo, hi, frac),
    "lower": lambda lo, hi, frac: lo,
    "higher": lambda lo, hi, frac: hi,
    "midpoint": lambda lo, hi, frac: multiply(add(lo, hi), 0.5),
    "nearest": None,     # rounds half to even, as NumPy: chosen on positions below
}


def _float(a):
    x = asarray(a)
    return x if kind_of(x.dtype) == "f" else astype(x, default_float())


def _last_axis(x, axis):
    """x with the reduced axes merged into one last axis, and those axes."""
    axes = normalize_axes(axis, x.ndim)
    kept = [i for i in range(x.ndim) if i not in axes]
    moved = moveaxis(x, axes, tuple(range(x.ndim - len(axes), x.ndim))) if axes else x
    shape = tuple(x.shape[i] for i in kept) + (-1,)
    return reshape(moved, shape) if axes else expand_dims(x, -1), axes


def quantile_along(a, q, axis, method, keepdims, skip_nan, name, scale=1):
    """The (q / scale)-th quantiles of a over `axis` (shape q.shape + the kept shape)."""
    if method not in _METHODS:
        raise ValueError(f"{name}: method must be one of {sorted(_METHODS)}, got {method!r}")
    x = _float(a)
    qs = asarray(q, dtype=x.dtype)
    qs = qs if scale == 1 else true_divide(qs, scale)
    flat, axes = _last_axis(x, axis)
    s = sort(flat, axis=-1)                                 # NaNs last
    nans = isnan(flat)
    # the count in x's float dtype: an int64 count would make float32 positions float64
    n = flat.shape[-1] if not skip_nan else \
        astype(sum(logical_not(nans), axis=-1, keepdims=True), x.dtype)
    qb = reshape(qs, (1,) * (flat.ndim - 1) + (-1,))        # (..., Q)
    pos = multiply(qb, n - 1)
    lo_i, hi_i = floor(pos), ceil(pos)
    if method == "nearest":
        lo_i = hi_i = rint(pos)
    last = max(flat.shape[-1] - 1, 0)
    idx = [astype(where(i < 0, 0, minimum(i, last)), "int64") for i in (lo_i, hi_i)]
    lo, hi = (take_along_axis(s, i, axis=-1) for i in idx)
    fn = _METHODS[method] or (lambda lo, hi, frac: lo)
    out = fn(lo, hi, subtract(pos, lo_i))
    out = where(any(nans, axis=-1, keepdims=True), float("nan"), out) if not skip_nan else \
        where(n == 0, float("nan"), out)
    out = moveaxis(out, -1, 0)                              # (Q, kept...)
    if keepdims:
        for ax in sorted(axes):
            out = expand_dims(out, ax + 1)
    return reshape(out, tuple(qs.shape) + tuple(out.shape[1:]))


def _check_q(q, scale, name):
    c = concrete(asarray(q))
    if c is not None and ((c < 0).any() or (c > scale).any()):
        raise ValueError(f"{name}: q must be in [0, {scale}], got {c.tolist()}")


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False):
    """numpy.quantile / jnp.quantile: methods linear, lower, higher, midpoint, nearest; a NaN
    in a slice makes its quantiles NaN."""
    _check_q(q, 1, "quantile")
    return quantile_along(a, q, axis, method, keepdims, False, "quantile")


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False):
    """numpy.nanquantile: quantile of the non-NaN values (NaN where a slice has none)."""
    _check_q(q, 1, "nanquantile")
    return quantile_along(a, q, axis, method, keepdims, True, "nanquantile")


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False):
    """numpy.percentile: quantile at q / 100."""
    _check_q(q, 100, "percentile")
    return quantile_along(a, q, axis, method, keepdims, False, "percentile", 100)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False):
    """numpy.nanpercentile: nanquantile at q / 100."""
    _check_q(q, 100, "nanpercentile")
    return quantile_along(a, q, axis, method, keepdims, True, "nanpercentile", 100)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """numpy.nanmedian: the median of the non-NaN values."""
    return quantile_along(a, 0.5, axis, "linear", keepdims, True, "nanmedian")

