"""NumPy's index helpers: tril/triu/diag/mask indices, indices, ix_, unravel_index,
ravel_multi_index, and the index-expression objects mgrid, ogrid, s_ and index_exp. Static
shapes give static index arrays (computed with NumPy); index arithmetic on arrays is a composite."""
from __future__ import annotations

import numpy as np

from ..errors import ConcretizationError
from ..ir.types import kind_of
from ._convert import asarray, astype
from .elementwise import clip, where
from .host_values import concrete
from .shape import broadcast_to, meshgrid, reshape, stack
from .spaced import arange, linspace
from .ufuncs import add, floor_divide, less, mod, multiply

s_ = np.s_
index_exp = np.index_exp


def _int_arrays(arrays):
    return tuple(asarray(np.asarray(a, dtype=np.int64)) for a in arrays)


def tril_indices(n, k=0, m=None):
    """numpy.tril_indices: the (rows, cols) of an (n, m) lower triangle."""
    return _int_arrays(np.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    """numpy.triu_indices: the (rows, cols) of an (n, m) upper triangle."""
    return _int_arrays(np.triu_indices(n, k, m))


def _matrix_shape(arr, name):
    shape = np.shape(arr) if not hasattr(arr, "shape") else tuple(arr.shape)
    if len(shape) != 2:
        raise ValueError(f"{name}: input array must be 2-d, got shape {shape}")
    return shape


def tril_indices_from(arr, k=0):
    """numpy.tril_indices_from: tril_indices for arr's shape."""
    n, m = _matrix_shape(arr, "tril_indices_from")
    return tril_indices(n, k, m)


def triu_indices_from(arr, k=0):
    """numpy.triu_indices_from: triu_indices for arr's shape."""
    n, m = _matrix_shape(arr, "triu_indices_from")
    return triu_indices(n, k, m)


def diag_indices(n, ndim=2):
    """numpy.diag_indices: ndim copies of arange(n), indexing the main diagonal."""
    if n < 0 or ndim < 0:
        raise ValueError(f"diag_indices: n and ndim must be non-negative, got {n} and {ndim}")
    return _int_arrays(np.diag_indices(n, ndim))


def diag_indices_from(arr):
    """numpy.diag_indices_from: the main diagonal's indices of an array with equal sides."""
    shape = tuple(arr.shape)
    if len(shape) < 2 or len(set(shape)) != 1:
        raise ValueError(f"diag_indices_from: all dimensions of the input must be of equal "
                         f"length (at least 2), got shape {shape}")
    return diag_indices(shape[0], len(shape))


def mask_indices(n, mask_func, k=0, *, size=None):
    """numpy.mask_indices: the indices where mask_func(ones((n, n)), k) is non-zero (size=
    pads or truncates, as jax.numpy's)."""
    m = concrete(asarray(mask_func(np.ones((n, n), dtype=np.int64), k)))
    if m is None:
        raise ConcretizationError("mask_indices: mask_func must give known values")
    rows, cols = np.nonzero(m)
    if size is not None:
        rows, cols = (np.resize(np.concatenate([a, np.zeros(max(size - len(a), 0), a.dtype)]),
                                size) for a in (rows, cols))
    return _int_arrays((rows, cols))


def indices(dimensions, dtype=None, sparse=False):
    """numpy.indices: the index grid of a shape (int64 by default: jitgrad's default integer, as
    jnp.arange's and jax.numpy's in x64 mode)."""
    dtype = "int64" if dtype is None else dtype
    n = len(dimensions)
    grids = [reshape(arange(d, dtype=dtype), tuple(d if i == j else 1 for j in range(n)))
             for i, d in enumerate(dimensions)]
    if sparse:
        return tuple(grids)
    if not grids:
        return asarray(np.zeros((0,), dtype=np.dtype(str(dtype))))
    return stack([broadcast_to(g, tuple(dimensions)) for g in grids])


def ix_(*args):
    """numpy.ix_: 1-d index arrays reshaped to broadcast against each other (an open mesh)."""
    out = []
    for i, a in enumerate(args):
        x = asarray(a)
        if x.ndim != 1:
            raise ValueError(f"ix_: cross index must be 1-d, got shape {x.shape}")
        out.append(reshape(x, tuple(-1 if j == i else 1 for j in range(len(args)))))
    return tuple(out)


def unravel_index(indices, shape):
    """numpy.unravel_index: the multi-index of each flat index into `shape`. As jax.numpy,
    negative indices count from the end and out-of-range ones clip."""
    i = asarray(indices)
    if kind_of(i.dtype) not in "iu":
        raise TypeError(f"unravel_index: indices must be integers, got {i.dtype}")
    total = int(np.prod(shape))
    i = clip(where(less(i, 0), add(i, total), i), 0, max(total - 1, 0))
    out = []
    for d in reversed(shape):
        out.append(mod(i, d))
        i = floor_divide(i, d)
    return tuple(reversed(out))


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """numpy.ravel_multi_index: flat indices of a tuple of index arrays into `dims`, with
    mode 'raise' (known values), 'wrap' or 'clip'; order 'C' or 'F'."""
    if len(multi_index) != len(dims):
        raise ValueError(f"ravel_multi_index: parameter multi_index must be a sequence of length "
                         f"{len(dims)}, got {len(multi_index)}")
    if order not in ("C", "F"):
        raise ValueError(f"ravel_multi_index: order must be 'C' or 'F', got {order!r}")
    idx = [asarray(i) for i in multi_index]
    fixed = []
    for i, d in zip(idx, dims):
        if kind_of(i.dtype) not in "iu":
            raise TypeError(f"ravel_multi_index: indices must be integers, got {i.dtype}")
        if mode == "raise":
            c = concrete(i)
            if c is None:
                raise ConcretizationError("ravel_multi_index: mode='raise' checks the values, "
                                          "which a traced array doesn't have; use mode='clip' "
                                          "or 'wrap' under jit")
            if c.size and (c.min() < 0 or c.max() >= d):
                raise ValueError("ravel_multi_index: invalid entry in coordinates array")
            fixed.append(i)
        elif mode in ("wrap", "clip"):
            fixed.append(mod(i, d) if mode == "wrap" else clip(i, 0, d - 1))
        else:
            raise ValueError(f"ravel_multi_index: mode must be 'raise', 'wrap' or 'clip', got "
                             f"{mode!r}")
    pairs = list(zip(fixed, dims))
    pairs = pairs if order == "C" else pairs[::-1]
    flat = astype(pairs[0][0], "int64") if pairs else asarray(0)
    for i, d in pairs[1:]:
        flat = add(multiply(flat, d), i)
    return flat


class _Grid:
    """mgrid[...] / ogrid[...]: aranges (or linspaces, for a complex step such as 5j) on a
    dense (mgrid) or open (ogrid) grid."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        single = not isinstance(key, tuple)
        axes = [_grid_axis(k) for k in ((key,) if single else key)]
        if single:
            return axes[0]
        if self.sparse:
            return list(ix_(*axes))
        return stack(meshgrid(*axes, indexing="ij")) if axes else asarray([])


def _grid_axis(k):
    if not isinstance(k, slice):
        raise TypeError(f"mgrid/ogrid: expected slices, got {type(k).__name__}")
    start = 0 if k.start is None else k.start
    step = 1 if k.step is None else k.step
    if isinstance(step, complex):
        return linspace(start, k.stop, int(abs(step)))
    return arange(start, k.stop, step)


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)
