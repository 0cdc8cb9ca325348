"""PyTorch's metadata and conversion methods: numel, dim, element_size, is_floating_point,
to(dtype | device | other), type(), float()/long()/..., new_zeros/new_ones/new_full/
new_empty/new_tensor, view_as/reshape_as/expand_as/type_as, contiguous, stride."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..dtypes import canonical_dtype
from ..eager.tensor import to_arguments
from ..ir.types import kind_of
from ..runtime.device import device as as_device
from .spelling import varargs_shape

# x.float() -> float32, ... (torch's casting methods)
CASTS = {"float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16",
         "int": "int32", "long": "int64", "short": "int16", "char": "int8", "byte": "uint8",
         "bool": "bool", "cfloat": "complex64", "cdouble": "complex128"}
# dtype -> the name x.type() reports (torch's legacy tensor type names)
TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
              "bfloat16": "BFloat16Tensor", "int32": "IntTensor", "int64": "LongTensor",
              "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
              "bool": "BoolTensor", "complex64": "ComplexFloatTensor",
              "complex128": "ComplexDoubleTensor"}
_BY_TYPE_NAME = {v: k for k, v in TYPE_NAMES.items()}


def _cast(name, dtype):
    def method(self, memory_format=None):
        return jnp.astype(self, dtype)
    method.__name__ = name
    method.__doc__ = f"torch.Tensor.{name}(): this tensor as {dtype}."
    return method


def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False,
       memory_format=None):
    """torch.Tensor.to(dtype), to(device), to(device, dtype), to(other): a traced value can
    change dtype, not device."""
    device, dtype = to_arguments(args, dtype, device)
    out = self if dtype is None else jnp.astype(self, dtype)
    if device is not None and as_device(device) != self.device:
        raise ValueError(f"x.to({device!r}): a traced value stays on {self.device} inside the "
                         f"function; move the argument to {device} before calling it")
    return out


def type(self, dtype=None, non_blocking=False):  # noqa: A001
    """torch.Tensor.type(): torch's type name ('torch.FloatTensor', 'torch.cuda.FloatTensor'),
    so programs comparing it keep working; type(dtype), type('torch.LongTensor') or
    type(jg.LongTensor) casts."""
    if dtype is None:
        where = "torch.cuda." if self.device.type == "cuda" else "torch."
        return where + TYPE_NAMES.get(str(self.dtype), str(self.dtype))
    dtype = getattr(dtype, "dtype_name", dtype)           # a legacy type: jg.FloatTensor
    if isinstance(dtype, str) and dtype.split(".")[-1] in _BY_TYPE_NAME:
        dtype = _BY_TYPE_NAME[dtype.split(".")[-1]]
    return jnp.astype(self, dtype)


def element_size(self) -> int:
    """torch.Tensor.element_size: bytes per element."""
    return canonical_dtype(self.dtype).itemsize


def _row_major(shape):
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


def stride(self, dim=None):
    """torch.Tensor.stride: the strides in elements: an eager CPU tensor's storage's (a view's
    may differ from the row-major ones), else the row-major layout's."""
    data = getattr(self, "_data", None)
    if isinstance(data, np.ndarray):
        strides = tuple(s // data.itemsize for s in data.strides)
    else:
        strides = _row_major(self.shape)
    return strides if dim is None else strides[dim]


def is_contiguous(self, memory_format=None):
    """torch.Tensor.is_contiguous: row-major storage without gaps."""
    return all(s == r for s, r, n in zip(stride(self), _row_major(self.shape), self.shape)
               if n > 1)


def _new(name, fill):
    def method(self, *size_, size=None, dtype=None, device=None, requires_grad=False,
               **_layout):
        size_ = size_ if size is None else (size,)      # torch's x.new_zeros(size=(2, 3))
        out = jnp.full(varargs_shape(name, size_), fill, dtype=dtype or self.dtype)
        return out.requires_grad_(True) if requires_grad else out
    method.__name__ = name
    method.__doc__ = f"torch.Tensor.{name}(*size): a new tensor of {fill}, of x's dtype by default."
    return method


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, **_):
    """torch.Tensor.new_full(size, fill_value)."""
    out = jnp.full(varargs_shape("new_full", (size,)), fill_value, dtype=dtype or self.dtype)
    return out.requires_grad_(True) if requires_grad else out


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, **_):
    """torch.Tensor.new_tensor(data): a copy of data, of x's dtype by default."""
    out = jnp.array(data, dtype=dtype or self.dtype)
    return out.requires_grad_(True) if requires_grad else out


def contiguous(self, memory_format=None):
    """torch.Tensor.contiguous: itself when contiguous, else a row-major copy."""
    return self if is_contiguous(self) else jnp.copy(self)


METHODS = {name: _cast(name, dt) for name, dt in CASTS.items()}
METHODS.update({
    "to": to, "type": type, "type_as": lambda self, other: jnp.astype(self, other.dtype),
    "element_size": element_size, "stride": stride,
    "numel": lambda self: int(self.size), "nelement": lambda self: int(self.size),
    "dim": lambda self: self.ndim, "ndimension": lambda self: self.ndim,
    "itemsize": property(element_size),
    "nbytes": property(lambda self: int(self.size) * element_size(self)),
    "is_floating_point": lambda self: kind_of(self.dtype) == "f",
    "is_complex": lambda self: kind_of(self.dtype) == "c",
    "is_signed": lambda self: kind_of(self.dtype) in "fci",
    "is_contiguous": is_contiguous,
    "contiguous": contiguous,
    "view_as": lambda self, other: jnp.reshape(self, other.shape),
    "reshape_as": lambda self, other: jnp.reshape(self, other.shape),
    "expand_as": lambda self, other: jnp.broadcast_to(self, other.shape),
    "is_same_size": lambda self, other: tuple(self.shape) == tuple(other.shape),
    "new_zeros": _new("new_zeros", 0), "new_ones": _new("new_ones", 1),
    "new_empty": _new("new_empty", 0), "new_full": new_full, "new_tensor": new_tensor,
    "is_cpu": property(lambda self: self.device.type == "cpu"),
    "is_cuda": property(lambda self: self.device.type == "cuda"),
    "is_meta": property(lambda self: self.device.type == "meta"),
    "get_device": lambda self: -1 if self.device.type == "cpu" else (self.device.index or 0),
    "mH": property(lambda self: jnp.conj(jnp.swapaxes(self, -1, -2))),
    "H": property(lambda self: jnp.conj(jnp.transpose(self))),
    "adjoint": lambda self: jnp.conj(jnp.swapaxes(self, -1, -2)),
})
