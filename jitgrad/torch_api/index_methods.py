"""PyTorch's indexing methods: gather/scatter along a dim, index_* along a dim with a 1-d
index, masked_*, take/put, take_along_dim and x.where(condition, other). All are functional
(built on jitgrad.numpy's take_along_axis and `.at[]`), so they trace and differentiate; the
in-place forms (scatter_, index_add_, masked_fill_, ...) come from inplace.py."""
from __future__ import annotations

from .. import numpy as jnp
from ..ir.types import kind_of


def _grid(index, dim):
    """The full index of `scatter`/`gather` along dim: index itself at dim, aranges elsewhere."""
    key = []
    for d in range(index.ndim):
        if d == dim:
            key.append(index)
        else:
            key.append(jnp.reshape(jnp.arange(index.shape[d]),
                                   [-1 if e == d else 1 for e in range(index.ndim)]))
    return tuple(key)


def _check_index(what, self, dim, index):
    index = jnp.asarray(index)
    if kind_of(index.dtype) not in "iu":
        raise TypeError(f"{what}: expected an integer index tensor, got {index.dtype}")
    if index.ndim != self.ndim:
        raise ValueError(f"{what}: index has {index.ndim} dims but the tensor has {self.ndim} "
                         f"(they must match)")
    bad = [d for d in range(self.ndim) if d != dim and index.shape[d] > self.shape[d]]
    if bad:
        raise ValueError(f"{what}: index shape {tuple(index.shape)} exceeds the tensor's "
                         f"{tuple(self.shape)} in dim {bad[0]} (only dim {dim} may be larger)")
    return index


def gather(self, dim, index, *, sparse_grad=False):
    """torch.Tensor.gather(dim, index): out[i][j] = x[index[i][j]][j] (dim=0)."""
    dim = dim % max(self.ndim, 1)
    index = _check_index("gather", self, dim, index)
    part = self[tuple(slice(None) if d == dim else slice(0, n)
                      for d, n in enumerate(index.shape))]
    return jnp.take_along_axis(part, index, axis=dim)


def _source(src, index, dtype):
    src = jnp.asarray(src, dtype=dtype)
    if src.ndim == 0:
        return src
    return src[tuple(slice(0, n) for n in index.shape)]


_IDENTITY = {"sum": 0, "mean": 0, "prod": 1}
_REDUCE = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "max", "amin": "min",
           "add": "add", "multiply": "multiply"}


def scatter(self, dim, index, src=None, *, value=None, reduce=None):
    """torch.Tensor.scatter(dim, index, src | value, reduce=None|'add'|'multiply')."""
    src = value if src is None else src
    dim = dim % max(self.ndim, 1)
    index = _check_index("scatter", self, dim, index)
    key, v = _grid(index, dim), _source(src, index, self.dtype)
    if reduce is None:
        return self.at[key].set(v)
    return getattr(self.at[key], _reduce_kind("scatter", reduce))(v)


def _reduce_kind(what, reduce):
    if reduce not in _REDUCE:
        raise ValueError(f"{what}: reduce must be one of {sorted(_REDUCE)}, got {reduce!r}")
    return _REDUCE[reduce]


def scatter_add(self, dim, index, src):
    """torch.Tensor.scatter_add: src added at the scattered positions."""
    return scatter(self, dim, index, src, reduce="add")


def _lowest(dtype, highest):
    if kind_of(dtype) in "fc":
        return jnp.inf if highest else -jnp.inf
    info = jnp.iinfo(dtype)
    return info.max if highest else info.min


def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
    """torch.Tensor.scatter_reduce(dim, index, src, reduce='sum'|'prod'|'mean'|'amax'|'amin',
    include_self=True)."""
    dim = dim % max(self.ndim, 1)
    index = _check_index("scatter_reduce", self, dim, index)
    key, v = _grid(index, dim), _source(src, index, self.dtype)
    kind = _reduce_kind("scatter_reduce", reduce)
    base = self
    if not include_self:
        start = _IDENTITY.get(reduce, _lowest(self.dtype, reduce == "amin"))
        base = self.at[key].set(jnp.asarray(start, dtype=self.dtype))
    out = getattr(base.at[key], kind)(v)
    if reduce != "mean":
        return out
    counts = jnp.zeros(self.shape, self.dtype).at[key].add(jnp.ones((), self.dtype))
    counts = counts + (1 if include_self else 0)
    divide = jnp.floor_divide if kind_of(self.dtype) in "iu" else jnp.true_divide
    return jnp.where(counts > 0, divide(out, jnp.maximum(counts, 1)), self)


