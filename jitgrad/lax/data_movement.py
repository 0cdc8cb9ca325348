"""lax's shape and data-movement ops over jitgrad.numpy: pad (interior and negative padding),
broadcast_in_dim, reshape with dimensions, static slices, iota and fills."""
from __future__ import annotations

import builtins
import math

import numpy as np

from .. import numpy as jnp
from ..numpy._convert import asarray
from .arg_checks import axes_tuple, check_same


def concatenate(operands, dimension):
    """Join arrays of one dtype along `dimension` (all other dimensions equal)."""
    if not operands:
        raise ValueError("concatenate requires a non-empty sequences of arrays")
    operands = check_dtypes_only("concatenate", operands)
    return jnp.concatenate(operands, axis=int(dimension))


def check_dtypes_only(name, operands):
    arrays = [asarray(x) for x in operands]
    if len({str(a.dtype) for a in arrays}) > 1:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(str(a.dtype) for a in arrays)}.")
    return arrays


def _fill(value, shape, dtype):
    return jnp.broadcast_to(jnp.astype(asarray(value), dtype), tuple(shape))


def _interior(x, axis, interior, value):
    """Insert `interior` copies of value between consecutive elements along axis."""
    n = x.shape[axis]
    if interior == 0 or n < 2:
        return x
    grown = jnp.expand_dims(x, axis + 1)
    fill_shape = list(grown.shape)
    fill_shape[axis + 1] = interior
    grown = jnp.concatenate([grown, _fill(value, fill_shape, x.dtype)], axis=axis + 1)
    merged = list(x.shape)
    merged[axis] = n * (interior + 1)
    flat = jnp.reshape(grown, tuple(merged))
    return _slice_axis(flat, axis, 0, merged[axis] - interior)


def _slice_axis(x, axis, start, stop):
    key = [builtins.slice(None)] * x.ndim
    key[axis] = builtins.slice(start, stop)
    return x[tuple(key)]


def pad(operand, padding_value, padding_config):
    """Pad each dimension by (low, high, interior): interior copies of padding_value between
    elements, then low before and high after; negative low/high remove elements (JAX's lax.pad).
    padding_value is a scalar of operand's dtype (it may be a traced value)."""
    x = asarray(operand)
    config = [tuple(int(v) for v in c) for c in padding_config]
    if len(config) != x.ndim or any(len(c) != 3 for c in config):
        raise ValueError(f"lax.pad: padding_config must have one (low, high, interior) triple "
                         f"per dimension of the operand of shape {tuple(x.shape)}, got "
                         f"{padding_config!r}")
    value = asarray(padding_value)
    if value.ndim:
        raise TypeError(f"lax.pad: padding_value must be a scalar, got shape {tuple(value.shape)}")
    if any(c[2] < 0 for c in config):
        raise ValueError(f"interior padding in padding_config must be nonnegative, got "
                         f"padding_config {tuple(config)}")
    for axis, (lo, hi, interior) in enumerate(config):
        n = x.shape[axis]
        size = lo + hi + n + builtins.max(n - 1, 0) * interior
        if size < 0:
            raise ValueError(f"Dimension size after padding is not at least 0, got result "
                             f"shape {size} for dimension {axis} (padding_config "
                             f"{tuple(config)}, operand shape {tuple(x.shape)})")
        x = _interior(x, axis, interior, value)
        pieces = []
        for amount, at_end in ((lo, False), (hi, True)):
            if amount > 0:
                shape = list(x.shape)
                shape[axis] = amount
                pieces.append((at_end, _fill(value, shape, x.dtype)))
        if pieces:
            before = [p for end, p in pieces if not end]
            after = [p for end, p in pieces if end]
            x = jnp.concatenate(before + [x] + after, axis=axis)
        start = -lo if lo < 0 else 0
        stop = x.shape[axis] + hi if hi < 0 else x.shape[axis]
        if start or stop != x.shape[axis]:
            x = _slice_axis(x, axis, start, builtins.max(stop, start))
    return x


def reshape(operand, new_sizes, dimensions=None):
    """Reshape (row-major) after transposing by `dimensions` when given."""
    x = asarray(operand)
    new_sizes = tuple(int(s) for s in new_sizes)
    if math.prod(new_sizes) != x.size:
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} (of "
                        f"total size {math.prod(new_sizes)}) for shape {tuple(x.shape)} (of "
                        f"total size {x.size}).")
    if dimensions is not None:
        x = transpose(x, dimensions)
    return jnp.reshape(x, new_sizes)


def transpose(operand, permutation):
    """numpy.transpose: returns an array with axes transposed."""
    x = asarray(operand)
    perm = tuple(int(p) for p in permutation)
    if sorted(perm) != list(range(x.ndim)):
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, got "
                        f"permutation {perm} for operand shape {tuple(x.shape)}.")
    return jnp.transpose(x, perm)


def squeeze(array, dimensions):
    """numpy.squeeze: remove axes of length one from `a`."""
    x = asarray(array)
    dims = axes_tuple(dimensions, x.ndim, "squeeze", "dimensions")
    if any(x.shape[d] != 1 for d in dims):
        raise ValueError(f"cannot select an axis to squeeze out which has size not equal to "
                         f"one, got shape={tuple(x.shape)} and dimensions={tuple(dimensions)}")
    return jnp.squeeze(x, dims) if dims else x


