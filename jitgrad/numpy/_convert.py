"""Turning NumPy-style arguments (tensors, tracers, arrays, lists, Python scalars) into operands
of one dtype and device, and creating tensors inside or outside a trace."""
from __future__ import annotations

import numbers

import numpy as np

from ..core import Tracer, apply, current_trace
from ..dtypes import canonical_dtype, float32, result_type, scalar_dtype
from ..ir import Op
from ..runtime.device import CPU
from ..tensor import Tensor, tensor

Array = (Tensor, Tracer)


def is_array(x) -> bool:
    return isinstance(x, Array)


def is_scalar(x) -> bool:
    return isinstance(x, (numbers.Number, np.bool_)) and not isinstance(x, np.ndarray)


def asarray(x, dtype=None, device=None):
    """Tensor/Tracer pass through (cast if dtype given); everything else becomes an eager tensor."""
    if is_array(x):
        return x if dtype is None or canonical_dtype(dtype) == x.dtype else astype(x, dtype)
    if isinstance(x, (list, tuple)) and any(is_array(e) for e in x):
        from .shape import stack
        return asarray(stack([asarray(e) for e in x]), dtype)
    return tensor(x, dtype=dtype, device=device or "cpu")


def astype(x, dtype):
    dtype = canonical_dtype(dtype)
    x = asarray(x)
    return x if x.dtype == dtype else apply(Op.convert, [x], {"dtype": dtype})


def _entry(x):
    if is_array(x):
        return x.dtype, getattr(x, "_weak", False)
    if is_scalar(x):
        return scalar_dtype(x), not isinstance(x, np.generic)
    return canonical_dtype(np.asarray(x).dtype) if not isinstance(x, (list, tuple)) else \
        asarray(x).dtype, False


def operands(*xs, dtype=None, float_only=False, min_dtype=None):
    """Promote `xs` to one dtype (NumPy rules, weak Python scalars) on one device."""
    xs = [x if is_array(x) or is_scalar(x) else asarray(x) for x in xs]
    dt = canonical_dtype(dtype) if dtype is not None else result_type(*map(_entry, xs))
    if float_only and dt.kind != "f":
        dt = float32
    dev = next((x.device for x in xs if is_array(x)), CPU)
    return [astype(x, dt) if is_array(x) else scalar(x, dt, dev) for x in xs]


def scalar(value, dtype, device=CPU):
    """A 0-d tensor (eager; lifted to a constant when it meets a tracer)."""
    if device.type == "meta":
        from ..ir.types import TensorType
        return Tensor._meta(TensorType((), dtype))
    t = Tensor._wrap(np.asarray(value, dtype=dtype), CPU)
    return t if device == CPU else t.to(device)


def full_like_shape(shape, value, dtype, device=CPU):
    """A filled array: an eager writable tensor, or inside a trace a broadcast of a scalar
    constant (so constant folding can keep `ones((4096, 4096))` a cheap fill)."""
    shape = tuple(int(d) for d in shape)
    dtype = canonical_dtype(dtype)
    if current_trace() is not None:
        trace = current_trace()
        s = scalar(value, dtype)
        from ..core import Tracer as _T
        v = trace.lift(s)
        t = _T(trace, v, np.asarray(value, dtype) if trace.concrete else None)
        return apply(Op.broadcast_to, [t], {"shape": shape}) if shape else t
    if device.type == "meta":
        from ..ir.types import TensorType
        return Tensor._meta(TensorType(shape, dtype))
    t = Tensor._wrap(np.full(shape, value, dtype=dtype), CPU)
    return t if device == CPU else t.to(device)


def normalize_axis(axis, ndim, what="axis"):
    if not -ndim <= axis < max(ndim, 1):
        raise np.exceptions.AxisError(f"{what} {axis} is out of bounds for an array of "
                                      f"dimension {ndim}")
    return axis % ndim if ndim else 0


def normalize_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (int(axis),)
    axes = tuple(normalize_axis(int(a), ndim) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in {axis}")
    return axes
