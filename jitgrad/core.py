"""The one dispatch point for primitives: `apply(op, inputs, params)`.

Inputs are eager `Tensor`s or `Tracer`s. When a trace is involved, the op is appended to the
innermost trace's graph (values from outer traces and eager tensors are lifted into it: outer
tracers become captured inputs, eager tensors become constants). A *concrete* trace also
evaluates every node as it is recorded; that is how `grad` of an eager call supports Python
control flow on values, as JAX's and PyTorch's eager autograd do. With no trace, the op runs
eagerly on its device and, when an input requires grad, is recorded for `.backward()`.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading

import numpy as np

from .ir import Builder
from .ir.errors import ShapeError
from .ir.reference import evaluate
from .ir.registry import infer_types
from .ir.types import TensorType
from .runtime.device import CPU, META


class ConcretizationError(TypeError):
    """A traced (abstract) value was used where Python needs a concrete one."""


class DeviceMismatchError(RuntimeError):
    """An op got tensors on two different devices."""


class _State(threading.local):
    """Per-thread state; class-level defaults make the reads cheap (no AttributeError)."""
    traces = None
    grad_enabled = True


_state = _State()


def _stack() -> list:
    s = _state.traces
    if s is None:
        s = _state.traces = []
    return s


def grad_enabled() -> bool:
    return _state.grad_enabled


@contextlib.contextmanager
def set_grad_enabled(mode: bool):
    prev = grad_enabled()
    _state.grad_enabled = bool(mode)
    try:
        yield
    finally:
        _state.grad_enabled = prev


def no_grad():
    """`with jg.no_grad():` records nothing for `.backward()` (also usable as a decorator)."""
    return _GradMode(False)


def enable_grad():
    return _GradMode(True)


class _GradMode(contextlib.ContextDecorator):
    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = grad_enabled()
        _state.grad_enabled = self.mode

    def __exit__(self, *exc):
        _state.grad_enabled = self.prev
        return False


# ----------------------------------------------------------------------------- source lines

_PKG_DIRS = tuple(os.path.dirname(os.path.abspath(m)) + os.sep for m in (
    __file__, sys.modules["jitgrad.ir"].__file__, sys.modules["jitgrad.runtime"].__file__))


def user_frame():
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIRS):
        f = f.f_back
    return f


def user_source_info() -> str | None:
    """'file.py:LINE' of the innermost frame outside jitgrad."""
    f = user_frame()
    return f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno}" if f is not None else None


def _with_location(e: Exception, info: str | None) -> Exception:
    if info and "(at " not in str(e):
        return type(e)(f"{e} (at {info})")
    return e


# ----------------------------------------------------------------------------- traces

class Trace:
    """A graph being recorded. `concrete` traces also compute values while recording."""

    def __init__(self, concrete: bool = False, name: str = "main"):
        self.builder = Builder()
        self.builder.graph.name = name
        self.concrete = concrete
        self.captures = []        # [(graph input Value, outer Tracer)] closed-over outer values
        self._lifted = {}         # id(obj) -> (obj, Value): each outer object lifted once
        self.level = 0

    @property
    def graph(self):
        return self.builder.graph

    def new_input(self, type: TensorType, concrete=None, weak=False) -> "Tracer":
        return Tracer(self, self.builder.add_input(type), concrete, weak)

    def lift(self, x):
        if isinstance(x, Tracer) and x._trace is self:
            return x._value
        hit = self._lifted.get(id(x))
        if hit is not None:
            return hit[1]
        if isinstance(x, Tracer):
            if x._trace.level > self.level:
                raise RuntimeError("a value from an inner transformation escaped into an outer one "
                                   "(did a traced value leak out through a global or closure?)")
            v = self.builder.add_input(x._value.type)
            self.captures.append((v, x))
        else:
            if x.device == META:
                raise ValueError("a meta tensor has no data and cannot be captured as a constant")
            v = self.builder.constant(x._data, user_source_info())
        self._lifted[id(x)] = (x, v)
        return v


@contextlib.contextmanager
def new_trace(concrete=False, name="main"):
    t = Trace(concrete, name)
    stack = _stack()
    t.level = len(stack) + 1
    stack.append(t)
    try:
        yield t
    finally:
        stack.pop()


def current_trace() -> Trace | None:
    s = _stack()
    return s[-1] if s else None


def _top_trace(inputs):
    top = None
    for x in inputs:
        if isinstance(x, Tracer) and (top is None or x._trace.level > top.level):
            top = x._trace
    return top


# ----------------------------------------------------------------------------- apply

def apply(op, inputs, params=None, source_info=None):
    """Run or record primitive `op`. Returns one result, or a tuple for multi-output ops."""
    params = params or {}
    key = signature(inputs, params)        # eager CPU tensors only (jitgrad/eager_fast.py)
    if key is not None:
        outs = _eager_cpu(op, inputs, params, key)
        return outs[0] if len(outs) == 1 else outs
    trace = _top_trace(inputs)
    if trace is None:
        outs = _eager_apply(op, inputs, params)
    else:
        src = source_info or user_source_info()
        vals = [trace.lift(x) for x in inputs]
        out_vals = trace.builder.emit(op, vals, params, src)
        concrete = None
        if trace.concrete and all(isinstance(x, Tracer) and x._concrete is not None
                                  or not isinstance(x, Tracer) for x in inputs):
            arrays = [x._concrete if isinstance(x, Tracer) else x._data for x in inputs]
            concrete = evaluate_any(op, arrays, params, trace.graph.nodes[-1])
        outs = tuple(Tracer(trace, v, None if concrete is None else c)
                     for v, c in zip(out_vals, concrete or [None] * len(out_vals)))
    return outs[0] if len(outs) == 1 else outs


def common_device(op, inputs):
    dev = None
    for x in inputs:
        d = x.device
        if dev is None:
            dev = d
        elif d != dev:
            raise DeviceMismatchError(
                f"{op}: expected all tensors on one device, got {dev} and {d} "
                f"(move one with .to('{dev}'))" + (f" (at {user_source_info()})" if user_source_info() else ""))
    return dev or CPU


def _eager_cpu(op, inputs, params, key):
    """An eager op on CPU tensors of one device: the result types of its signature come from
    the cache (the type rule runs on the first call only), the NumPy reference runs directly."""
    hit = lookup(op, key)
    if hit is None or _BACKENDS["cpu"] is not evaluate:    # first call, or jg.profiler timing
        return _eager_apply(op, inputs, params, key)
    types, fn, differentiable = hit
    arrays = [x._data for x in inputs]
    try:
        arrays = run_reference(fn, op, arrays, params, types) if fn is not None \
            else evaluate(op, arrays, params, types)
    except (IndexError, ValueError) as e:
        raise _with_location(e, user_source_info()) from None
    dev = inputs[0]._device
    outs = (_wrap(arrays[0], dev),) if len(arrays) == 1 else tuple([_wrap(a, dev) for a in arrays])
    if _state.grad_enabled:
        for x in inputs:
            if x.requires_grad:
                (autograd.record_differentiable if differentiable else autograd.record)(
                    op, params, inputs, outs)
                break
    return outs


def apply_fast(op, a, b=None, table=None):
    """`apply(op, [a])` / `apply(op, [a, b])` for eager CPU tensors whose signature the cache
    knows with a plain NumPy reference (no params, one output); None when that is not the case
    (the caller then takes its generic path, which fills the cache). The operators and the
    one-primitive jitgrad.numpy functions call this first: it is their whole eager cost.
    `table`: op's signature table (eager_fast.table(op)), when the caller keeps it."""
    da = a._data
    if type(da) is not _ndarray:
        return None
    dev = a._device
    if dev is not CPU and dev.type != "cpu":
        return None
    if table is None:
        table = op_table(op)
    if b is None:
        hit = table.get((da.shape, da.dtype))
    else:
        db = b._data
        if type(db) is not _ndarray or b._device is not dev and b._device != dev:
            return None
        hit = table.get((da.shape, da.dtype, db.shape, db.dtype))
    if hit is None or hit[1] is None or len(hit[0]) != 1 or _BACKENDS["cpu"] is not evaluate \
            or not CONTEXT_ERRSTATE:
        return None
    (t,) = types = hit[0]
    try:
        res = (quiet_context().run(hit[1], da) if b is None
               else quiet_context().run(hit[1], da, db))
    except (IndexError, ValueError) as e:
        raise _with_location(e, user_source_info()) from None
    if type(res) is not _ndarray or res.dtype is not t.dtype and res.dtype != t.dtype:
        (res,) = cast_results(res, types)
    out = _wrap(res, dev)
    if (a.requires_grad or b is not None and b.requires_grad) and _state.grad_enabled:
        (autograd.record_differentiable if hit[2] else autograd.record)(
            op, {}, (a,) if b is None else (a, b), (out,))
    return out


