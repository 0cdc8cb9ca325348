"""PyTorch's shape methods: transpose(d0, d1) swaps two dims (NumPy's permutation when given a
tuple or a full permutation of other than 2 dims: for 2-d, two ints are torch's swap, the same
thing), permute, t, repeat (torch's tiling; NumPy's repeat with axis=), view, expand, narrow,
unfold, flatten(start_dim, end_dim), unflatten, squeeze(dim), chunk, split, tensor_split,
unbind, movedim, flip(dims), roll(shifts, dims), diagonal(offset, dim1, dim2), ..."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..dtypes import canonical_dtype
from ..eager.tensor import Tensor
from ..eager.own_storage import own_storage, unshared
from ..numpy._convert import is_array
from .spelling import UNSET, varargs_shape


def transpose(self, *axes, dim0=None, dim1=None):
    """torch.Tensor.transpose(dim0, dim1) swaps two dims; x.transpose(), x.transpose(perm) and
    x.transpose(*perm) with a full permutation of an n != 2 dims array are NumPy's."""
    axes += tuple(d for d in (dim0, dim1) if d is not None)
    if len(axes) == 2 and all(isinstance(a, int) for a in axes):
        return jnp.swapaxes(self, *axes)
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    if axes and len(axes) != self.ndim:
        raise TypeError(f"x.transpose{axes}: expected two dims to swap (torch's "
                        f"x.transpose(dim0, dim1)) or a permutation of all {self.ndim} dims "
                        f"(NumPy's), got {len(axes)} dims")
    return jnp.transpose(self, axes or None)


def permute(self, *dims_, dims=None):
    """torch.Tensor.permute(*dims) (or one tuple, or dims=)."""
    return jnp.transpose(self, varargs_shape("permute", dims_ if dims is None else (dims,)))


def t(self):
    """torch.Tensor.t: the transpose of a matrix; 0-d and 1-d tensors unchanged."""
    if self.ndim > 2:
        raise ValueError(f"t() expects a tensor with <= 2 dimensions, but self is "
                         f"{self.ndim}-d; use transpose(dim0, dim1) or mT")
    return jnp.transpose(self)


def repeat(self, *sizes, axis=UNSET, total_repeat_length=None):
    """torch.Tensor.repeat(*sizes): the tensor tiled sizes[i] times along dim i (new leading dims
    when len(sizes) > ndim). x.repeat(repeats, axis=...) is NumPy's element repeat."""
    if axis is not UNSET:
        if len(sizes) != 1:
            raise TypeError("x.repeat(repeats, axis=...) (NumPy's) takes one repeats argument")
        return jnp.repeat(self, sizes[0], axis=axis)
    sizes = varargs_shape("repeat", sizes)
    if len(sizes) < self.ndim:
        raise ValueError(f"repeat{sizes}: the number of repeat dims ({len(sizes)}) can not be "
                         f"smaller than the tensor's number of dims ({self.ndim}); for NumPy's "
                         f"element repeat use x.repeat(n, axis=...) or x.repeat_interleave(n)")
    return jnp.tile(self, sizes)


def repeat_interleave(self, repeats, dim=None, *, output_size=None):
    """torch.Tensor.repeat_interleave: each element repeated (flattened when dim is None)."""
    return jnp.repeat(self, repeats, axis=dim)


def view(self, *shape):
    """torch.Tensor.view(*shape): the same elements in a new shape (-1 inferred);
    x.view(dtype): an eager CPU tensor's storage read as another dtype (shared, as torch's)."""
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)) \
            and not hasattr(shape[0], "__index__"):
        return _bitcast(self, canonical_dtype(shape[0]))
    return jnp.reshape(self, varargs_shape("view", shape))


def _bitcast(self, dtype):
    data = getattr(self, "_data", None)
    if not isinstance(data, np.ndarray):
        raise TypeError(f"x.view({dtype}): only an eager CPU tensor's storage can be read as "
                        f"another dtype (this is a traced value or has no host storage); "
                        f"for a conversion use x.to({dtype})")
    if self.ndim == 0 and dtype.itemsize != data.itemsize or self.ndim and \
            (data.shape[-1] * data.itemsize) % dtype.itemsize:
        raise ValueError(f"x.view({dtype}): the last dim's {data.shape[-1:]} x "
                         f"{data.itemsize} bytes do not divide into {dtype.itemsize}-byte "
                         f"elements")
    return Tensor._wrap(data.view(dtype), self.device, self._version)


