"""PyTorch's dim-wise selections, which return (values, indices) named tuples: max/min with a
dim, sort, topk, median, mode, kthvalue, cummax/cummin; and argsort(dim, descending).
NumPy's spellings (x.max(axis=...), x.sort(axis=...)) return values, as NumPy does."""
from __future__ import annotations

from .. import lax
from .. import numpy as jnp
from ..ir.types import kind_of
from ..eager.zero_dim_promotion import torch_operands
from ..numpy._convert import is_array
from . import return_types
from .spelling import UNSET, numpy_axis, numpy_spelled


def _extremum(name, pick, arg):
    def method(self, dim=None, keepdim=False, *, axis=UNSET, keepdims=UNSET):
        if numpy_spelled(axis, keepdims):
            return pick(self, numpy_axis(f"x.{name}", dim, axis),
                        keepdims=keepdims is not UNSET and keepdims)
        if dim is None:
            return pick(self)
        if is_array(dim):       # x.max(other): the elementwise maximum, as torch
            return (jnp.maximum if name == "max" else jnp.minimum)(
                *torch_operands("maximum", self, dim))       # torch's rule for 0-d tensors
        return getattr(return_types, name)(pick(self, dim, keepdims=keepdim),
                                           arg(self, dim, keepdims=keepdim))
    method.__name__ = name
    method.__doc__ = (f"torch.Tensor.{name}: x.{name}() the {name}imum, x.{name}(dim, keepdim) "
                      f"a ({name[:3]}values, indices) named tuple, x.{name}(other) elementwise; "
                      f"x.{name}(axis=...) NumPy's values.")
    return method


max = _extremum("max", jnp.max, jnp.argmax)  # noqa: A001
min = _extremum("min", jnp.min, jnp.argmin)  # noqa: A001


def sort(self, dim=-1, descending=False, stable=False, *, axis=UNSET, kind=None, order=None):
    """torch.Tensor.sort -> (values, indices), stable; x.sort(axis=...) NumPy's sorted values."""
    if numpy_spelled(axis):
        return jnp.sort(self, axis=axis, kind=kind, order=order)
    idx = jnp.argsort(self, axis=dim, descending=descending)
    return return_types.sort(jnp.take_along_axis(self, idx, axis=dim), idx)


def argsort(self, dim=-1, descending=False, stable=False, *, axis=UNSET, kind=None, order=None):
    """torch.Tensor.argsort(dim=-1, descending=False); axis= as NumPy's."""
    return jnp.argsort(self, axis=dim if axis is UNSET else axis, descending=descending)


def msort(self):
    """torch.msort: sorted along dim 0 (values)."""
    return jnp.sort(self, axis=0)


def _at(self, dim, position, keepdim, make):
    """The sorted value at `position` along dim, and its index."""
    dim = dim % self.ndim if self.ndim else 0
    x = self if self.ndim else jnp.reshape(self, (1,))
    idx = jnp.argsort(x, axis=dim)
    idx = jnp.expand_dims(idx[(slice(None),) * dim + (position,)], dim)
    values = jnp.take_along_axis(x, idx, axis=dim)
    if not keepdim or not self.ndim:
        values, idx = jnp.squeeze(values, dim), jnp.squeeze(idx, dim)
    return make(values, idx)