def _eager_apply(op, inputs, params, key=None):
    from .tensor import Tensor
    dev = common_device(op, inputs)
    try:
        types = infer_types(op, [x._type for x in inputs], params)
    except ShapeError as e:
        raise _with_location(e, user_source_info()) from None
    if key is not None:
        remember(op, key, inputs, types)
    if dev == META:
        outs = tuple(Tensor._meta(t) for t in types)
    else:
        backend = _BACKENDS.get(dev.type)
        if backend is None:
            raise RuntimeError(f"no eager backend for device {dev}")
        try:
            arrays = backend(op, [x._data for x in inputs], params, types)
        except (IndexError, ValueError) as e:
            raise _with_location(e, user_source_info()) from None
        outs = tuple(Tensor._wrap(a, dev) for a in arrays)
    if grad_enabled() and any(x.requires_grad for x in inputs):
        from .autograd import record
        record(op, params, inputs, outs)
    return outs


def evaluate_any(op, arrays, params, node):
    """NumPy evaluation of any op (kernel, cond, scan, ... included) with `node`'s result types."""
    return evaluate(op, arrays, params, [v.type for v in node.outputs])


def _cuda(op, arrays, params, out_types):
    from .cuda import run_eager     # jg.cuda (and numba.cuda behind it) load on first use
    return run_eager(op, arrays, params, out_types)