def flatten(self, start_dim=0, end_dim=-1):
    """torch.Tensor.flatten(start_dim=0, end_dim=-1)."""
    if self.ndim == 0:
        return jnp.reshape(self, (1,))
    s, e = start_dim % self.ndim, end_dim % self.ndim
    return jnp.reshape(self, self.shape[:s] + (-1,) + self.shape[e + 1:])


def unflatten(self, dim, sizes):
    """torch.Tensor.unflatten(dim, sizes): dim split into `sizes` (one may be -1)."""
    d = dim % self.ndim
    return jnp.reshape(self, self.shape[:d] + tuple(sizes) + self.shape[d + 1:])


def squeeze(self, dim=None, *, axis=UNSET):
    """torch.Tensor.squeeze(dim=None): dims of length 1 dropped; a named dim that is not 1 is
    kept (torch), where NumPy's axis= raises."""
    if axis is not UNSET:
        return jnp.squeeze(self, axis)
    if dim is None:
        return jnp.squeeze(self)
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    ones = tuple(d for d in dims if self.ndim and self.shape[d] == 1)
    return jnp.squeeze(self, ones) if ones else self


def unsqueeze(self, dim):
    """torch.Tensor.unsqueeze(dim): a new dim of length 1 at dim."""
    return jnp.expand_dims(self, dim)


def narrow(self, dim, start, length):
    """torch.Tensor.narrow(dim, start, length): elements start..start+length-1 along dim."""
    d = dim % self.ndim
    start = int(start) % self.shape[d] if start < 0 else int(start)
    if not 0 <= length <= self.shape[d] - start:
        raise IndexError(f"narrow: start ({start}) + length ({length}) exceeds dimension size "
                         f"({self.shape[d]}) of dim {dim}")
    return self[(slice(None),) * d + (slice(start, start + length),)]


def narrow_copy(self, dim, start, length):
    """torch.Tensor.narrow_copy: narrow's elements in storage of their own."""
    return own_storage(narrow(self, dim, start, length))


def select(self, dim, index):
    """torch.Tensor.select(dim, index): the slice at index along dim, that dim removed."""
    return self[(slice(None),) * (dim % self.ndim) + (index,)]


def unfold(self, dimension, size, step):
    """torch.Tensor.unfold(dimension, size, step): sliding windows along dimension, as a new
    last dim of length size."""
    d = dimension % max(self.ndim, 1)
    n = (self.shape[d] - size) // step + 1 if self.ndim else 1
    starts = jnp.arange(n) * step
    idx = jnp.expand_dims(starts, 1) + jnp.arange(size)              # (n, size)
    windows = jnp.take(self, jnp.ravel(idx), axis=d)
    windows = jnp.reshape(windows, self.shape[:d] + (n, size) + self.shape[d + 1:])
    return jnp.moveaxis(windows, d + 1, -1)


