"""NumPy's array-editing functions, each returning a new array (as jax.numpy: the in-place
ones take inplace=False): insert, delete, put, put_along_axis, place, fill_diagonal, compress,
extract, choose, resize, trim_zeros, block, diagflat, ediff1d, lexsort, sort_complex,
array_equiv. Positions known on the host become static gathers; values stay differentiable."""
from __future__ import annotations

import math

import numpy as np

from ..errors import ConcretizationError
from ..ir.types import kind_of
from ._convert import asarray, astype, normalize_axis, operands
from .complex_parts import imag, real
from .creation import zeros
from .elementwise import where
from .host_values import concrete
from .indexing import take, take_along_axis
from .products import diag
from .reductions import all, argsort, cumsum, sum  # noqa: A004
from .set_functions import compacted
from .shape import (broadcast_arrays, broadcast_shapes, broadcast_to, concatenate,
                    expand_dims, moveaxis, ravel, reshape, stack)
from .spaced import arange
from .ufuncs import equal, mod, not_equal, subtract


def _host_index(obj, name):
    if isinstance(obj, slice):
        return obj
    c = concrete(asarray(obj)) if not isinstance(obj, (int, np.integer)) else np.asarray(obj)
    if c is None:
        raise ConcretizationError(f"{name}: the positions must be known (not traced): the "
                                  "result's shape depends on them")
    return c


def _flat_axis(arr, axis):
    x = asarray(arr)
    return (ravel(x), 0) if axis is None else (x, normalize_axis(axis, x.ndim))


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """numpy.delete: arr without the entries obj (an int, slice or index list) along axis."""
    x, ax = _flat_axis(arr, axis)
    n = x.shape[ax]
    keep = np.delete(np.arange(n), _host_index(obj, "delete"))
    return take(x, asarray(keep.astype(np.int64)), axis=ax)


def insert(arr, obj, values, axis=None):
    """numpy.insert: values inserted before the positions obj along axis (a scalar obj inserts
    values as one block, a list of positions one slice each)."""
    x, ax = _flat_axis(arr, axis)
    n = x.shape[ax]
    pos = _host_index(obj, "insert")
    if isinstance(pos, slice):
        pos = np.arange(*pos.indices(n))
    v = asarray(values, dtype=x.dtype) if not hasattr(values, "dtype") else \
        astype(asarray(values), x.dtype)
    v = reshape(v, (1,) * (x.ndim - v.ndim) + tuple(v.shape)) if v.ndim < x.ndim else v
    if np.ndim(pos) == 0:
        v = moveaxis(v, 0, ax) if x.ndim else v
        count = v.shape[ax] if x.ndim else 1
    else:
        count = len(pos)
    if np.ndim(pos) == 0 and not -n <= int(pos) <= n or np.ndim(pos) and pos.size and \
            (pos.min() < -n or pos.max() > n):
        raise IndexError(f"insert: index {pos} is out of bounds for axis {ax} with size {n}")
    v = broadcast_to(v, tuple(count if i == ax else d for i, d in enumerate(x.shape)))
    layout = np.insert(np.arange(n), pos, -1 - np.arange(count))
    gather = np.where(layout >= 0, layout, n - 1 - layout)
    return take(concatenate([x, v], axis=ax), asarray(gather.astype(np.int64)), axis=ax)


def _not_inplace(inplace, name):
    if inplace:
        raise ValueError(f"{name}: jitgrad arrays are immutable, as JAX's: pass inplace=False "
                         "and use the returned array")


def put(a, ind, v, mode=None, *, inplace=True):
    """jnp.put(..., inplace=False): a copy of a with its flat entries ind set to v (v repeats
    cyclically, as NumPy's). mode 'clip' / 'wrap'; otherwise out-of-range indices raise."""
    _not_inplace(inplace, "put")
    x = asarray(a)
    flat = ravel(x)
    i, vals = ravel(asarray(ind)), ravel(astype(asarray(v), x.dtype))
    if i.shape[0] == 0:
        return x
    if vals.shape[0] == 0:
        raise ValueError("put: cannot replace entries with no values")
    if vals.shape[0] != i.shape[0]:
        vals = take(vals, mod(arange(i.shape[0]), vals.shape[0]))
    if mode == "wrap":
        i, mode = mod(i, flat.shape[0]), None
    return reshape(flat.at[i].set(vals, mode=mode), x.shape)


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """jnp.put_along_axis(..., inplace=False): a copy of arr with values written at indices
    along axis (the scatter counterpart of take_along_axis)."""
    _not_inplace(inplace, "put_along_axis")
    x, idx = asarray(arr), asarray(indices)
    if axis is None:
        x, ax = ravel(x), 0
        idx = ravel(idx)
    else:
        ax = normalize_axis(axis, x.ndim)
    if idx.ndim != x.ndim:
        raise ValueError(f"put_along_axis: indices and arr must have the same number of "
                         f"dimensions, got {idx.ndim} and {x.ndim}")
    shape = broadcast_shapes(tuple(d if i != ax else 1 for i, d in enumerate(x.shape)),
                             tuple(d if i != ax else 1 for i, d in enumerate(idx.shape)))
    shape = tuple(idx.shape[i] if i == ax else d for i, d in enumerate(shape))
    key = tuple(broadcast_to(idx, shape) if i == ax else
                broadcast_to(reshape(arange(shape[i]), tuple(-1 if j == i else 1
                                                             for j in range(x.ndim))), shape)
                for i in range(x.ndim))
    vals = broadcast_to(astype(asarray(values), x.dtype), shape)
    out = x.at[key].set(vals, mode=mode)
    return out if axis is not None else reshape(out, asarray(arr).shape)


