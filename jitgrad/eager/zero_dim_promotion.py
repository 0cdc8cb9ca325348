"""PyTorch's rule for 0-d tensors (torch.result_type; the dtype rule is dtypes.torch_result_type)
in jg.Tensor's operators and the torch-named functions of two tensors: a 0-d tensor meeting
dimensioned tensors ranks below them unless its kind (bool < int < float < complex) is higher,
so `float32 [3] + float64 []` is float32 and `int8 [3] + int64 []` int8.

Those callers pass their operands through `torch_operands` before the jitgrad.numpy function
(JAX's lattice, where a 0-d array is an array like any other) runs: a strong 0-d operand is
cast to torch's result dtype, so eager, jit, the interpreter and grad (through the cast) give
one dtype, and vmap, which traces one example, applies the rule per example."""
from __future__ import annotations

import numbers

import numpy as np

from ..dtypes import default_float, scalar_dtype, torch_result_type
from ..ir import Op
from ..ir.types import kind_of
from ..trace.tracer import Tracer
from .dispatch import apply
from .tensor import Tensor

_ARRAYS = (Tensor, Tracer)

# jitgrad.numpy functions of two operands that the rule applies to (torch's elementwise
# functions and operators of the same meaning)
ELEMENTWISE_PAIRS = frozenset("""
add subtract multiply true_divide floor_divide remainder mod power equal not_equal less
less_equal greater greater_equal maximum minimum fmax fmin arctan2 hypot copysign logaddexp
logaddexp2 nextafter bitwise_and bitwise_or bitwise_xor left_shift right_shift logical_and
logical_or logical_xor heaviside
""".split())

# those computing int and bool operands in the default float: torch casts a 0-d operand straight
# to that float, so int8 [3] / 300 [] divides by 300, not by 300 wrapped to int8 (44)
_FLOAT_OF_INTS = frozenset({"true_divide", "arctan2", "hypot", "copysign",
                            "logaddexp", "logaddexp2", "nextafter", "xlogy", "gammainc",
                            "gammaincc"})


def _strong(x) -> bool:
    return isinstance(x, _ARRAYS) and not getattr(x, "_weak", False)


def _entry(x):
    """(dtype, weak, zero_dim) of an operand; None for one that is neither an array nor a
    number (a list, an n-d NumPy array: JAX's lattice then, as without the rule)."""
    if isinstance(x, _ARRAYS):
        return x.dtype, getattr(x, "_weak", False), not x.shape
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if isinstance(x, (numbers.Number, np.bool_)):
        return scalar_dtype(x), True, True
    return None


def torch_operands(name, *xs):
    """`xs` for jitgrad.numpy's function `name`, with each strong 0-d tensor among dimensioned
    ones cast to torch's result dtype (the default float instead of an int or bool one for
    functions that compute ints in floats); `xs` as given where the rule changes nothing."""
    if len(xs) == 2 and not (isinstance(xs[0], _ARRAYS) and isinstance(xs[1], _ARRAYS)
                             and xs[0].dtype != xs[1].dtype):
        return xs       # an operator's common case: one dtype, or an array and a scalar
    strong = [x for x in xs if _strong(x)]
    if len(strong) < 2 or all(x.dtype == strong[0].dtype for x in strong):
        return xs
    zero_dim = [not x.shape for x in strong]
    if all(zero_dim) or not any(zero_dim):
        return xs
    entries = [_entry(x) for x in xs]
    if None in entries:
        return xs
    dt = torch_result_type(*entries)
    if name in _FLOAT_OF_INTS and kind_of(dt) in "biu":
        dt = default_float()
    return tuple(apply(Op.convert, [x], {"dtype": dt})
                 if _strong(x) and not x.shape and x.dtype != dt else x for x in xs)


def result_type(tensor, other):
    """torch.result_type(tensor, other): the dtype an operator of the two gives (tensors or
    Python numbers; a 0-d tensor ranks below dimensioned ones, see dtypes.torch_result_type)."""
    entries = [_entry(x) for x in (tensor, other)]
    for x, e in zip((tensor, other), entries):
        if e is None:
            raise TypeError(f"result_type: expected a tensor or a number, got "
                            f"{type(x).__name__}")
    return torch_result_type(*entries)
