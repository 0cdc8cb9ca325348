"""The operators and methods jitgrad.numpy installs on eager Tensors and traced values
(`array_base.register_methods`; jitgrad/numpy/__init__.py calls `install()` once).

Method names that are one primitive come from the primitives' records (`method`); the rest are
the methods listed here, each delegating to the jitgrad.numpy function of its name. Methods are
PyTorch's (the naming rule): jitgrad/torch_api installs, after these, every method whose
PyTorch meaning needs more than the jitgrad.numpy function (x.max(dim), x.transpose(0, 1),
x.size(), x.std(), ...); nn.functional installs relu, sigmoid, ..."""
from __future__ import annotations

import sys

from ..eager.array_base import register_methods
from ..errors import api_boundary
import numpy as np

from ..eager.dispatch import apply, fast_binary
from ..eager.zero_dim_promotion import torch_operands
from ..ir import Op
from ..ir.registry import RECORDS
from ..eager.tensor import Tensor
from . import indexing
from ._convert import FAST_FLOAT, same_dtype_tensors

# operator -> jitgrad.numpy function (the reflected operator swaps the operands)
_BINARY_OPERATORS = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
                     "floordiv": "floor_divide", "mod": "mod", "pow": "power", "matmul": "matmul",
                     "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
                     "lshift": "left_shift", "rshift": "right_shift"}
_COMPARISONS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                "gt": "greater", "ge": "greater_equal"}
_UNARY_OPERATORS = {"neg": "negative", "abs": "abs", "invert": "invert"}
_INPLACE_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//",
                    "mod": "%", "pow": "**", "and": "&", "or": "|", "xor": "^", "lshift": "<<",
                    "rshift": ">>"}
# x.name(...) == jnp.name(x, ...), for the methods that are not one primitive and mean the same
# in PyTorch (or PyTorch lacks); the names whose meanings differ are jitgrad/torch_api's
_METHODS = ("ravel", "round", "trace", "expand", "copy", "ptp")
_ARRAY_API_VERSIONS = (None, "2021.12", "2022.12", "2023.12")


def _jnp():
    return sys.modules["jitgrad.numpy"]      # installed from its __init__, so already imported


# operators that are one primitive on two eager tensors of one float or complex dtype (no
# promotion, no bool rules; matmul of matrices, not vectors): the fast path skips the
# jitgrad.numpy layers in between and calls dispatch.apply directly
_ndarray = np.ndarray
_wrap = Tensor._wrap
_INT64 = 2 ** 63
_FAST_BINARY = {"add": Op.add, "subtract": Op.sub, "multiply": Op.mul, "true_divide": Op.div,
                "power": Op.pow, "matmul": Op.matmul}


def _fast_operands(op, a, b) -> bool:
    return (isinstance(a, Tensor) and isinstance(b, Tensor)
            and same_dtype_tensors((a, b), FAST_FLOAT)
            and (op is not Op.matmul or a._data.ndim >= 2 and b._data.ndim >= 2))


def _binop(name, reflected=False):
    fast = _FAST_BINARY.get(name)

    @api_boundary
    def method(self, other):
        if fast is not None and _fast_operands(fast, self, other):
            return apply(fast, [other, self] if reflected else [self, other])
        fn = getattr(_jnp(), name)
        self, other = torch_operands(name, self, other)     # torch's rule for 0-d tensors
        return fn(other, self) if reflected else fn(self, other)
    method.__name__ = name
    if fast is None:
        return method
    # a signature seen before runs without any layer in between (dispatch.fast_binary): two
    # tensors of one float/complex dtype, or one and a Python float or int (weak: the tensor's
    # dtype, as the general path's promotion gives); anything else (first call, promotion,
    # traced values, errors) goes the general way
    operator = fast_binary(fast, method.__wrapped__, FAST_FLOAT, reflected)
    operator.__name__ = name
    return operator


def _method(name):
    @api_boundary
    def method(self, *args, **kwargs):
        return getattr(_jnp(), name)(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"x.{name}(...) is jitgrad.numpy.{name}(x, ...).\n\n" + (
        getattr(_jnp(), name).__doc__ or "")
    return method


def _method_or_flat(name):
    """x.name(...): jitgrad.numpy's function itself where it is one flat frame (the one-array
    functions, ufunc_rules._flat_unary: x.exp(), -x, abs(x)), else `_method(name)`."""
    fn = getattr(_jnp(), name)
    return fn if getattr(fn, "__eager_flat__", False) else _method(name)


def _inplace(name, what):
    """An in-place operator of an eager Tensor: jnp.<name>(self, other) into its storage."""
    def method(self, other):
        return self._assign(getattr(_jnp(), name)(*torch_operands(name, self, other)), what)
    method.__name__ = f"__i{name}__"
    return method


def _reshape(self, *shape, **kw):
    shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
    return _jnp().reshape(self, shape, **kw)


def _array_namespace(self, *, api_version=None):
    """The Array API namespace of this array: jitgrad.numpy (standard 2023.12)."""
    if api_version not in _ARRAY_API_VERSIONS:
        raise ValueError(f"__array_namespace__: jitgrad.numpy implements the Array API "
                         f"standard 2023.12 (and earlier), not {api_version!r}")
    return _jnp()


def _setitem(self, key, value):
    indexing.setitem(self, key, value)     # traced values are immutable: the error points to .at[]


def methods() -> dict:
    table = {}
    for op, name in _BINARY_OPERATORS.items():
        table[f"__{op}__"], table[f"__r{op}__"] = _binop(name), _binop(name, True)
    table.update({f"__{op}__": _binop(name) for op, name in _COMPARISONS.items()})
    table.update({f"__{op}__": _method_or_flat(name) for op, name in _UNARY_OPERATORS.items()})
    table.update({name: _method(name) for name in _METHODS})
    table.update({m: _method_or_flat(r.numpy[0]) for r in RECORDS.values() if r.numpy
                  for m in r.method})
    table.update({
        "reshape": _reshape,
        "clone": lambda self: _jnp().copy(self),
        "T": property(lambda self: _jnp().transpose(self)),
        "mT": property(lambda self: _jnp().swapaxes(self, -1, -2)),
        "real": property(lambda self: _jnp().real(self)),
        "imag": property(lambda self: _jnp().imag(self)),
        "at": property(indexing.AtIndexer),
        "__getitem__": indexing.getitem, "__setitem__": _setitem,
        "__array_namespace__": _array_namespace,
    })
    return table


def tensor_methods() -> dict:
    """What only eager Tensors have: the in-place operators (x += y) and item assignment."""
    table = {f"__i{op}__": _inplace(_BINARY_OPERATORS[op], f"{sym}=")
             for op, sym in _INPLACE_SYMBOLS.items()}
    table["__setitem__"] = _setitem
    return table


def install() -> None:
    register_methods(methods())
    register_methods(tensor_methods(), Tensor)
