"""Shape functions with NumPy's names: reshape, transpose, concatenate, split, pad, ..."""
from __future__ import annotations

import numpy as np

from ..eager.dispatch import apply, computed, direct_ok
from ..eager.tensor import Tensor
from ..ir import Op
from ._convert import (asarray, device_of, host_array, is_array, normalize_axes, normalize_axis,
                       operands)
from .copies import copy as copy_array
from .elementwise import where
from ..ir.types import kind_of


def reshape(a, shape, order="C", *, copy=None):
    """NumPy's reshape; copy=True returns new storage, copy=False a view or a ValueError."""
    out = _reshape(a, shape, order)
    if copy is None:
        return out
    x = asarray(a)
    shares = out is x or isinstance(out, Tensor) and isinstance(x, Tensor) and \
        out._data is not None and np.may_share_memory(out._data, x._data)
    if copy:
        return copy_array(out) if shares else out
    if not shares and isinstance(x, Tensor):
        raise ValueError(f"reshape(copy=False): an array of shape {x.shape} can't be viewed as "
                         f"shape {out.shape} without a copy")
    return out


def _reshape(a, shape, order="C"):
    if shape.__class__ is tuple and isinstance(a, Tensor) and direct_ok(a) and order == "C":
        out = _direct_reshape(a, shape)
        if out is not None:
            return out
    if order != "C":
        raise NotImplementedError("reshape: only order='C' is supported")
    x = asarray(a)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
    if shape.count(-1) > 1:
        raise ValueError(f"reshape: can only specify one unknown dimension, got {shape}")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if known == 0 or x.size % known:
            raise ValueError(f"cannot reshape array of size {x.size} into shape {shape}")
        shape = tuple(x.size // known if d == -1 else d for d in shape)
    if shape == x.shape:
        return x
    return apply(Op.reshape, [x], {"shape": shape})


def _direct_reshape(x, shape):
    """`_reshape` of an eager CPU tensor by a tuple of ints (one may be -1): NumPy's reshape
    (a view where the strides allow, as the reference's np.reshape), recorded with the -1
    resolved; None where NumPy refuses (the general path then gives its own error)."""
    try:
        res = x._data.reshape(shape)
    except Exception:       # a float or traced entry, a wrong size: the general path decides
        return None
    return x if res.shape == x._data.shape else computed(Op.reshape, [x], {"shape": res.shape}, res)


def ravel(a, order="C"):
    """numpy.ravel: return a contiguous flattened array."""
    return reshape(a, (-1,), order)


def transpose(a, axes=None):
    """numpy.permute_dims: returns an array with axes transposed."""
    if isinstance(a, Tensor) and direct_ok(a):
        perm = _plain_perm(axes, a._data.ndim)
        if perm is not None:
            return a if perm == tuple(range(len(perm))) else \
                computed(Op.transpose, [a], {"perm": perm}, a._data.transpose(perm))
    x = asarray(a)
    perm = tuple(range(x.ndim))[::-1] if axes is None else normalize_axes(axes, x.ndim)
    if len(perm) != x.ndim:
        raise ValueError(f"transpose: axes {axes} don't match an array of dimension {x.ndim}")
    if perm == tuple(range(x.ndim)):
        return x
    return apply(Op.transpose, [x], {"perm": perm})


permute_dims = transpose


def _plain_perm(axes, nd):
    """`transpose`'s permutation for axes None or a tuple or list of distinct in-range ints
    (negative ones counted from the end), else None (the general path checks and raises)."""
    if axes is None:
        return tuple(range(nd - 1, -1, -1))
    if axes.__class__ is not tuple and axes.__class__ is not list or len(axes) != nd:
        return None
    perm = []
    for i in axes:
        if i.__class__ is not int or not -nd <= i < nd:
            return None
        perm.append(i % nd)
    return tuple(perm) if len(set(perm)) == nd else None


def swapaxes(a, axis1, axis2):
    """numpy.swapaxes: interchange two axes of an array."""
    if axis1.__class__ is int and axis2.__class__ is int and isinstance(a, Tensor) \
            and direct_ok(a):
        nd = a._data.ndim
        if -nd <= axis1 < nd and -nd <= axis2 < nd:
            i, j = axis1 % nd, axis2 % nd
            if i == j:
                return a
            perm = list(range(nd))
            perm[i], perm[j] = j, i
            perm = tuple(perm)
            return computed(Op.transpose, [a], {"perm": perm}, a._data.transpose(perm))
    x = asarray(a)
    perm = list(range(x.ndim))
    i, j = normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return transpose(x, perm)


def moveaxis(a, source, destination):
    """numpy.moveaxis: move axes of an array to new positions."""
    x = asarray(a)
    src = normalize_axes(source, x.ndim)
    dst = normalize_axes(destination, x.ndim)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination need the same number of axes")
    order = [i for i in range(x.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, order)


def broadcast_to(array, shape):
    """numpy.broadcast_to: broadcast an array to a new shape."""
    x = asarray(array)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
    if shape == x.shape:
        return x
    return apply(Op.broadcast_to, [x], {"shape": shape})


def expand(x, *sizes):
    """torch.Tensor.expand: -1 keeps a dimension."""
    sizes = sizes[0] if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes
    x = asarray(x)
    lead = len(sizes) - x.ndim
    return broadcast_to(x, [x.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes)])


def broadcast_shapes(*shapes):
    """numpy.broadcast_shapes: broadcast the input shapes into a single shape."""
    return np.broadcast_shapes(*shapes)


def broadcast_arrays(*args):
    """numpy.broadcast_arrays: broadcast any number of arrays against each other."""
    xs = [asarray(a) for a in args]
    shape = np.broadcast_shapes(*(x.shape for x in xs))
    return [broadcast_to(x, shape) for x in xs]


def expand_dims(a, axis):
    """numpy.expand_dims: expand the shape of an array."""
    x = asarray(a)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    nd = x.ndim + len(axes)
    axes = normalize_axes(axes, nd)
    it = iter(x.shape)
    return reshape(x, tuple(1 if i in axes else next(it) for i in range(nd)))


def squeeze(a, axis=None):
    """numpy.squeeze: remove axes of length one from `a`."""
    x = asarray(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        axes = normalize_axes(axis, x.ndim)
        bad = [i for i in axes if x.shape[i] != 1]
        if bad:
            raise ValueError(f"cannot select an axis to squeeze out which has size not equal "
                             f"to one (axis {bad[0]} of shape {x.shape})")
    return reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))