# device type -> fn(op, arrays, params, out_types) -> arrays
_BACKENDS = {"cpu": evaluate, "cuda": _cuda}
EAGER_BACKENDS = _BACKENDS      # jg.profiler wraps its entries while it records (timed eager ops)


# ----------------------------------------------------------------------------- Tracer

from .array_ops import ArrayOps  # noqa: E402  (needs ConcretizationError above)
from . import autograd  # noqa: E402
from .eager_fast import (CONTEXT_ERRSTATE, cast_results, lookup, quiet_context,  # noqa: E402
                         remember, run_reference, signature, table as op_table)
from .tensor import Tensor as _Tensor  # noqa: E402
_wrap = _Tensor._wrap
_ndarray = np.ndarray


class Tracer(ArrayOps):
    """A value inside a trace: an ir.Value, plus its concrete array in concrete traces."""
    __slots__ = ("_trace", "_value", "_concrete", "_weak")
    __array_priority__ = 1000

    def __init__(self, trace, value, concrete=None, weak=False):
        self._trace, self._value, self._concrete, self._weak = trace, value, concrete, weak

    shape = property(lambda self: self._value.type.shape)
    dtype = property(lambda self: self._value.type.dtype)
    _type = property(lambda self: self._value.type)

    @property
    def device(self):
        return getattr(self._trace, "device", CPU)

    requires_grad = False

    def _concrete_or_raise(self, what: str):
        if self._concrete is not None:
            return self._concrete
        raise ConcretizationError(
            f"{what} needs a concrete value, but this is a traced value of type "
            f"{self._value.type} inside a jitted or transformed function"
            + (f" (at {user_source_info()})" if user_source_info() else "")
            + ". Python control flow cannot depend on traced values: use jg.where / "
              "jnp.where to select elementwise, jg.cond / jg.while_loop / jg.fori_loop for "
              "control flow, or mark the argument static with static_argnums.")

    def __bool__(self):
        return bool(self._concrete_or_raise("bool() (e.g. `if x > 0:`)"))

    def __float__(self):
        return float(self._concrete_or_raise("float()"))

    def __int__(self):
        return int(self._concrete_or_raise("int()"))

    def __index__(self):
        return int(self._concrete_or_raise("using a value as a Python index"))

    def item(self):
        return self._concrete_or_raise(".item()").item()

    def tolist(self):
        return self._concrete_or_raise(".tolist()").tolist()

    def numpy(self):
        return np.array(self._concrete_or_raise(".numpy()"))

    def __array__(self, dtype=None, copy=None):
        a = self._concrete_or_raise("converting to a NumPy array")
        return a if dtype is None else a.astype(dtype)

    def __repr__(self):
        if self._concrete is not None:
            return f"Traced<{self._value.type}>({np.array2string(self._concrete)})"
        return f"Traced<{self._value.type}>"
