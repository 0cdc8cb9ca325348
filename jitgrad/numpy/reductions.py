"""Reductions and scans with NumPy's signatures (axis=None|int|tuple, keepdims, dtype, ddof)."""
from __future__ import annotations

import warnings

from ..eager.dispatch import apply
from ..eager.own_storage import unshared
from ..dtypes import canonical_dtype, default_float, int64, uint64
from ..ir import Op
from ._convert import asarray, astype, normalize_axes, normalize_axis
from ._out import accepts_out
from .creation import full
from .elementwise import true_divide, where
from .half_compute import compute_dtype, narrowed, widened
from .indexing import take
from .shape import broadcast_to, concatenate, expand_dims, flip, pad, ravel, reshape
from .ufuncs import abs, add, equal, multiply, not_equal, sqrt, square, subtract  # noqa: A004
from ..ir.types import kind_of


def _keep(x, out, axes, keepdims):
    if not keepdims:
        return out
    return reshape(out, tuple(1 if i in axes else d for i, d in enumerate(x.shape)))


def _sum_dtype(dt):
    """NumPy's accumulator of a bool or int sum: uint64 for unsigned ints, int64 otherwise."""
    return uint64 if kind_of(dt) == "u" else int64


def _reduce(op, a, axis, keepdims, dtype=None, sum_like=False):
    x = asarray(a)
    if dtype is not None:
        x = astype(x, dtype)
    elif sum_like and kind_of(x.dtype) in "biu":
        x = astype(x, _sum_dtype(x.dtype))   # NumPy sums bools and small ints in 64 bits
    axes = normalize_axes(axis, x.ndim)
    # no axes: NumPy's result is still a new array
    out = apply(op, [x], {"axes": axes}) if axes else unshared(x, a)
    return _keep(x, out, axes, keepdims)


@accepts_out
def sum(a, axis=None, dtype=None, keepdims=False):  # noqa: A001
    """numpy.sum: sum of array elements over a given axis."""
    return _reduce(Op.reduce_sum, a, axis, keepdims, dtype, sum_like=True)


@accepts_out
def prod(a, axis=None, dtype=None, keepdims=False):
    """numpy.prod: return the product of array elements over a given axis."""
    return _reduce(Op.reduce_prod, a, axis, keepdims, dtype, sum_like=True)


@accepts_out
def max(a, axis=None, keepdims=False):  # noqa: A001
    """numpy.amax: return the maximum of an array or maximum along an axis."""
    return _reduce(Op.reduce_max, a, axis, keepdims)


@accepts_out
def min(a, axis=None, keepdims=False):  # noqa: A001
    """numpy.amin: return the minimum of an array or minimum along an axis."""
    return _reduce(Op.reduce_min, a, axis, keepdims)


amax, amin = max, min


def _logical_reduce(op, a, axis, keepdims, empty_value):
    x = astype(a, "bool")
    axes = normalize_axes(axis, x.ndim)
    if 0 in [x.shape[i] for i in axes]:      # an empty any() is False, an empty all() True
        out = full(tuple(d for i, d in enumerate(x.shape) if i not in axes), empty_value,
                   dtype="bool", device=x.device)
        return _keep(x, out, axes, keepdims)
    return _reduce(op, x, axes, keepdims)


def any(a, axis=None, keepdims=False):  # noqa: A001
    """numpy.any: test whether any array element along a given axis evaluates to True."""
    return _logical_reduce(Op.reduce_max, a, axis, keepdims, False)


def all(a, axis=None, keepdims=False):  # noqa: A001
    """numpy.all: test whether all array elements along a given axis evaluate to True."""
    return _logical_reduce(Op.reduce_min, a, axis, keepdims, True)


def _count(x, axes):
    n = 1
    for i in axes:
        n *= x.shape[i]
    return n


def _statistic_input(a, dtype):
    """(the input in the dtype a statistic computes in, the result's dtype): `dtype` if given,
    else the input's float dtype (ints and bools: the default float); float16/bfloat16 compute
    in float32 and round once (half_compute.py), as JAX's mean/var and NumPy's mean."""
    x = asarray(a)
    if dtype is None:
        dtype = x.dtype if kind_of(x.dtype) in "fc" else default_float()
    dtype = canonical_dtype(dtype)
    return astype(x, compute_dtype(dtype)), dtype