def median(self, dim=None, keepdim=False, *, axis=UNSET, keepdims=UNSET):
    """torch.Tensor.median: the lower of the two middle values (not their mean); with dim a
    (values, indices) tuple. axis=/keepdims=: NumPy's median (the mean of the middle two)."""
    if numpy_spelled(axis, keepdims):
        return jnp.median(self, axis=numpy_axis("x.median", dim, axis),
                          keepdims=keepdims is not UNSET and keepdims)
    if dim is None:
        flat = jnp.ravel(self)
        return jnp.sort(flat)[(flat.shape[0] - 1) // 2]
    n = self.shape[dim] if self.ndim else 1
    return _at(self, dim, (n - 1) // 2, keepdim, return_types.median)


def kthvalue(self, k, dim=-1, keepdim=False):
    """torch.Tensor.kthvalue: the k-th smallest (1-based) along dim, with its index."""
    n = self.shape[dim] if self.ndim else 1
    if not 1 <= k <= n:
        raise IndexError(f"kthvalue: k={k} is out of range for a dim of size {n} "
                         f"(expected 1 <= k <= {n})")
    return _at(self, dim, k - 1, keepdim, return_types.kthvalue)


def topk(self, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """torch.Tensor.topk: the k largest (smallest with largest=False) along dim, sorted."""
    n = self.shape[dim] if self.ndim else 1
    if not 0 <= k <= n:
        raise IndexError(f"topk: k={k} is out of range for a dim of size {n}")
    dim = dim % self.ndim if self.ndim else 0
    x = self if self.ndim else jnp.reshape(self, (1,))
    idx = jnp.argsort(x, axis=dim, descending=largest)[(slice(None),) * dim + (slice(0, k),)]
    values = jnp.take_along_axis(x, idx, axis=dim)
    if not self.ndim:
        values, idx = jnp.reshape(values, ()), jnp.reshape(idx, ())
    return return_types.topk(values, idx)


def mode(self, dim=-1, keepdim=False):
    """torch.Tensor.mode: the most frequent value along dim (the smallest among ties) and the
    index of its last occurrence."""
    x = self if self.ndim else jnp.reshape(self, (1,))
    dim = dim % x.ndim
    a, b = jnp.expand_dims(x, dim + 1), jnp.expand_dims(x, dim)
    counts = jnp.sum(jnp.equal(a, b), axis=dim + 1)          # occurrences of each element
    best = jnp.max(counts, axis=dim, keepdims=True)
    big = jnp.array(jnp.inf if kind_of(x.dtype) in "fc" else jnp.iinfo(x.dtype).max, x.dtype)
    values = jnp.min(jnp.where(jnp.equal(counts, best), x, big), axis=dim, keepdims=True)
    positions = jnp.expand_dims(jnp.arange(x.shape[dim]), tuple(range(1, x.ndim - dim)))
    idx = jnp.max(jnp.where(jnp.equal(x, values), positions, -1), axis=dim, keepdims=True)
    if not keepdim or not self.ndim:
        values, idx = jnp.squeeze(values, dim), jnp.squeeze(idx, dim)
    return return_types.mode(values, idx)


def _cumulative(name, scan):
    def method(self, dim):
        """torch.Tensor.cummax/cummin: running extremum along dim and the index of its last
        occurrence so far."""
        x = self if self.ndim else jnp.reshape(self, (1,))
        d = dim % x.ndim
        values = scan(x, axis=d)
        positions = jnp.expand_dims(jnp.arange(x.shape[d]), tuple(range(1, x.ndim - d)))
        idx = lax.cummax(jnp.where(jnp.equal(x, values), positions, -1), axis=d)
        if not self.ndim:
            values, idx = jnp.reshape(values, ()), jnp.reshape(idx, ())
        return getattr(return_types, name)(values, idx)
    method.__name__ = name
    return method


cummax = _cumulative("cummax", lax.cummax)
cummin = _cumulative("cummin", lax.cummin)


def aminmax(self, *, dim=None, keepdim=False):
    """torch.Tensor.aminmax -> (min, max)."""
    return return_types.aminmax(jnp.min(self, axis=dim, keepdims=keepdim),
                                jnp.max(self, axis=dim, keepdims=keepdim))


METHODS = {"max": max, "min": min, "sort": sort, "argsort": argsort, "msort": msort,
           "median": median, "kthvalue": kthvalue, "topk": topk, "mode": mode,
           "cummax": cummax, "cummin": cummin, "aminmax": aminmax}