def chunk(self, chunks, dim=0):
    """torch.Tensor.chunk: up to `chunks` pieces of ceil(n / chunks) along dim."""
    n = self.shape[dim]
    step = -(-n // chunks)
    return split(self, step, dim) if n else split(self, 1, dim)


def split(self, split_size_or_sections, dim=0):
    """torch.Tensor.split: pieces of split_size (the last may be shorter), or of the listed
    sizes."""
    n = self.shape[dim]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        sizes = [min(step, n - s) for s in range(0, n, step)] or [0]
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != n:
            raise ValueError(f"split: sizes {sizes} sum to {sum(sizes)}, but dim {dim} has "
                             f"length {n}")
    cuts, total = [], 0
    for s in sizes[:-1]:
        total += s
        cuts.append(total)
    return tuple(jnp.split(self, cuts, axis=dim))


def tensor_split(self, indices_or_sections, dim=0):
    """torch.Tensor.tensor_split: NumPy's array_split along dim."""
    if is_array(indices_or_sections):
        indices_or_sections = indices_or_sections.tolist()
    return tuple(jnp.array_split(self, indices_or_sections, axis=dim))


def unbind(self, dim=0):
    """torch.Tensor.unbind: the slices along dim, that dim removed."""
    return tuple(jnp.unstack(self, axis=dim))


def movedim(self, source, destination):
    """torch.Tensor.movedim / moveaxis."""
    return jnp.moveaxis(self, source, destination)


def flip(self, *dims, axis=UNSET, **kw):
    """torch.Tensor.flip(dims) / torch.flip(input, dims=...) (NumPy's flip(axis=None) reverses
    all dims)."""
    if axis is not UNSET:
        return jnp.flip(self, axis)
    if "dims" in kw:
        if dims:
            raise TypeError("flip() got dims both by position and by keyword")
        dims = (kw.pop("dims"),)
    if kw:
        raise TypeError(f"flip() got an unexpected keyword argument {next(iter(kw))!r}")
    # torch's flip copies (NumPy's is a view), no dims too
    return unshared(jnp.flip(self, varargs_shape("flip", dims) if dims else None), self)


def fliplr(self):
    """torch.fliplr: a copy, reversed along dim 1 (NumPy's is a view)."""
    return unshared(jnp.fliplr(self), self)


def flipud(self):
    """torch.flipud: a copy, reversed along dim 0 (NumPy's is a view)."""
    return unshared(jnp.flipud(self), self)


def roll(self, shifts, dims=None):
    """torch.Tensor.roll(shifts, dims=None)."""
    return jnp.roll(self, shifts, dims)


def rot90(self, k=1, dims=(0, 1)):
    """torch.Tensor.rot90(k, dims): a copy (NumPy's is a view)."""
    return unshared(jnp.rot90(self, k, tuple(dims)), self)


def diagonal(self, offset=0, dim1=0, dim2=1, *, axis1=UNSET, axis2=UNSET):
    """torch.Tensor.diagonal(offset, dim1, dim2) (NumPy's axis1=/axis2= too)."""
    return jnp.diagonal(self, offset, dim1 if axis1 is UNSET else axis1,
                        dim2 if axis2 is UNSET else axis2)


def diag_embed(self, offset=0, dim1=-2, dim2=-1):
    """torch.Tensor.diag_embed: the last dim placed on the diagonal of new (dim1, dim2)."""
    n = self.shape[-1] + abs(offset)
    on_diagonal = jnp.eye(n, k=offset, dtype=bool)
    pos = jnp.clip(jnp.arange(n) - max(-offset, 0), 0, self.shape[-1] - 1)
    vals = jnp.take(self, pos, axis=-1)                    # row i's value, (..., n)
    out = jnp.where(on_diagonal, jnp.expand_dims(vals, -1), jnp.zeros((), self.dtype))
    return jnp.moveaxis(out, (-2, -1), (dim1, dim2))


def tril(self, diagonal=0):
    """torch.Tensor.tril(diagonal=0)."""
    return jnp.tril(self, diagonal)


def triu(self, diagonal=0):
    """torch.Tensor.triu(diagonal=0)."""
    return jnp.triu(self, diagonal)


def diag(self, diagonal=0):
    """torch.Tensor.diag: a 1-d tensor's diagonal matrix, or a matrix's diagonal."""
    return jnp.diag(self, diagonal)


def diagflat(self, offset=0):
    """torch.Tensor.diagflat: the flattened tensor on a diagonal."""
    return jnp.diag(jnp.ravel(self), offset)


METHODS = {"transpose": transpose, "permute": permute, "t": t, "repeat": repeat,
           "repeat_interleave": repeat_interleave, "view": view, "flatten": flatten,
           "unflatten": unflatten, "squeeze": squeeze, "unsqueeze": unsqueeze,
           "narrow": narrow, "narrow_copy": narrow_copy, "select": select,
           "swapdims": jnp.swapaxes, "swapaxes": jnp.swapaxes, "unfold": unfold, "chunk": chunk, "split": split,
           "tensor_split": tensor_split, "unbind": unbind, "movedim": movedim,
           "moveaxis": movedim, "flip": flip, "roll": roll, "rot90": rot90,
           "diagonal": diagonal, "diag_embed": diag_embed, "tril": tril, "triu": triu,
           "diag": diag, "diagflat": diagflat}