def place(arr, mask, vals, *, inplace=True):
    """jnp.place(..., inplace=False): arr with the entries where mask is true replaced, in order,
    by vals (repeated cyclically)."""
    _not_inplace(inplace, "place")
    x, m = asarray(arr), asarray(mask)
    v = ravel(astype(asarray(vals), x.dtype))
    if v.shape[0] == 0:
        raise ValueError("place: cannot place from an empty vals")
    m = broadcast_to(m, x.shape)
    nth = reshape(subtract(cumsum(ravel(m)), 1), x.shape)
    return where(m, take(v, mod(where(m, nth, 0), v.shape[0])), x)


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """jnp.fill_diagonal(..., inplace=False): a with its main diagonal set to val (repeated);
    a tall 2-d matrix restarts the diagonal every n + 1 rows when wrap (NumPy's)."""
    _not_inplace(inplace, "fill_diagonal")
    x = asarray(a)
    if x.ndim < 2:
        raise ValueError(f"fill_diagonal: array must be at least 2-d, got shape {x.shape}")
    if x.ndim > 2 and len(set(x.shape)) != 1:
        raise ValueError(f"fill_diagonal: all dimensions of input must be of equal length, got "
                         f"shape {x.shape}")
    step = 1 + int(np.cumprod(x.shape[:-1]).sum()) if x.ndim > 2 else x.shape[1] + 1
    end = None if wrap or x.ndim > 2 else x.shape[1] * x.shape[1]
    pos = np.arange(math.prod(x.shape))[:end:step]
    v = ravel(astype(asarray(val), x.dtype))
    v = take(v, asarray(np.arange(len(pos)) % max(v.shape[0], 1)))
    return reshape(ravel(x).at[asarray(pos)].set(v), x.shape)


def _first_true(cond, n, size, name):
    """Indices of the true entries of the 1-d cond (length n), padded to size."""
    return compacted(arange(n), cond, size, 0, name, "zero")[0]


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """numpy.compress: the slices of a along axis where condition is true (a shorter
    condition covers a prefix). Under jit pass size= (fill_value pads), as jax.numpy."""
    c = ravel(asarray(condition))
    if kind_of(c.dtype) != "b":
        c = not_equal(c, 0)
    x, ax = _flat_axis(a, axis)
    n = x.shape[ax]
    known = concrete(c)
    if known is not None and known.size > n and known[n:].any() or \
            known is None and c.shape[0] > n:
        raise IndexError(f"compress: condition has {c.shape[0]} entries, more than the "
                         f"{n} of axis {ax}")
    if known is not None and size is None:      # a known condition: a static gather
        return take(x, asarray(np.flatnonzero(known[:n]).astype(np.int64)), axis=ax)
    if c.shape[0] > n:
        c = c[:n]
    if c.shape[0] < n:
        c = concatenate([c, zeros(n - c.shape[0], bool)])
    idx = _first_true(c, n, size, "compress")
    out_ = take(x, idx, axis=ax, mode="clip") if n else \
        zeros(tuple(idx.shape[0] if i == ax else d for i, d in enumerate(x.shape)), x.dtype)
    if size is None:
        return out_
    valid = reshape(arange(size) < sum(c), tuple(-1 if i == ax else 1 for i in range(x.ndim)))
    return where(valid, out_, fill_value)


def extract(condition, arr, *, size=None, fill_value=0):
    """numpy.extract: the entries of arr where condition is true, flattened (size= under jit)."""
    return compress(ravel(asarray(condition)), ravel(asarray(arr)), size=size,
                    fill_value=fill_value)


def choose(a, choices, out=None, mode="raise"):
    """numpy.choose: choices[a[i]][i] for each i (all broadcast together); mode 'raise'
    (out-of-range raises), 'wrap' or 'clip'."""
    idx = asarray(a)
    if kind_of(idx.dtype) not in "iub":
        raise TypeError(f"choose: a must hold integers, got {idx.dtype}")
    picks = broadcast_arrays(idx, *[asarray(c) for c in choices])
    idx, picks = picks[0], picks[1:]
    n = len(picks)
    if mode == "wrap":
        idx, mode = mod(idx, n), None
    elif mode == "raise":
        mode = None
    elif mode != "clip":
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    stacked = stack(list(picks))
    return take_along_axis(stacked, expand_dims(idx, 0), axis=0, mode=mode)[0]


