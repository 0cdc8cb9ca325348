"""Turning NumPy-style arguments (tensors, tracers, arrays, lists, Python scalars) into operands
of one dtype and device, and creating tensors inside or outside a trace."""
from __future__ import annotations

import numbers

import numpy as np

from ..trace.tracer import Tracer
from ..eager.dispatch import apply
from ..trace.trace_stack import current_trace
from ..trace.source_info import user_source_info
from ..dtypes import canonical_dtype, default_float, result_type, scalar_dtype
from ..ir import Op
from ..ir.types import TensorType, kind_of
from ..runtime.device import CPU
from ..eager.tensor import Tensor, tensor

Array = (Tensor, Tracer)


def is_array(x) -> bool:
    return isinstance(x, Array)


def is_scalar(x) -> bool:
    return isinstance(x, (numbers.Number, np.bool_)) and not isinstance(x, np.ndarray)


def asarray(x, dtype=None, device=None):
    """Tensor/Tracer pass through (cast if dtype given); everything else becomes an eager tensor."""
    if is_array(x):
        return x if dtype is None or canonical_dtype(dtype) == x.dtype else astype(x, dtype)
    if isinstance(x, (list, tuple)) and holds_array(x):
        return stacked(x, dtype)
    return tensor(x, dtype=dtype, device=device or "cpu")


def holds_array(x) -> bool:
    """Whether a (nested) list/tuple holds a tensor or a traced value anywhere."""
    return is_array(x) or isinstance(x, (list, tuple)) and any(holds_array(e) for e in x)


def _nested_leaves(x):
    if isinstance(x, (list, tuple)):
        for e in x:
            yield from _nested_leaves(e)
    else:
        yield x


def stacked(x, dtype=None):
    """A nested list/tuple holding tensors or traced values as one array, stacked level by level
    as JAX does, so derivatives flow to every element (NumPy would turn them into constants).
    The dtype is the promotion of the leaves (Python scalars weak)."""
    leaves = list(_nested_leaves(x))
    dt = canonical_dtype(dtype) if dtype is not None else \
        result_type(*(dtype_entry(v, numpy_weak=True) for v in leaves))
    dev = device_of(*leaves)

    def build(e):
        if isinstance(e, (list, tuple)):
            return _stack_rows([build(v) for v in e])
        return astype(e, dt) if is_array(e) else host_array(e, dev, dt)
    return build(x)


def _stack_rows(xs):
    """Arrays of one shape and dtype stacked on a new leading axis, with the reshape and
    concatenate primitives (what jnp.stack(xs) gives them; shape.py sits above this module)."""
    if not xs:
        raise ValueError("need at least one array to stack")
    shapes = {x.shape for x in xs}
    if len(shapes) != 1:
        raise ValueError(f"all input arrays must have the same shape, got {sorted(shapes)}")
    rows = [apply(Op.reshape, [x], {"shape": (1,) + tuple(x.shape)}) for x in xs]
    return rows[0] if len(rows) == 1 else apply(Op.concatenate, rows, {"axis": 0})


def astype(x, dtype):
    dtype = canonical_dtype(dtype)
    x = asarray(x)
    return x if x.dtype == dtype else apply(Op.convert, [x], {"dtype": dtype})


def dtype_entry(x, numpy_weak=False):
    """(dtype, weak) of an operand for result_type. Python scalars are weak; NumPy scalars
    (np.generic, 0-d np.ndarray) are weak too when `numpy_weak` (they meet a jitgrad array:
    `x_f32 * np.float64(0.5)` stays float32, as PyTorch), else strong (NumPy's rule)."""
    if is_array(x):
        return x.dtype, getattr(x, "_weak", False)
    if isinstance(x, np.ndarray) and x.ndim == 0 and numpy_weak:
        x = x[()]
    if is_scalar(x):
        return scalar_dtype(x), numpy_weak or not isinstance(x, np.generic)
    return canonical_dtype(np.asarray(x).dtype) if not isinstance(x, (list, tuple)) else \
        asarray(x).dtype, False


def numpy_scalar(x) -> bool:
    """A NumPy scalar: np.generic or a 0-d np.ndarray."""
    return isinstance(x, np.generic) or isinstance(x, np.ndarray) and x.ndim == 0


def device_of(*xs):
    """Where host data joining `xs` goes: the first tensor's device, or CPU when there is none
    or a traced value is among them (host data then becomes a graph constant)."""
    if any(isinstance(x, Tracer) for x in xs):
        return CPU
    return next((x.device for x in xs if isinstance(x, Tensor)), CPU)


def host_array(a, device, dtype=None):
    """NumPy data (an array, list or scalar) as a tensor on `device`: host data passed to an op
    goes where the op's tensors are, as in JAX; only two tensors on two devices are an error."""
    a = np.asarray(a)
    dtype = canonical_dtype(dtype if dtype is not None else a.dtype)
    if device.type == "meta":
        return Tensor._meta(TensorType(a.shape, dtype))
    t = Tensor._wrap(a if a.dtype == dtype else a.astype(dtype), CPU)
    return t if device == CPU else t.to(device)


