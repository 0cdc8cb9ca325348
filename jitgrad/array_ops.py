"""Operators and methods shared by eager Tensors and Tracers; all delegate to jitgrad.numpy."""
from __future__ import annotations

from .errors import api_boundary


def _np():
    from . import numpy as jnp
    return jnp


def _binop(name, reflected=False):
    @api_boundary
    def method(self, other):
        fn = getattr(_np(), name)
        return fn(other, self) if reflected else fn(self, other)
    method.__name__ = name
    return method


def _method(name):
    @api_boundary
    def method(self, *args, **kwargs):
        fn = getattr(_np(), name, None)
        if fn is None:
            from .nn import functional
            fn = getattr(functional, name)
        return fn(self, *args, **kwargs)
    method.__name__ = name
    return method


class ArrayOps:
    __slots__ = ()
    __hash__ = object.__hash__

    ndim = property(lambda self: len(self.shape))

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    __add__, __radd__ = _binop("add"), _binop("add", True)
    __sub__, __rsub__ = _binop("subtract"), _binop("subtract", True)
    __mul__, __rmul__ = _binop("multiply"), _binop("multiply", True)
    __truediv__, __rtruediv__ = _binop("true_divide"), _binop("true_divide", True)
    __floordiv__, __rfloordiv__ = _binop("floor_divide"), _binop("floor_divide", True)
    __mod__, __rmod__ = _binop("mod"), _binop("mod", True)
    __pow__, __rpow__ = _binop("power"), _binop("power", True)
    __matmul__, __rmatmul__ = _binop("matmul"), _binop("matmul", True)
    __and__, __rand__ = _binop("bitwise_and"), _binop("bitwise_and", True)
    __or__, __ror__ = _binop("bitwise_or"), _binop("bitwise_or", True)
    __xor__, __rxor__ = _binop("bitwise_xor"), _binop("bitwise_xor", True)
    __lshift__, __rlshift__ = _binop("left_shift"), _binop("left_shift", True)
    __rshift__, __rrshift__ = _binop("right_shift"), _binop("right_shift", True)
    __eq__, __ne__ = _binop("equal"), _binop("not_equal")
    __lt__, __le__ = _binop("less"), _binop("less_equal")
    __gt__, __ge__ = _binop("greater"), _binop("greater_equal")
    __neg__ = _method("negative")
    __abs__ = _method("abs")
    __invert__ = _method("invert")

    def __pos__(self):
        return self

    def __complex__(self):
        return complex(self.item())

    def __array_namespace__(self, *, api_version=None):
        """The Array API namespace of this array: jitgrad.numpy (standard 2023.12)."""
        jnp = _np()
        if api_version not in (None, "2021.12", "2022.12", "2023.12"):
            raise ValueError(f"__array_namespace__: jitgrad.numpy implements the Array API "
                             f"standard 2023.12 (and earlier), not {api_version!r}")
        return jnp

    def to_device(self, device, /, *, stream=None):
        """The Array API's x.to_device(device): this array on `device` (itself if already there)."""
        if stream is not None:
            raise ValueError("to_device: jitgrad has no streams to choose from; pass stream=None")
        from .runtime.device import device as as_device
        dev = as_device(device)
        if dev == self.device:
            return self
        if not hasattr(self, "to"):
            raise ValueError(f"to_device: a traced value stays on {self.device} inside the "
                             f"function; move the argument to {dev} before calling it")
        return self.to(dev)

    def __getitem__(self, key):
        from .numpy.indexing import getitem
        return getitem(self, key)

    def __setitem__(self, key, value):
        from .numpy.indexing import setitem
        setitem(self, key, value)     # traced values are immutable: the error points to .at[]

    @property
    def T(self):
        return _np().transpose(self)

    @property
    def mT(self):
        return _np().swapaxes(self, -1, -2)

    real = property(lambda self: _np().real(self))
    imag = property(lambda self: _np().imag(self))

    @property
    def at(self):
        from .numpy.indexing import AtIndexer
        return AtIndexer(self)

    def reshape(self, *shape, **kw):
        shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return _np().reshape(self, shape, **kw)

    view = reshape

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes
        return _np().transpose(self, axes or None)

    def permute(self, *axes):
        return self.transpose(*axes)

    def astype(self, dtype):
        return _np().astype(self, dtype)

    def flatten(self):
        return _np().ravel(self)

    def unsqueeze(self, dim):
        return _np().expand_dims(self, dim)

    def float(self):
        return self.astype("float32")

    def double(self):
        return self.astype("float64")

    def long(self):
        return self.astype("int64")

    def int(self):
        return self.astype("int32")

    def clone(self):
        return _np().copy(self)

    def dim(self):
        return self.ndim

    def size_(self):
        return self.shape


for _name in ("sum", "mean", "max", "min", "prod", "var", "std", "argmax", "argmin", "cumsum",
              "any", "all", "swapaxes", "squeeze", "ravel", "clip", "round", "exp", "log", "tanh",
              "sqrt", "abs", "square", "sin", "cos", "sigmoid", "relu", "softmax",
              "log_softmax", "logsumexp", "sign", "floor", "ceil", "dot", "sort", "argsort",
              "repeat", "take", "nonzero", "diagonal", "trace", "log1p", "expm1", "rsqrt",
              "reciprocal", "isnan", "isfinite", "matmul", "maximum", "minimum", "pow",
              "neg", "flip", "expand", "copy", "cumprod", "ptp", "signbit", "conj", "conjugate"):
    setattr(ArrayOps, _name, _method(_name))