def resize(a, new_shape):
    """numpy.resize: a's entries repeated (or cut) to fill new_shape."""
    x = ravel(asarray(a))
    shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"resize: all elements of new_shape must be non-negative, got {shape}")
    total = math.prod(shape)
    if x.shape[0] == 0:
        return zeros(shape, x.dtype)
    return reshape(take(x, mod(arange(total), x.shape[0])), shape)


def trim_zeros(filt, trim="fb", axis=None):
    """numpy.trim_zeros for 1-d input: without leading ('f') and/or trailing ('b') zeros
    (the values must be known: the result's length depends on them)."""
    x = asarray(filt)
    if x.ndim != 1:
        raise ValueError(f"trim_zeros: filt must be 1-d, got shape {x.shape}")
    c = _host_index(x, "trim_zeros")
    nz = np.flatnonzero(c)
    if not nz.size:
        return x[:0]
    lo = int(nz[0]) if "f" in trim.lower() else 0
    hi = int(nz[-1]) + 1 if "b" in trim.lower() else x.shape[0]
    return x[lo:hi]


def _depth(x):
    return 1 + _depth(x[0]) if isinstance(x, list) and x else int(isinstance(x, list))


def block(arrays):
    """numpy.block: an array assembled from nested lists of blocks, the innermost list joined
    along the last axis, the next along the second-to-last, and so on."""
    depth = _depth(arrays)

    def leaves(x):
        return [leaf for e in x for leaf in leaves(e)] if isinstance(x, list) else [x]

    if isinstance(arrays, tuple) or any(isinstance(e, tuple) for e in leaves(arrays)):
        raise TypeError("block: arrays is a tuple; only lists may be nested")
    ndim = max([asarray(leaf).ndim for leaf in leaves(arrays)] + [depth])

    def assemble(x, level):
        if not isinstance(x, list):
            v = asarray(x)
            return reshape(v, (1,) * (ndim - v.ndim) + tuple(v.shape))
        if not x:
            raise ValueError("block: lists cannot be empty")
        return concatenate([assemble(e, level + 1) for e in x], axis=-(depth - level))

    return assemble(arrays, 0)


def diagflat(v, k=0):
    """numpy.diagflat: a 2-d array with the flattened v on its k-th diagonal."""
    return diag(ravel(asarray(v)), k)


def ediff1d(ary, to_end=None, to_begin=None):
    """numpy.ediff1d: the differences of consecutive flattened entries, with optional values
    before and after."""
    x = ravel(asarray(ary))
    parts = [subtract(x[1:], x[:-1])]
    if to_begin is not None:
        parts.insert(0, ravel(astype(asarray(to_begin), x.dtype)))
    if to_end is not None:
        parts.append(ravel(astype(asarray(to_end), x.dtype)))
    return concatenate(parts)


def lexsort(keys, axis=-1):
    """numpy.lexsort: the indices sorting by the last key, then the one before, ...: stable
    sorts from the first key to the last."""
    ks = [asarray(k) for k in keys] if isinstance(keys, (list, tuple)) else \
        [asarray(keys)[i] for i in range(asarray(keys).shape[0])]
    if not ks:
        raise TypeError("lexsort: need sequence of keys with len > 0")
    shape = ks[0].shape
    if any(k.shape != shape for k in ks):
        raise ValueError(f"lexsort: all keys need to be the same shape, got "
                         f"{[tuple(k.shape) for k in ks]}")
    ax = normalize_axis(axis, len(shape))
    perm = None
    for k in ks:
        keyed = k if perm is None else take_along_axis(k, perm, axis=ax)
        order = argsort(keyed, axis=ax, stable=True)
        perm = order if perm is None else take_along_axis(perm, order, axis=ax)
    return perm


def sort_complex(a):
    """numpy.sort_complex: sorted by real part, then imaginary part; a complex result."""
    x = asarray(a)
    if kind_of(x.dtype) != "c":
        x = astype(x, "complex128" if x.dtype == np.float64 else "complex64")
    order = lexsort((imag(x), real(x)))
    return take_along_axis(x, order, axis=-1)


def array_equiv(a1, a2):
    """numpy.array_equiv: whether the arrays broadcast together and are equal everywhere
    (a bool array, as jax.numpy)."""
    x, y = operands(a1, a2)
    try:
        broadcast_shapes(tuple(x.shape), tuple(y.shape))
    except ValueError:
        return asarray(False)
    return all(equal(x, y))