def atleast_1d(*arys):
    """numpy.atleast_1d: convert inputs to arrays with at least one dimension."""
    out = [reshape(a, (1,)) if asarray(a).ndim == 0 else asarray(a) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    """numpy.atleast_2d: view inputs as arrays with at least two dimensions."""
    out = []
    for a in arys:
        x = asarray(a)
        out.append(reshape(x, (1,) * (2 - x.ndim) + x.shape) if x.ndim < 2 else x)
    return out[0] if len(out) == 1 else out


def concatenate(arrays, axis=0, dtype=None):
    """numpy.concat: join a sequence of arrays along an existing axis."""
    xs = list(arrays)
    if not xs:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        xs, axis = [ravel(x) for x in xs], 0
    xs = operands(*xs, dtype=dtype)
    xs = [asarray(x) for x in xs]
    if any(x.ndim == 0 for x in xs):
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    ax = normalize_axis(axis, xs[0].ndim)
    return copy_array(xs[0]) if len(xs) == 1 else apply(Op.concatenate, xs, {"axis": ax})


concat = concatenate


def stack(arrays, axis=0, dtype=None):
    """numpy.stack: join a sequence of arrays along a new axis."""
    xs = [asarray(a) for a in arrays]
    if not xs:
        raise ValueError("need at least one array to stack")
    shapes = {x.shape for x in xs}
    if len(shapes) != 1:
        raise ValueError(f"all input arrays must have the same shape, got {sorted(shapes)}")
    ax = normalize_axis(axis, xs[0].ndim + 1)
    return concatenate([expand_dims(x, ax) for x in xs], axis=ax, dtype=dtype)


def vstack(tup):
    """numpy.row_stack: stack arrays in sequence vertically (row wise)."""
    return concatenate([atleast_2d(x) for x in tup], axis=0)


row_stack = vstack


def hstack(tup):
    """numpy.hstack: stack arrays in sequence horizontally (column wise)."""
    xs = [atleast_1d(x) for x in tup]
    return concatenate(xs, axis=0 if xs[0].ndim == 1 else 1)


def column_stack(tup):
    """numpy.column_stack: stack 1-D arrays as columns into a 2-D array."""
    xs = [asarray(x) for x in tup]
    return concatenate([reshape(x, (-1, 1)) if x.ndim < 2 else x for x in xs], axis=1)


def dstack(tup):
    """numpy.dstack: stack arrays in sequence depth wise (along third axis)."""
    xs = []
    for x in tup:
        x = asarray(x)
        xs.append(reshape(x, (1,) * (2 - x.ndim) + x.shape + (1,) * (3 - max(x.ndim, 2)))
                  if x.ndim < 3 else x)
    return concatenate(xs, axis=2)


def slice_axis(x, axis, start, stop, step=1):
    """x[..., start:stop:step, ...] on one axis (normalized, step > 0)."""
    start_, stop_, step_ = [0] * x.ndim, list(x.shape), [1] * x.ndim
    start_[axis], stop_[axis], step_[axis] = start, stop, step
    if (start, stop, step) == (0, x.shape[axis], 1):
        return x
    return apply(Op.slice, [x], {"start": tuple(start_), "stop": tuple(stop_),
                                 "step": tuple(step_)})


def split(ary, indices_or_sections, axis=0):
    """numpy.split: split an array into multiple sub-arrays as views into `ary`."""
    x = asarray(ary)
    ax = normalize_axis(axis, x.ndim)
    n = x.shape[ax]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0 or n % k:
            raise ValueError(f"array split does not result in an equal division: {n} into {k}")
        bounds = [i * (n // k) for i in range(k + 1)]
    else:
        bounds = [0] + [min(max(int(i), 0), n) for i in indices_or_sections] + [n]
    return [slice_axis(x, ax, a, max(a, b)) for a, b in zip(bounds[:-1], bounds[1:])]


def array_split(ary, indices_or_sections, axis=0):
    """numpy.array_split: split an array into multiple sub-arrays."""
    x = asarray(ary)
    if not isinstance(indices_or_sections, (int, np.integer)):
        return split(x, indices_or_sections, axis)
    n, k = x.shape[normalize_axis(axis, x.ndim)], int(indices_or_sections)
    sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
    return split(x, np.cumsum(sizes)[:-1].tolist(), axis)


def hsplit(ary, indices_or_sections):
    """numpy.hsplit: split an array into multiple sub-arrays horizontally (column-wise)."""
    return split(ary, indices_or_sections, axis=1 if asarray(ary).ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    """numpy.vsplit: split an array into multiple sub-arrays vertically (row-wise)."""
    return split(ary, indices_or_sections, axis=0)


def flip(m, axis=None):
    """numpy.flip: reverse the order of elements in an array along the given axis."""
    x = asarray(m)
    axes = normalize_axes(axis, x.ndim)
    return apply(Op.rev, [x], {"axes": axes}) if axes else x


def fliplr(m):
    """numpy.fliplr: reverse the order of elements along axis 1 (left/right)."""
    return flip(m, 1)


def flipud(m):
    """numpy.flipud: reverse the order of elements along axis 0 (up/down)."""
    return flip(m, 0)


def roll(a, shift, axis=None):
    """numpy.roll: roll array elements along a given axis."""
    x = asarray(a)
    if axis is None:
        return reshape(roll(ravel(x), shift, 0), x.shape)
    shifts = (shift,) if isinstance(shift, (int, np.integer)) else tuple(shift)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    y = x
    for s, ax in zip(shifts, axes):
        ax = normalize_axis(ax, y.ndim)
        n = y.shape[ax]
        if n == 0:
            continue
        s = int(s) % n
        if s:
            y = concatenate([slice_axis(y, ax, n - s, n), slice_axis(y, ax, 0, n - s)], axis=ax)
    return copy_array(x) if y is x else y       # NumPy's roll by 0 is a copy too


def tile(A, reps):
    """numpy.tile: construct an array by repeating A the number of times given by reps."""
    x = asarray(A)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    nd = max(x.ndim, len(reps))
    reps = (1,) * (nd - len(reps)) + reps
    x = reshape(x, (1,) * (nd - x.ndim) + x.shape)
    # interleave a new axis of size rep before each axis, broadcast, then merge
    expanded = reshape(x, tuple(v for d in x.shape for v in (1, d)))
    target = tuple(v for r, d in zip(reps, x.shape) for v in (r, d))
    out = reshape(broadcast_to(expanded, target), tuple(r * d for r, d in zip(reps, x.shape)))
    # repeating only size-1 axes (or none) merges into a view of A: NumPy's tile copies
    return out if any(r != 1 and d != 1 for r, d in zip(reps, x.shape)) else copy_array(out)


def repeat(a, repeats, axis=None):
    """numpy.repeat: repeat each element of an array after themselves."""
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    ax = normalize_axis(axis, x.ndim)
    if isinstance(repeats, (int, np.integer)):
        r = int(repeats)
        y = expand_dims(x, ax + 1)
        shape = list(y.shape)
        shape[ax + 1] = r
        out = list(x.shape)
        out[ax] *= r
        out = reshape(broadcast_to(y, shape), out)
        # one repeat, or of a size-1 axis, merges into a view of a: NumPy's repeat copies
        return out if r != 1 and x.shape[ax] != 1 else copy_array(out)
    # the positions are known and in range: one take of host indices (what jnp.take gives)
    idx = np.repeat(np.arange(x.shape[ax], dtype=np.int64), np.asarray(repeats))
    return apply(Op.take, [x, host_array(idx, device_of(x))], {"axis": ax})


def pad(array, pad_width, mode="constant", constant_values=0):
    """numpy.pad: pad an array."""
    x = asarray(array)
    pw = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (x.ndim, 2))
    lo, hi = tuple(int(v) for v in pw[:, 0]), tuple(int(v) for v in pw[:, 1])
    if mode == "constant":
        if not any(lo + hi):
            return copy_array(x)                # NumPy's pad of 0 is a copy too
        if is_array(constant_values):
            return _pad_traced(x, lo, hi, constant_values)
        return apply(Op.pad, [x], {"lo": lo, "hi": hi, "value": float(constant_values)
                                   if kind_of(x.dtype) == "f" else int(constant_values)})
    if mode not in ("edge", "reflect", "symmetric", "wrap"):
        raise NotImplementedError(f"pad: mode {mode!r} is not supported (constant, edge, "
                                  "reflect, symmetric, wrap are)")
    for ax in range(x.ndim):
        if lo[ax] or hi[ax]:
            # the source of each padded position is NumPy's padding of the positions (a pad
            # wider than the axis reflects again, as NumPy's does): one take of host indices
            idx = np.pad(np.arange(x.shape[ax], dtype=np.int64), (lo[ax], hi[ax]), mode=mode)
            x = apply(Op.take, [x, host_array(idx, device_of(x))], {"axis": ax})
    return x if any(lo + hi) else copy_array(x)


def _pad_traced(x, lo, hi, value):
    """Constant padding with a tensor/traced fill value: differentiable in the value."""
    if value.size != 1:
        raise NotImplementedError(f"pad: a traced constant_values must be one value, got shape "
                                  f"{tuple(value.shape)}; pass per-axis constants as numbers")
    padded = apply(Op.pad, [x], {"lo": lo, "hi": hi, "value": 0 if kind_of(x.dtype) != "f" else 0.0})
    border = np.pad(np.zeros(x.shape, bool), tuple(zip(lo, hi)), constant_values=True)
    return where(border, reshape(value, ()).astype(x.dtype), padded)


def _tri_mask(n, m, k, lower):
    i = np.arange(n)[:, None]
    j = np.arange(m)[None, :]
    return (j <= i + k) if lower else (j >= i + k)


def _tri(m, k, lower):
    x = asarray(m)
    if x.ndim == 0:
        raise ValueError(f"{'tril' if lower else 'triu'}: expected an array of dimension >= 1")
    n, m = x.shape[-2:] if x.ndim >= 2 else x.shape * 2      # 1-d: NumPy's square mask
    return where(_tri_mask(n, m, k, lower), x, np.zeros((), x.dtype))


def tril(m, k=0):
    """numpy.tril: lower triangle of an array."""
    return _tri(m, k, True)


def triu(m, k=0):
    """numpy.triu: upper triangle of an array."""
    return _tri(m, k, False)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """numpy.meshgrid: return a tuple of coordinate matrices from coordinate vectors
    (sparse=True: each one only spans its own axis, the others of size 1; `copy` has no effect,
    arrays are immutable)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [ravel(asarray(x)) for x in xi]
    shape = [x.shape[0] for x in xs]
    if indexing == "xy" and len(xs) >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, x in enumerate(xs):
        pos = i
        if indexing == "xy" and len(xs) >= 2 and i < 2:
            pos = 1 - i
        s = [1] * len(xs)
        s[pos] = x.shape[0]
        out.append(reshape(x, s) if sparse else broadcast_to(reshape(x, s), shape))
    return out


def shape(a):
    """numpy.shape: return the shape of an array."""
    return asarray(a).shape


def ndim(a):
    """numpy.ndim: return the number of dimensions of an array."""
    return asarray(a).ndim


def size(a, axis=None):
    """numpy.size: return the number of elements along a given axis."""
    x = asarray(a)
    return x.size if axis is None else x.shape[axis]


def unstack(x, /, *, axis=0):
    """The arrays along `axis`, as a tuple (the inverse of stack)."""
    x = asarray(x)
    if x.ndim == 0:
        raise ValueError("unstack: expected an array of dimension >= 1, got a 0-d array")
    ax = normalize_axis(axis, x.ndim)
    lead = (slice(None),) * ax
    return tuple(x[lead + (i,)] for i in range(x.shape[ax]))


def matrix_transpose(x, /):
    """Transpose of the last two axes (x.mT)."""
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: expected an array of dimension >= 2, got shape "
                         f"{x.shape}")
    return swapaxes(x, -1, -2)


def atleast_3d(*arys):
    """numpy.atleast_3d: view inputs as arrays with at least three dimensions."""
    out = []
    for a in arys:
        x = asarray(a)
        shape = {0: (1, 1, 1), 1: (1,) + x.shape + (1,), 2: x.shape + (1,)}.get(x.ndim, x.shape)
        out.append(reshape(x, shape))
    return out[0] if len(out) == 1 else out


def dsplit(ary, indices_or_sections):
    """numpy.dsplit: split array into multiple sub-arrays along the 3rd axis (depth)."""
    x = asarray(ary)
    if x.ndim < 3:
        raise ValueError(f"dsplit only works on arrays of 3 or more dimensions, got shape {x.shape}")
    return split(x, indices_or_sections, axis=2)


def append(arr, values, axis=None):
    """NumPy's append: flattened when axis is None, else concatenated along axis."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)])
    return concatenate([arr, values], axis=axis)


def rollaxis(a, axis, start=0):
    """NumPy's rollaxis: axis moves to sit before position `start`."""
    x = asarray(a)
    ax = normalize_axis(axis, x.ndim)
    if not -x.ndim <= start <= x.ndim:
        raise np.exceptions.AxisError(f"rollaxis: start {start} is out of bounds for an array "
                                      f"of dimension {x.ndim}")
    start = start % (x.ndim + 1) if start < 0 else start
    if ax < start:
        start -= 1
    return moveaxis(x, ax, start) if ax != start else x


def rot90(m, k=1, axes=(0, 1)):
    """Rotate by 90 degrees k times in the plane of `axes`, from the first towards the second."""
    x = asarray(m)
    if len(axes) != 2:
        raise ValueError(f"rot90: len(axes) must be 2, got {axes}")
    a0, a1 = normalize_axis(axes[0], x.ndim), normalize_axis(axes[1], x.ndim)
    if a0 == a1:
        raise ValueError(f"rot90: axes must be different, got {axes}")
    k %= 4
    if k == 0:
        return x
    if k == 2:
        return flip(flip(x, a0), a1)
    return swapaxes(flip(x, a1), a0, a1) if k == 1 else flip(swapaxes(x, a0, a1), a1)
