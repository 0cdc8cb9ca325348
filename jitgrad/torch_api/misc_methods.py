"""The rest of torch.Tensor's methods: splits (hsplit, split_with_sizes, unsafe_*), scatters into
slices (select_scatter, slice_scatter, diagonal_scatter), index_reduce, sum_to_size,
nonzero_static, draws (bernoulli, multinomial), activations (hardshrink, prelu), and the
queries whose answer is fixed for jitgrad's tensors (is_sparse, is_quantized, is_conj, ...)."""
from __future__ import annotations

from .. import numpy as jnp
from ..transforms.autodiff import stop_gradient
from ..nn import functional as F
from . import functions, index_methods, shape_methods


def split_with_sizes(self, split_sizes, dim=0):
    """torch.Tensor.split_with_sizes."""
    return shape_methods.split(self, list(split_sizes), dim)


def sum_to_size(self, *size):
    """torch.Tensor.sum_to_size: summed down to `size`, which x broadcasts from."""
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    lead = self.ndim - len(size)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(size)
                                      if n == 1 and self.shape[lead + i] != 1)
    return jnp.reshape(jnp.sum(self, axis=axes, keepdims=True), size) if axes else self


def nonzero_static(self, *, size, fill_value=-1):
    """torch.Tensor.nonzero_static: the first `size` rows of nonzero(), padded with
    fill_value (a fixed shape: usable under jit)."""
    n = int(self.size)
    flat = jnp.ravel(self) != 0
    if size > n:
        flat = jnp.concatenate([flat, jnp.zeros((size - n,), bool)])
    order = jnp.argsort(jnp.logical_not(flat))[:size]          # stable: nonzeros first
    found = jnp.take(flat, order)
    if self.ndim == 0:
        return jnp.zeros((size, 0), "int64")
    rows = jnp.stack(jnp.unravel_index(jnp.minimum(order, max(n - 1, 0)), self.shape), axis=-1)
    return jnp.where(jnp.expand_dims(found, -1), rows, fill_value)


def select_scatter(self, src, dim, index):
    """torch.select_scatter: src written into the slice at index along dim."""
    return self.at[(slice(None),) * (dim % self.ndim) + (index,)].set(src)


def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    """torch.slice_scatter: src written into x[start:end:step] along dim."""
    return self.at[(slice(None),) * (dim % self.ndim) + (slice(start, end, step),)].set(src)


def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
    """torch.diagonal_scatter: src written onto the diagonal (offset, dim1, dim2)."""
    x = jnp.moveaxis(self, (dim1, dim2), (-2, -1))
    n = src.shape[-1]
    rows = jnp.arange(n) + max(-offset, 0)
    key = (Ellipsis, rows, rows + offset)
    return jnp.moveaxis(x.at[key].set(src), (-2, -1), (dim1, dim2))


_INDEX_REDUCE = {"prod": "multiply", "amax": "max", "amin": "min"}


def index_reduce(self, dim, index, source, reduce, *, include_self=True):
    """torch.Tensor.index_reduce(dim, index, source, 'prod'|'mean'|'amax'|'amin')."""
    d = dim % self.ndim
    shape = [1] * self.ndim
    shape[d] = -1
    full = jnp.broadcast_to(jnp.reshape(jnp.asarray(index), shape), source.shape)
    return index_methods.scatter_reduce(self, d, full, source, reduce, include_self=include_self)


def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    """torch.unique_consecutive: runs of equal values collapsed (eager tensors only)."""
    if return_inverse or dim is not None:
        raise ValueError("unique_consecutive: return_inverse and dim are not supported")
    flat = jnp.ravel(self)
    keep = jnp.concatenate([jnp.array([True]), flat[1:] != flat[:-1]]) if flat.shape[0] else flat
    values = flat[keep]
    if not return_counts:
        return values
    starts = jnp.argwhere(keep)[:, 0]
    ends = jnp.concatenate([starts[1:], jnp.array([flat.shape[0]])])
    return values, ends - starts


def hardshrink(self, lambd=0.5):
    """torch.Tensor.hardshrink: x where |x| > lambd, else 0."""
    return jnp.where(jnp.abs(self) > lambd, self, jnp.zeros((), self.dtype))


def bernoulli(self, p=None, *, generator=None):
    """torch.Tensor.bernoulli: 0/1 draws with probability self (or p)."""
    return functions.bernoulli(self, p)


def multinomial(self, num_samples, replacement=False, *, generator=None):
    """torch.Tensor.multinomial."""
    return functions.multinomial(self, num_samples, replacement)


def detach(self):
    """torch.Tensor.detach on a traced value (inside jit / grad / vmap): the value without its
    gradient (jax.lax.stop_gradient). Eager tensors have their own (eager/tensor.py)."""
    return stop_gradient(self)


def _false(self, *args):
    return False


# properties and queries torch answers per tensor; jitgrad's tensors are dense, strided,
# unquantized, not conjugate- or negative-views, not named or nested
_NEVER = ("is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested", "is_xla",
          "is_xpu", "is_mps", "is_ipu", "is_vulkan", "is_maia", "is_mtia")
_NEVER_CALLED = ("is_conj", "is_neg", "is_inference", "is_pinned", "is_shared",
                 "is_distributed", "is_coalesced")

METHODS = {"split_with_sizes": split_with_sizes, "unsafe_split": shape_methods.split,
           "unsafe_chunk": shape_methods.chunk, "unsafe_split_with_sizes": split_with_sizes,
           "hsplit": lambda self, sections: tuple(jnp.hsplit(self, sections)),
           "vsplit": lambda self, sections: tuple(jnp.vsplit(self, sections)),
           "dsplit": lambda self, sections: tuple(jnp.dsplit(self, sections)),
           "fliplr": shape_methods.fliplr, "flipud": shape_methods.flipud,
           "tile": lambda self, *dims: functions.tile(self, dims[0] if len(dims) == 1 else dims),
           "argwhere": lambda self: jnp.argwhere(self), "sum_to_size": sum_to_size,
           "nonzero_static": nonzero_static, "select_scatter": select_scatter,
           "slice_scatter": slice_scatter, "diagonal_scatter": diagonal_scatter,
           "index_reduce": index_reduce, "unique_consecutive": unique_consecutive,
           "hardshrink": hardshrink, "prelu": lambda self, weight: F.prelu(self, weight),
           "bernoulli": bernoulli, "multinomial": multinomial, "detach": detach,
           "pin_memory": lambda self, device=None: self}   # host memory needs no pinning
METHODS.update({name: property(_false) for name in _NEVER})
METHODS.update({name: _false for name in _NEVER_CALLED})
