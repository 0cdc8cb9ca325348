"""lax reductions, cumulative ops, sort and top_k over jitgrad.numpy.

cummax/cummin/cumprod are prefix scans in log2(n) steps (each step combines every element with
the one 2^k before it), so they cost O(log n) graph nodes and differentiate through max/mul."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..numpy._convert import asarray
from .arg_checks import axes_tuple
from ..ir.types import kind_of


def _reducer(name, fn):
    def op(operand, axes):
        x = asarray(operand)
        axes = axes_tuple(tuple(axes), x.ndim, name, "axes")
        return fn(x, axis=axes) if axes else x
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"lax.{name}(operand, axes): reduce over the given dimensions."
    return op


reduce_sum = _reducer("reduce_sum", jnp.sum)
reduce_max = _reducer("reduce_max", jnp.max)
reduce_min = _reducer("reduce_min", jnp.min)
reduce_prod = _reducer("reduce_prod", jnp.prod)
reduce_and = _reducer("reduce_and", jnp.all)
reduce_or = _reducer("reduce_or", jnp.any)


def argmax(operand, axis, index_dtype="int32"):
    """numpy.argmax: returns the indices of the maximum values along an axis."""
    x = asarray(operand)
    return jnp.astype(jnp.argmax(x, axis=axes_tuple(axis, x.ndim, "argmax", "axis")[0]),
                      index_dtype)


def argmin(operand, axis, index_dtype="int32"):
    """numpy.argmin: returns the indices of the minimum values along an axis."""
    x = asarray(operand)
    return jnp.astype(jnp.argmin(x, axis=axes_tuple(axis, x.ndim, "argmin", "axis")[0]),
                      index_dtype)


def _lowest(dtype, for_max):
    dtype = np.dtype(str(dtype))
    if kind_of(dtype) == "f":
        return -np.inf if for_max else np.inf
    if kind_of(dtype) == "b":
        return not for_max
    info = np.iinfo(dtype)
    return info.min if for_max else info.max


def _prefix_scan(x, axis, combine, identity):
    """Inclusive scan along axis: y_i = x_0 (+) ... (+) x_i, Hillis-Steele in log2(n) steps."""
    n = x.shape[axis]
    shift = 1
    while shift < n:
        pad = [(0, 0)] * x.ndim
        pad[axis] = (shift, 0)
        key = [slice(None)] * x.ndim
        key[axis] = slice(0, n)
        shifted = jnp.pad(x, pad, constant_values=identity)[tuple(key)]
        x = combine(x, shifted)
        shift *= 2
    return x


def _cumulative(name, scan):
    def op(operand, axis=0, reverse=False):
        x = asarray(operand)
        ax = axes_tuple(axis, x.ndim, name, "axis")[0]
        if reverse:
            x = jnp.flip(x, axis=ax)
        y = scan(x, ax)
        return jnp.flip(y, axis=ax) if reverse else y
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"lax.{name}(operand, axis=0, reverse=False): inclusive scan along axis."
    return op


def _cumsum(x, ax):
    return jnp.astype(jnp.cumsum(x, axis=ax), x.dtype)


cumsum = _cumulative("cumsum", _cumsum)
cumprod = _cumulative("cumprod", lambda x, ax: _prefix_scan(x, ax, jnp.multiply, 1))
cummax = _cumulative("cummax", lambda x, ax: _prefix_scan(x, ax, jnp.maximum,
                                                          _lowest(x.dtype, True)))
cummin = _cumulative("cummin", lambda x, ax: _prefix_scan(x, ax, jnp.minimum,
                                                          _lowest(x.dtype, False)))
cumlogsumexp = _cumulative("cumlogsumexp",
                           lambda x, ax: _prefix_scan(x, ax, jnp.logaddexp, -np.inf))


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """Sort an array, or a sequence of arrays of one shape by the first num_keys of them
    (lexicographically); NaNs last. Always stable."""
    if not isinstance(operand, (tuple, list)):
        return jnp.sort(asarray(operand), axis=dimension)
    arrays = [asarray(a) for a in operand]
    if len({tuple(a.shape) for a in arrays}) > 1:
        raise TypeError(f"sort arrays must have equal shapes, got "
                        f"{', '.join(str(tuple(a.shape)) for a in arrays)}")
    if not 1 <= num_keys <= len(arrays):
        raise ValueError(f"lax.sort: num_keys must be between 1 and the number of operands "
                         f"{len(arrays)}, got {num_keys}")
    ax = axes_tuple(dimension, arrays[0].ndim, "sort", "dimension")[0]
    perm = None
    for key in reversed(arrays[:num_keys]):     # stable sorts, least significant key first
        keyed = key if perm is None else jnp.take_along_axis(key, perm, axis=ax)
        order = jnp.argsort(keyed, axis=ax)
        perm = order if perm is None else jnp.take_along_axis(perm, order, axis=ax)
    out = [jnp.take_along_axis(a, perm, axis=ax) for a in arrays]
    return tuple(out) if isinstance(operand, tuple) else out


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """jax.lax.sort_key_val: sort `keys` along `dimension` and permute `values` the same way."""
    return sort((keys, values), dimension, is_stable, 1)


def top_k(operand, k):
    """The k largest entries along the last axis, descending, and their int32 indices (the
    lower index first among equal values)."""
    x = asarray(operand)
    k = int(k)
    if x.ndim == 0 or not 0 <= k <= x.shape[-1]:
        raise ValueError(f"lax.top_k: k must be between 0 and the size of the last axis, got "
                         f"k={k} for an operand of shape {tuple(x.shape)}")
    idx = jnp.argsort(x, axis=-1, descending=True)[..., :k]
    return jnp.take_along_axis(x, idx, axis=-1), jnp.astype(idx, "int32")