def _along(dim, index):
    return (slice(None),) * dim + (jnp.asarray(index),)


def index_select(self, dim, index):
    """torch.Tensor.index_select(dim, index): the entries index along dim."""
    return jnp.take(self, index, axis=dim)


def index_add(self, dim, index, source, *, alpha=1):
    """torch.Tensor.index_add(dim, index, source, alpha=1)."""
    source = source if alpha == 1 else source * alpha
    return self.at[_along(dim % self.ndim, index)].add(jnp.asarray(source, dtype=self.dtype))


def index_copy(self, dim, index, source):
    """torch.Tensor.index_copy(dim, index, source)."""
    return self.at[_along(dim % self.ndim, index)].set(jnp.asarray(source, dtype=self.dtype))


def index_fill(self, dim, index, value):
    """torch.Tensor.index_fill(dim, index, value)."""
    return self.at[_along(dim % self.ndim, index)].set(jnp.asarray(value, dtype=self.dtype))


def index_put(self, indices, values, accumulate=False):
    """torch.Tensor.index_put(indices, values, accumulate=False): x[indices] = (or +=) values."""
    ref = self.at[tuple(indices)]
    values = jnp.asarray(values, dtype=self.dtype)
    return ref.add(values) if accumulate else ref.set(values)


def masked_fill(self, mask, value):
    """torch.Tensor.masked_fill(mask, value): value where mask is True."""
    return jnp.where(mask, jnp.asarray(value, dtype=self.dtype), self)


def masked_scatter(self, mask, source):
    """torch.Tensor.masked_scatter: source's leading elements, in order, where mask is True."""
    mask = jnp.broadcast_to(mask, self.shape)
    order = jnp.reshape(jnp.cumsum(jnp.ravel(mask)) - 1, self.shape)
    taken = jnp.take(jnp.ravel(source), jnp.clip(order, 0, None))
    return jnp.where(mask, jnp.asarray(taken, dtype=self.dtype), self)


def masked_select(self, mask):
    """torch.Tensor.masked_select: the 1-d tensor of the elements where mask is True (its
    length depends on the values: eager tensors only, as x[mask])."""
    return jnp.broadcast_to(self, jnp.broadcast_shapes(self.shape, jnp.shape(mask)))[
        jnp.broadcast_to(mask, jnp.broadcast_shapes(self.shape, jnp.shape(mask)))]


def take_along_dim(self, indices, dim=None):
    """torch.take_along_dim: NumPy's take_along_axis (flattened when dim is None)."""
    return jnp.take_along_axis(self, indices, axis=dim)


def take(self, index, axis=None, **numpy_kw):
    """torch.Tensor.take(index): the flattened tensor's entries at index (NumPy's take, whose
    axis=None means the same)."""
    return jnp.take(self, index, axis=axis, **numpy_kw)


def put(self, index, source, accumulate=False):
    """torch.Tensor.put(index, source, accumulate=False) on the flattened tensor."""
    ref = jnp.ravel(self).at[jnp.ravel(jnp.asarray(index))]
    source = jnp.ravel(jnp.asarray(source, dtype=self.dtype))
    return jnp.reshape(ref.add(source) if accumulate else ref.set(source), self.shape)


def where(self, condition, other):
    """torch.Tensor.where(condition, other): self where condition, else other."""
    return jnp.where(condition, self, other)


METHODS = {"gather": gather, "scatter": scatter, "scatter_add": scatter_add,
           "scatter_reduce": scatter_reduce, "index_select": index_select,
           "index_add": index_add, "index_copy": index_copy, "index_fill": index_fill,
           "index_put": index_put, "masked_fill": masked_fill,
           "masked_scatter": masked_scatter, "masked_select": masked_select,
           "take_along_dim": take_along_dim, "take": take, "put": put, "where": where}