def _mean(x, axes, keepdims):
    return true_divide(sum(x, axis=axes, keepdims=keepdims), float(_count(x, axes)))


def _var(x, axes, ddof, keepdims):
    d = subtract(x, _mean(x, axes, True))
    if kind_of(d.dtype) == "c":         # NumPy: the mean squared modulus, a real result
        d = abs(d)
    return true_divide(sum(square(d), axis=axes, keepdims=keepdims), float(_count(x, axes) - ddof))


@accepts_out
def mean(a, axis=None, dtype=None, keepdims=False):
    """NumPy's mean; a float16/bfloat16 mean sums and divides in float32, rounded once."""
    x, out_dtype = _statistic_input(a, dtype)
    return narrowed(_mean(x, normalize_axes(axis, x.ndim), keepdims), out_dtype)


def var(a, axis=None, dtype=None, ddof=0, keepdims=False, *, correction=None):
    """NumPy's var (the Array API's `correction` is ddof); computed in `dtype` when given, and
    float16/bfloat16 in float32, rounded once."""
    ddof = correction if correction is not None else ddof
    x, out_dtype = _statistic_input(a, dtype)
    return narrowed(_var(x, normalize_axes(axis, x.ndim), ddof, keepdims), out_dtype)


def std(a, axis=None, dtype=None, ddof=0, keepdims=False, *, correction=None):
    """NumPy's std: the square root of var, taken before a 16-bit result rounds."""
    ddof = correction if correction is not None else ddof
    x, out_dtype = _statistic_input(a, dtype)
    v = _var(x, normalize_axes(axis, x.ndim), ddof, keepdims)
    # where every value is equal (std 0, e.g. one element) the derivative is 0 as in PyTorch and
    # autograd, not sqrt's infinite slope times 0 = nan: the inner where keeps sqrt off 0
    zero = equal(v, 0)
    return narrowed(where(zero, 0.0, sqrt(where(zero, 1.0, v))), out_dtype)


def _arg(op, a, axis, keepdims):
    x = asarray(a)
    if axis is None:
        out = apply(op, [ravel(x)], {"axes": (0,)})
        return _keep_all(x, out, keepdims)
    ax = normalize_axis(axis, x.ndim)
    return _keep(x, apply(op, [x], {"axes": (ax,)}), (ax,), keepdims)


def _keep_all(x, out, keepdims):
    if not keepdims:
        return out
    return reshape(out, (1,) * x.ndim)


def argmax(a, axis=None, keepdims=False):
    """numpy.argmax: returns the indices of the maximum values along an axis."""
    return _arg(Op.argmax, a, axis, keepdims)


def argmin(a, axis=None, keepdims=False):
    """numpy.argmin: returns the indices of the minimum values along an axis."""
    return _arg(Op.argmin, a, axis, keepdims)


def _along(op, a, axis, dtype=None):
    x = asarray(a)
    if dtype is not None:
        x = astype(x, dtype)
    if axis is None:
        x, axis = ravel(x), 0
    return apply(op, [x], {"axis": normalize_axis(axis, x.ndim)})