def operands(*xs, dtype=None, float_only=False):
    """Promote `xs` to one dtype (NumPy rules, weak Python scalars; NumPy scalars weak next to
    a jitgrad array) on one device."""
    if dtype is None:
        fast = FAST_FLOAT if float_only else FAST_ANY
        if same_dtype_tensors(xs, fast):
            return list(xs)     # nothing to promote or convert: the common case, fast
        found = traced_with_scalars(xs, fast)
        if found is not None:   # traced `0.9 * m`: the scalars become constants of m's dtype
            dt, trace = found
            return [x if type(x) is Tracer else trace.scalar(x, dt) for x in xs]
    dev = device_of(*xs)
    # NumPy scalars next to a jitgrad array are weak, like Python scalars
    weak_np = any(is_array(x) for x in xs)
    xs = [x[()] if weak_np and numpy_scalar(x) else x for x in xs]
    xs = [x if is_array(x) or is_scalar(x) else asarray(x, device=dev) for x in xs]
    dt = canonical_dtype(dtype) if dtype is not None else \
        result_type(*(dtype_entry(x, weak_np) for x in xs))
    if float_only and kind_of(dt) not in "fc":     # kind_of: bfloat16 is a float
        dt = default_float()
    return [astype(x, dt) if is_array(x) else scalar(x, dt, dev) for x in xs]


# dtypes the operands fast path passes through (promotion of one dtype with itself is itself)
FAST_FLOAT = frozenset(np.dtype(d) for d in ("float32", "float64", "complex64", "complex128"))
FAST_ANY = FAST_FLOAT | {np.dtype("int32"), np.dtype("int64")}


def same_dtype_tensors(xs, dtypes) -> bool:
    """Whether `xs` are all eager NumPy-backed Tensors of one dtype, that dtype in `dtypes`."""
    dt = None
    for x in xs:
        if not isinstance(x, Tensor):      # Tensor or nn.Parameter
            return False
        d = x._data
        if type(d) is not np.ndarray:
            return False
        if dt is None:
            dt = d.dtype
            if dt not in dtypes:
                return False
        elif d.dtype != dt:
            return False
    return dt is not None


def traced_with_scalars(xs, dtypes):
    """(dtype, trace) when `xs` are values traced in that one trace, of that one dtype (none
    weak; the dtype in `dtypes`), and Python floats or ints that promotion leaves it to (floats
    only beside a float dtype), else None: what operands would find, without its general
    rules."""
    dt, trace, floats = None, None, False
    for x in xs:
        kind = type(x)
        if kind is Tracer:
            if x._weak or (dt is not None and (x.dtype != dt or x._trace is not trace)):
                return None
            dt, trace = x.dtype, x._trace
        elif kind is float:
            floats = True
        elif kind is not int:
            return None
    if dt is None or dt not in dtypes or (floats and dt.kind not in "fc"):
        return None
    return dt, trace


def scalar(value, dtype, device=CPU):
    """A 0-d tensor (eager; lifted to a constant when it meets a tracer)."""
    return host_array(np.asarray(value, dtype=dtype), device)


def full_like_shape(shape, value, dtype, device=CPU):
    """A filled array: an eager writable tensor, or inside a trace a broadcast of a scalar
    constant (so constant folding can keep `ones((4096, 4096))` a cheap fill)."""
    shape = shape_tuple(shape)
    dtype = canonical_dtype(dtype)
    if current_trace() is not None:
        trace = current_trace()
        s = scalar(value, dtype)
        v = trace.lift(s)
        t = Tracer(trace, v, np.asarray(value, dtype) if trace.concrete else None)
        return apply(Op.broadcast_to, [t], {"shape": shape}) if shape else t
    if device.type == "meta":
        return Tensor._meta(TensorType(shape, dtype))
    t = Tensor._wrap(np.full(shape, value, dtype=dtype), CPU)
    return t if device == CPU else t.to(device)


def as_int(v, what):
    """v as a Python int: ints and NumPy integers only (not bool, float or str), as NumPy."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, np.integer)):
        where = user_source_info()
        raise TypeError(f"{what} must be an integer, got {type(v).__name__} {v!r}"
                        + (f" (at {where})" if where else ""))
    return int(v)


def shape_tuple(shape, what="shape"):
    """A shape (an int or a sequence of ints) as a tuple of ints; floats are an error as in
    NumPy (jg.zeros((2.5, 3)) is not (2, 3))."""
    if isinstance(shape, (numbers.Integral, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    return tuple(as_int(d, f"each {what} entry") if not isinstance(d, (bool, np.bool_)) else int(d)
                 for d in shape)


def normalize_axis(axis, ndim, what="axis"):
    axis = as_int(axis, what)
    if not -ndim <= axis < max(ndim, 1):
        where = user_source_info()
        raise np.exceptions.AxisError(f"{what} {axis} is out of bounds for an array of "
                                      f"dimension {ndim}" + (f" (at {where})" if where else ""))
    return axis % ndim if ndim else 0


def normalize_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    axes = tuple(normalize_axis(a, ndim) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in {axis}")
    return axes
