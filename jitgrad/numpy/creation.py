"""Array creation, NumPy-style (jnp.zeros(shape, dtype)) — PyTorch-style variants live in jitgrad."""
from __future__ import annotations

import numpy as np

from ..dtypes import canonical_dtype, default_float, scalar_dtype
from ..runtime.device import device as as_device
from ..trace.tracer import Tracer
from ..eager.tensor import Tensor, as_tensor, tensor
from ..eager.from_dlpack import from_dlpack  # noqa: F401  (the standard's, jnp.from_dlpack)
from ._convert import asarray as _asarray, astype as cast, full_like_shape, is_array, shape_tuple
from . import copies
from .copies import copy  # noqa: F401  (jnp.copy)
from .shape import broadcast_to
from .spaced import arange, geomspace, linspace, logspace  # noqa: F401  (jnp.* names)


def full(shape, fill_value, dtype=None, device=None):
    """numpy.full: return a new array of given shape and type, filled with `fill_value`."""
    if dtype is None:
        dtype = scalar_dtype(fill_value) if np.isscalar(fill_value) else _asarray(fill_value).dtype
    if not np.isscalar(fill_value):
        return copy(broadcast_to(_asarray(fill_value, dtype=dtype), shape_tuple(shape)))  # writable
    return full_like_shape(shape_tuple(shape), fill_value, dtype, as_device(device))


def zeros(shape, dtype=None, device=None):
    """numpy.empty: return a new array of given shape and type, without initializing entries."""
    return full_like_shape(shape_tuple(shape), 0, canonical_dtype(dtype or default_float()),
                           as_device(device))


def ones(shape, dtype=None, device=None):
    """numpy.ones: return a new array of given shape and type, filled with ones."""
    return full_like_shape(shape_tuple(shape), 1, canonical_dtype(dtype or default_float()),
                           as_device(device))


empty = zeros


def _like(fill):
    def fn(a, dtype=None, shape=None, device=None):
        """numpy.empty_like: return a new array with the same shape and type as a given array."""
        """numpy.ones_like: return an array of ones with the same shape and type as a given array."""
        x = _asarray(a)
        return full_like_shape(shape_tuple(shape) if shape is not None else x.shape, fill,
                                canonical_dtype(dtype or x.dtype), device and as_device(device) or x.device)
    return fn


zeros_like = _like(0)
ones_like = _like(1)
empty_like = zeros_like


def full_like(a, fill_value, dtype=None, shape=None, device=None):
    """numpy.full_like: return a full array with the same shape and type as a given array."""
    x = _asarray(a)
    if is_array(fill_value) or isinstance(fill_value, (list, tuple)):   # traced: differentiable
        return full(x.shape if shape is None else shape, fill_value, dtype or x.dtype,
                    device or (x.device if isinstance(x, Tensor) else None))
    return full_like_shape(shape_tuple(shape) if shape is not None else x.shape, fill_value,
                           canonical_dtype(dtype or x.dtype), device and as_device(device) or x.device)


def eye(N, M=None, k=0, dtype=None, device=None):
    """numpy.eye: return a 2-D array with ones on the diagonal and zeros elsewhere."""
    dtype = canonical_dtype(dtype or default_float())
    if as_device(device).type == "meta":        # never build a huge identity just for its shape
        return full_like_shape((N, N if M is None else M), 0, dtype, as_device(device))
    return tensor(np.eye(N, M, k, dtype=dtype), device=device or "cpu")


def identity(n, dtype=None, device=None):
    """numpy.identity: return the identity array."""
    return eye(n, dtype=dtype, device=device)


def tri(N, M=None, k=0, dtype=None):
    """numpy.tri: an array with ones at and below the given diagonal and zeros elsewhere."""
    return tensor(np.tri(N, M, k, dtype=canonical_dtype(dtype or default_float())))


def array(object, dtype=None, copy=True, device=None):  # noqa: A002
    """numpy.array: create an array."""
    return asarray(object, dtype=dtype, device=device, copy=copy or None)


def asarray(a, dtype=None, device=None, copy=None):
    """The standard's asarray: copy=True always copies, copy=False never does (ValueError when
    a copy is needed), copy=None copies only when needed."""
    if isinstance(a, Tracer) or isinstance(a, (list, tuple)):
        out = _asarray(a, dtype=dtype, device=device)
    elif isinstance(a, Tensor):
        out = _asarray(a, dtype=dtype) if device is None else a.to(device, dtype)
    else:
        out = as_tensor(a, dtype=dtype, device=device)
    if copy is False and not _shares(out, a):
        what = f"{type(a).__name__} of {a.dtype}" if hasattr(a, "dtype") else type(a).__name__
        raise ValueError(f"asarray(copy=False): a {what} can't become a {out.dtype} tensor on "
                         f"{out.device} without a copy; pass copy=None to copy when needed")
    if copy and (out is a or _shares(out, a)):
        out = copies.copy(out)
    return out


def _shares(out, a):
    """Whether `out` is `a` or a view of its memory (always False for lists and scalars)."""
    if out is a:
        return True
    data = a._data if isinstance(a, Tensor) else a
    return isinstance(out, Tensor) and isinstance(data, np.ndarray) and out._data is not None \
        and np.may_share_memory(out._data, data)


def astype(x, dtype, *, copy=True, device=None):
    """x as `dtype` (and on `device`): a new array unless copy=False and nothing changes, as
    NumPy's and the standard's astype."""
    out = cast(x, dtype)
    if device is not None:
        out = out.to_device(device)
    return copies.copy(out) if copy and out is x else out