def cumsum(a, axis=None, dtype=None):
    """numpy.cumsum: return the cumulative sum of the elements along a given axis."""
    x = asarray(a)
    if dtype is None and kind_of(x.dtype) in "biu":
        dtype = _sum_dtype(x.dtype)
    return _along(Op.cumsum, x, axis, dtype)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The standard's cumulative_sum (2023.12; jax.numpy's): x has one or more axes, axis may
    be omitted only for 1-d input; include_initial puts the empty sum (zero) first."""
    x = asarray(x)
    if x.ndim == 0:
        raise ValueError("cumulative_sum: expected an array of one or more dimensions, got a "
                         "0-d array")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"cumulative_sum: axis is required for an array of dimension "
                             f"{x.ndim} (it may be omitted only for 1-d input)")
        axis = 0
    ax = normalize_axis(axis, x.ndim)
    out = cumsum(x, axis=ax, dtype=dtype)
    if not include_initial:
        return out
    return pad(out, tuple((1 if i == ax else 0, 0) for i in range(x.ndim)))


def sort(a, axis=-1, kind=None, order=None, *, descending=False, stable=True):
    """Ascending (or descending) along axis; always stable, so kind/stable change nothing."""
    _check_order(order)
    out = _along(Op.sort, a, axis)
    if not descending:
        return out
    return flip(out, axis=-1 if axis is None else axis)


def argsort(a, axis=-1, kind=None, order=None, *, descending=False, stable=True):
    """Indices that sort along axis; a descending sort keeps equal elements in their original
    order (as the standard's stable descending argsort), so it is not a flip of the ascending."""
    _check_order(order)
    if not descending:
        return _along(Op.argsort, a, axis)
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    ax = normalize_axis(axis, x.ndim)
    n = x.shape[ax]
    # stable descending = reversed ascending argsort of the reversed array, indices mirrored
    return subtract(n - 1, flip(_along(Op.argsort, flip(x, ax), ax), ax))


def _check_order(order):
    if order is not None:
        raise NotImplementedError("sort: order= (structured arrays) is not supported")


def count_nonzero(a, axis=None, keepdims=False):
    """numpy.count_nonzero: counts the number of non-zero values in the array ``a``."""
    return sum(not_equal(a, 0), axis=axis, keepdims=keepdims)


def average(a, axis=None, weights=None, keepdims=False):
    """numpy.average: compute the weighted average along the specified axis."""
    if weights is None:
        return mean(a, axis=axis, keepdims=keepdims)
    (x, w), out_dtype = widened(a, weights)     # 16-bit floats: float32 sums, rounded once
    if w.ndim == 1 and x.ndim > 1 and axis is not None:
        ax = normalize_axis(axis, x.ndim)
        w = broadcast_to(expand_dims(w, tuple(i for i in range(x.ndim) if i != ax)), x.shape)
    return narrowed(true_divide(sum(multiply(x, w), axis=axis, keepdims=keepdims),
                                sum(broadcast_to(w, x.shape) if w.shape != x.shape else w,
                                    axis=axis, keepdims=keepdims)), out_dtype)


def median(a, axis=None, keepdims=False):
    """NumPy's median: the mean of the middle two sorted values; nan (with NumPy's
    RuntimeWarning) along an empty axis."""
    x = asarray(a)
    axes = tuple(range(x.ndim)) if axis is None else (normalize_axis(axis, x.ndim),)
    flat, ax = (ravel(x), 0) if axis is None else (x, axes[0])
    n = flat.shape[ax]
    if n == 0:      # all nan, in the dtype a median of x has (ints: the default float)
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)
        return _keep(x, multiply(sum(flat, axis=ax), float("nan")), axes, keepdims)
    s = sort(flat, axis=ax)
    lo, hi = (n - 1) // 2, n // 2
    out = multiply(add(take(s, lo, axis=ax), take(s, hi, axis=ax)), 0.5)
    return _keep(x, out, axes, keepdims)


def ptp(a, axis=None, keepdims=False):
    """numpy.ptp: range of values (maximum - minimum) along an axis."""
    return subtract(max(a, axis, keepdims), min(a, axis, keepdims))


def cumprod(a, axis=None, dtype=None):
    """Exact for any sign and zeros: a sequential product via log-free repeated multiply.
    Ints and bools accumulate in int64, as cumsum and NumPy; float16/bfloat16 in float32, each
    running product rounded once, as cumsum."""
    x = asarray(a)
    if dtype is not None or kind_of(x.dtype) in "biu":
        x = astype(x, dtype if dtype is not None else _sum_dtype(x.dtype))
    if axis is None:
        x, axis = ravel(x), 0
    ax = normalize_axis(axis, x.ndim)
    if x.shape[ax] == 0:
        return x
    (x,), out_dtype = widened(x)
    parts = [take(x, 0, axis=ax)]
    for i in range(1, x.shape[ax]):
        parts.append(multiply(parts[-1], take(x, i, axis=ax)))
    return narrowed(concatenate([expand_dims(p, ax) for p in parts], axis=ax), out_dtype)


