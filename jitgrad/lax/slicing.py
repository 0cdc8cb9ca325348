"""Dynamic slices: start indices may be traced values. As in JAX, a negative start counts from
the end, and every start is then clamped so that the whole slice lies inside the operand (no
error, no partial slice). Gathers with `take` and updates with `.at[].set`, so both
differentiate (the gradient of a slice is a scatter-add, of an update a gather)."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..numpy._convert import asarray
from .arg_checks import axes_tuple
from ..ir.types import kind_of


def _starts(x, start_indices, sizes, name):
    if hasattr(start_indices, "shape") and getattr(start_indices, "ndim", 0) == 1:
        start_indices = [start_indices[i] for i in range(start_indices.shape[0])]
    starts = list(start_indices)
    if len(starts) != x.ndim:
        raise TypeError(f"Length of slice indices must match number of operand dimensions "
                        f"({len(starts)} vs {x.ndim}) in lax.{name}")
    if len(sizes) != x.ndim:
        raise TypeError(f"lax.{name}: slice sizes must have one entry per operand dimension, "
                        f"got {tuple(sizes)} for an operand of shape {tuple(x.shape)}")
    for size, n in zip(sizes, x.shape):
        if not 0 <= size <= n:
            raise TypeError(f"lax.{name}: slice sizes must be in [0, operand size], got "
                            f"{tuple(sizes)} for an operand of shape {tuple(x.shape)}")
    return [_clamped(s, n, size, name) for s, n, size in zip(starts, x.shape, sizes)]


def _clamped(start, n, size, name):
    """A Python int when the start is static, else a traced int scalar; wrapped then clamped."""
    if isinstance(start, (int, np.integer)):
        start = int(start) + n if start < 0 else int(start)
        return min(max(start, 0), n - size)
    s = asarray(start)
    if s.ndim or kind_of(s.dtype) not in "iu":
        raise TypeError(f"lax.{name}: start indices must be integer scalars, got "
                        f"{s.dtype}{list(s.shape)}")
    s = jnp.where(jnp.less(s, 0), jnp.add(s, n), s)
    return jnp.clip(s, 0, n - size)


def _positions(start, size):
    """The indices start, start+1, ..., start+size-1 along one axis."""
    if isinstance(start, int):
        return np.arange(start, start + size)
    return jnp.add(jnp.astype(start, "int64"), np.arange(size))


def dynamic_slice(operand, start_indices, slice_sizes):
    """operand[s0:s0+size0, s1:s1+size1, ...] with (possibly traced) starts, clamped."""
    x = asarray(operand)
    sizes = tuple(int(s) for s in slice_sizes)
    starts = _starts(x, start_indices, sizes, "dynamic_slice")
    for axis, (start, size) in enumerate(zip(starts, sizes)):
        if isinstance(start, int):
            key = [slice(None)] * x.ndim
            key[axis] = slice(start, start + size)
            x = x[tuple(key)]
        else:
            x = jnp.take(x, _positions(start, size), axis=axis, mode="clip")
    return x


def dynamic_update_slice(operand, update, start_indices):
    """operand with the block at (clamped) start_indices replaced by update."""
    x, u = asarray(operand), asarray(update)
    if u.ndim != x.ndim or str(u.dtype) != str(x.dtype):
        raise TypeError(f"dynamic_update_slice update must have the operand's rank and dtype, "
                        f"got update {u.dtype}{list(u.shape)} for operand "
                        f"{x.dtype}{list(x.shape)}")
    starts = _starts(x, start_indices, tuple(u.shape), "dynamic_update_slice")
    grids = []
    for axis, (start, size) in enumerate(zip(starts, u.shape)):
        shape = [1] * x.ndim
        shape[axis] = size
        grids.append(jnp.reshape(jnp.asarray(_positions(start, size)), tuple(shape)))
    return x.at[tuple(grids)].set(u, unique_indices=True)     # a block: no position repeats


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0):
    """jax.lax.dynamic_slice_in_dim: `slice_size` elements from a traced `start_index` along `axis`."""
    x = asarray(operand)
    axis = axes_tuple(axis, x.ndim, "dynamic_slice_in_dim", "axis")[0]
    starts, sizes = [0] * x.ndim, list(x.shape)
    starts[axis], sizes[axis] = start_index, int(slice_size)
    return dynamic_slice(x, starts, sizes)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    """jax.lax.dynamic_index_in_dim: the slice at a traced `index` along `axis` (keepdims by
    default)."""
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else jnp.squeeze(out, axis)


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    """jax.lax.dynamic_update_slice_in_dim: write `update` from a traced `start_index` along `axis`."""
    x = asarray(operand)
    axis = axes_tuple(axis, x.ndim, "dynamic_update_slice_in_dim", "axis")[0]
    starts = [0] * x.ndim
    starts[axis] = start_index
    return dynamic_update_slice(x, update, starts)


def dynamic_update_index_in_dim(operand, update, index, axis):
    """jax.lax.dynamic_update_index_in_dim: write `update` at a traced `index` along `axis`."""
    x, u = asarray(operand), asarray(update)
    axis = axes_tuple(axis, x.ndim, "dynamic_update_index_in_dim", "axis")[0]
    if u.ndim == x.ndim - 1:
        u = jnp.expand_dims(u, axis)
    return dynamic_update_slice_in_dim(x, u, index, axis)