def expand_dims(array, dimensions):
    """Insert size-1 dimensions at `dimensions` (positions in the result)."""
    x = asarray(array)
    dims = axes_tuple(dimensions, x.ndim + len(tuple(dimensions)), "expand_dims", "dimensions")
    return jnp.expand_dims(x, dims) if dims else x


def rev(operand, dimensions):
    """jax.lax.rev: reverse the array along `dimensions`."""
    x = asarray(operand)
    dims = axes_tuple(dimensions, x.ndim, "rev", "dimensions")
    return jnp.flip(x, axis=dims) if dims else x


def broadcast_in_dim(operand, shape, broadcast_dimensions):
    """operand's dimension i becomes result dimension broadcast_dimensions[i] (strictly
    increasing; each of operand's sizes is 1 or the target size); the rest broadcast."""
    x = asarray(operand)
    shape = tuple(int(s) for s in shape)
    dims = tuple(int(d) for d in broadcast_dimensions)
    if len(dims) != x.ndim:
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must have length equal to "
                        f"operand ndim; got broadcast_dimensions {dims} for operand ndim "
                        f"{x.ndim}.")
    if any(not 0 <= d < len(shape) for d in dims):
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must be in range for the "
                        f"target shape {shape}; got {dims}.")
    if any(a >= b for a, b in zip(dims, dims[1:])):
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must be strictly increasing; "
                        f"got broadcast_dimensions {dims}")
    if any(x.shape[i] not in (1, shape[d]) for i, d in enumerate(dims)):
        raise TypeError(f"broadcast_in_dim operand dimension sizes must either be 1, or be "
                        f"equal to their corresponding dimensions in the target broadcast "
                        f"shape; got operand of shape {tuple(x.shape)}, target broadcast shape "
                        f"{shape}, broadcast_dimensions {dims} ")
    ranked = [1] * len(shape)
    for i, d in enumerate(dims):
        ranked[d] = x.shape[i]
    return jnp.broadcast_to(jnp.reshape(x, tuple(ranked)), shape)


def broadcast(operand, sizes):
    """Add leading dimensions `sizes`."""
    x = asarray(operand)
    sizes = tuple(int(s) for s in sizes)
    return jnp.broadcast_to(x, sizes + tuple(x.shape))


def iota(dtype, size):
    """jax.lax.iota: the 1-d array 0, 1, ..., size-1 of `dtype`."""
    return jnp.arange(int(size), dtype=dtype)


def broadcasted_iota(dtype, shape, dimension):
    """jax.lax.broadcasted_iota: 0, 1, 2, ... along `dimension` of an array of `shape`."""
    shape = tuple(int(s) for s in shape)
    return broadcast_in_dim(iota(dtype, shape[dimension]), shape, (int(dimension),))


def full(shape, fill_value, dtype=None):
    """numpy.full: return a new array of given shape and type, filled with `fill_value`."""
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
    value = asarray(fill_value)
    if value.ndim:
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                        f"{tuple(value.shape)}.")
    return _fill(value, shape, dtype if dtype is not None else value.dtype)


def full_like(x, fill_value, dtype=None, shape=None):
    """numpy.full_like: return a full array with the same shape and type as a given array."""
    x = asarray(x)
    return full(tuple(x.shape) if shape is None else shape, fill_value,
                x.dtype if dtype is None else dtype)


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    """operand[start:limit:stride] in every dimension (static bounds)."""
    x = asarray(operand)
    strides = (1,) * x.ndim if strides is None else tuple(strides)
    if not len(start_indices) == len(limit_indices) == len(strides) == x.ndim:
        raise TypeError(f"slice start_indices, limit_indices and strides must have length "
                        f"equal to the operand's rank {x.ndim}, got {tuple(start_indices)}, "
                        f"{tuple(limit_indices)}, {strides}")
    for s, l, n in zip(start_indices, limit_indices, x.shape):
        if not 0 <= s <= l <= n:
            raise TypeError(f"slice indices must satisfy 0 <= start <= limit <= shape, got "
                            f"start_indices {tuple(start_indices)}, limit_indices "
                            f"{tuple(limit_indices)} for shape {tuple(x.shape)}")
    return x[tuple(builtins.slice(int(s), int(l), int(st))
                   for s, l, st in zip(start_indices, limit_indices, strides))]


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """jax.lax.slice_in_dim: operand[start:limit:stride] along one axis."""
    x = asarray(operand)
    axis = axes_tuple(axis, x.ndim, "slice_in_dim", "axis")[0]
    n = x.shape[axis]
    start, stop, _ = builtins.slice(start_index, limit_index).indices(n)
    starts, limits, strides = [0] * x.ndim, list(x.shape), [1] * x.ndim
    starts[axis], limits[axis], strides[axis] = start, builtins.max(stop, start), int(stride)
    return slice(x, starts, limits, strides)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """jax.lax.index_in_dim: the slice at a static `index` along `axis` (keepdims by default)."""
    x = asarray(operand)
    axis = axes_tuple(axis, x.ndim, "index_in_dim", "axis")[0]
    n = x.shape[axis]
    if not -n <= index < n:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {n}")
    index %= n
    out = slice_in_dim(x, index, index + 1, 1, axis)
    return out if keepdims else jnp.squeeze(out, axis)
