"""The one dispatch point for primitives: `apply(op, inputs, params)`.

Inputs are eager `Tensor`s or `Tracer`s. When a trace is involved, the op is appended to the
innermost trace's graph (values from outer traces and eager tensors are lifted into it: outer
tracers become captured inputs, eager tensors become constants). A *concrete* trace also
evaluates every node as it is recorded; that is how `grad` of an eager call supports Python
control flow on values, as JAX's and PyTorch's eager autograd do. With no trace, the op runs
eagerly on its device and, when an input requires grad, is recorded for `.backward()`.
"""
from __future__ import annotations

import numpy as np

from ..errors import DeviceMismatchError, trimmed
from ..ir.errors import ShapeError
from ..ir.ops import Op
from ..ir.reference import evaluate
from ..ir.registry import infer_types
from ..runtime.device import CPU, META
from ..trace.source_info import user_source_info, with_location
from ..trace.trace_stack import top_trace
from ..trace.tracer import Tracer
from . import autograd_record
from .cpu_backend import NATIVE, cpu_evaluate
from .fast_path import (
    SHARED, by_dtype, direct_binary, direct_unary, local_state, lookup, quiet_context, remember,
    run_reference, signature
)
from .grad_mode import STATE, grad_enabled
from .tensor import Tensor

_wrap = Tensor._wrap
_ndarray = np.ndarray
_ufunc = np.ufunc
_local = local_state()
_shared_run = SHARED.run


def apply(op, inputs, params=None, source_info=None):
    """Run or record primitive `op`. Returns one result, or a tuple for multi-output ops."""
    params = params or {}
    key = signature(inputs, params)        # eager CPU tensors only (jitgrad/eager/fast_path.py)
    if key is not None:
        outs = _eager_cpu(op, inputs, params, key)
        return outs[0] if len(outs) == 1 else outs
    trace = top_trace(inputs)
    if trace is None:
        outs = eager_apply(op, inputs, params)
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


def _cpu_scalar(x) -> bool:
    return x.device == CPU and not x.shape


def common_device(op, inputs):
    """The device an eager op runs on. As in PyTorch, a 0-d CPU tensor joins tensors of any
    other device (eager_apply moves it there); any other mix raises DeviceMismatchError."""
    dev = None
    for x in inputs:
        d = x.device
        if dev is None or dev == d:
            dev = d
        elif _cpu_scalar(x):
            continue
        elif dev == CPU and all(_cpu_scalar(y) for y in inputs if y.device == CPU):
            dev = d
        else:
            raise DeviceMismatchError(
                f"{op}: expected all tensors on one device, got {dev} and {d} "
                f"(move one with .to('{dev}'))" + (f" (at {user_source_info()})" if user_source_info() else ""))
    return dev or CPU


def _eager_cpu(op, inputs, params, key):
    """An eager op on CPU tensors of one device: the result types of its signature come from
    the cache (the type rule runs on the first call only), the NumPy reference runs directly."""
    hit = lookup(op, key)
    if hit is None or _BACKENDS["cpu"] is not cpu_evaluate:    # first call, or jg.profiler timing
        return eager_apply(op, inputs, params, key)
    types, fn, differentiable = hit
    arrays = [x._data for x in inputs]
    try:
        arrays = run_reference(fn, op, arrays, params, types) if fn is not None \
            else evaluate(op, arrays, params, types)
    except (IndexError, ValueError) as e:
        raise with_location(e, user_source_info()) from None
    dev = inputs[0]._device
    outs = (_wrap(arrays[0], dev),) if len(arrays) == 1 else tuple([_wrap(a, dev) for a in arrays])
    if STATE.grad_enabled:
        for x in inputs:
            if x.requires_grad:
                n = len(inputs)
                if not differentiable or len(outs) != 1 or n > 2:
                    (autograd_record.record_differentiable if differentiable
                     else autograd_record.record)(op, params, inputs, outs)
                elif n == 1:        # the flat records: one new output
                    _record_one(op, x, outs[0], params)
                else:
                    _record_pair(op, inputs[0], inputs[1], outs[0], params)
                break
    return outs


# The direct calls below (apply_fast, fast_unary, fast_binary) are the whole eager cost of an op
# whose signature ran before, so each is one flat Python frame: the lookup in the direct table
# (fast_path.direct_unary / direct_binary: dtype, then shapes), NumPy's call in the quiet
# context (fast_path.SHARED; this thread's own when another thread is inside it), the result
# tensor (Tensor._wrap's fields, set inline: Tensor() is object.__new__ without the wrapper's
# argument tuple) and the autograd record.

def settle(hit, res):
    """A direct call's result `res` as an ndarray of the hit's dtype, for a hit not `exact`
    yet: the first result that needs no conversion from a NumPy ufunc makes it exact (its
    later results are that too: fast_path._DIRECT1)."""
    dt = hit[1]
    if res.__class__ is not _ndarray or res.dtype is not dt and res.dtype != dt:
        return np.asarray(res).astype(dt)
    if isinstance(hit[0], _ufunc):
        hit[3] = True
    return res


def apply_fast(op, a):
    """`apply(op, [a])` for an eager CPU tensor whose signature the cache knows with a plain
    NumPy reference (no params, one output); None when that is not the case (the caller then
    takes its generic path, which fills the cache). What `fast_unary`'s functions do, for a
    caller that has its own general path."""
    da = a._data
    if da.__class__ is not _ndarray:
        return None
    table = direct_unary(op).get(da.dtype)
    hit = None if table is None else table.get(da.shape)
    if hit is None or _BACKENDS["cpu"] is not cpu_evaluate:     # unknown, or jg.profiler on
        return None
    dev = a._device
    if dev is not CPU and dev.type != "cpu":
        return None
    fn, dt, differentiable, exact = hit
    try:
        try:
            res = _shared_run(fn, da)
        except RuntimeError:            # SHARED is entered (another thread): this thread's own
            res = (_local.ctx or quiet_context()).run(fn, da)
    except (IndexError, ValueError) as e:
        raise with_location(e, user_source_info()) from None
    if not exact:
        res = settle(hit, res)
    out = Tensor()              # Tensor._wrap(res, dev), inlined
    out._data = res
    out._device = dev
    out._meta_type = None
    out.requires_grad = False
    out.grad = None
    out._ctx = None
    out._retain = False
    out._version = [0]
    out._base = None
    out._views = None
    if a.requires_grad and STATE.grad_enabled:
        if differentiable:
            _record_one(op, a, out)
        else:
            autograd_record.record(op, _NO_PARAMS, (a,), (out,))
    return out


def fast_unary(op, general, dtypes):
    """The eager function of a one-primitive jitgrad.numpy function of one array (jnp.tanh,
    jnp.exp, ...): fn(x, /, *, out=None). A CPU tensor of a dtype in `dtypes` whose signature
    ran before is computed right here, as `apply_fast` does, with no layer in between (the API
    boundary, out= and the dtype rule would be three Python frames more, ~0.5 us of ~1.2);
    anything else (first call, out=, other dtypes, traced values, other devices, the profiler)
    goes to `general(x, out=out)`, which fills the cache. Errors leave with jitgrad's frames
    trimmed, as at any API boundary."""
    tables = by_dtype(direct_unary(op), dtypes)

    def fast(x, /, *, out=None):
        try:
            if out is None and isinstance(x, Tensor):
                da = x._data
                if da.__class__ is _ndarray and (table := tables.get(da.dtype)) is not None \
                        and (hit := table.get(da.shape)) is not None \
                        and _BACKENDS["cpu"] is cpu_evaluate:
                    dev = x._device
                    if dev is CPU or dev.type == "cpu":
                        fn, dt, differentiable, exact = hit
                        try:
                            try:
                                res = _shared_run(fn, da)
                            except RuntimeError:    # SHARED is entered: this thread's own
                                res = (_local.ctx or quiet_context()).run(fn, da)
                        except (IndexError, ValueError) as e:
                            raise with_location(e, user_source_info()) from None
                        if not exact:
                            res = settle(hit, res)
                        t = Tensor()          # Tensor._wrap(res, dev), inlined
                        t._data = res
                        t._device = dev
                        t._meta_type = None
                        t.requires_grad = False
                        t.grad = None
                        t._ctx = None
                        t._retain = False
                        t._version = [0]
                        t._base = None
                        t._views = None
                        if x.requires_grad and STATE.grad_enabled:
                            if differentiable:
                                _record_one(op, x, t)
                            else:
                                autograd_record.record(op, _NO_PARAMS, (x,), (t,))
                        return t
            return general(x, out=out)
        except Exception as e:      # an api boundary: errors leave with jitgrad's frames trimmed
            raise trimmed(e) from e.__cause__

    return fast


def fast_binary(op, general, dtypes, reflected=False, scalars=True):
    """The eager function of a binary primitive (an operator such as Tensor.__add__, or the
    fast start of a jitgrad.numpy function): two CPU tensors of one dtype in `dtypes` (or one
    and a Python float or int, weak: the tensor's dtype, when `scalars`) whose signature ran
    before are computed right here, NumPy's call and the autograd record included: this is the
    whole cost of `a + b` (one Python frame; a layer more costs ~0.2 us of ~1.2). Anything else
    (first call, promotion, traced values, other devices, errors) goes to `general(a, b)`,
    which fills the cache. `reflected`: the operator of the right operand (`__radd__`)."""
    tables = by_dtype(direct_binary(op), dtypes)
    matmul = op is Op.matmul

    def fast(a, b):
        try:
            if isinstance(a, Tensor):
                da = a._data
                if da.__class__ is _ndarray \
                        and (table := tables.get(dtype := da.dtype)) is not None:
                    if isinstance(b, Tensor):
                        y, db = b, b._data
                        if db.__class__ is not _ndarray or db.dtype is not dtype \
                                or matmul and (da.ndim < 2 or db.ndim < 2):
                            return general(a, b)
                    elif scalars and not matmul and (b.__class__ is float or b.__class__ is int
                                                     and -_INT64 <= b < _INT64):
                        db = np.asarray(b, dtype)
                        y = _wrap(db)
                    else:
                        return general(a, b)
                    x = a
                    if reflected:
                        x, y, da, db = y, x, db, da
                    sa, sb = da.shape, db.shape
                    hit = table.get(sa if sa == sb else (sa, sb))     # fast_path.pair_key
                    dev = a._device
                    if hit is not None and _BACKENDS["cpu"] is cpu_evaluate \
                            and (dev is CPU or dev.type == "cpu") \
                            and (y._device is x._device or y._device == x._device):
                        fn, dt, differentiable, exact = hit
                        try:
                            try:
                                res = _shared_run(fn, da, db)
                            except RuntimeError:    # SHARED is entered: this thread's own
                                res = (_local.ctx or quiet_context()).run(fn, da, db)
                        except (IndexError, ValueError) as e:
                            raise with_location(e, user_source_info()) from None
                        if not exact:
                            res = settle(hit, res)
                        out = Tensor()          # Tensor._wrap(res, dev), inlined
                        out._data = res
                        out._device = dev
                        out._meta_type = None
                        out.requires_grad = False
                        out.grad = None
                        out._ctx = None
                        out._retain = False
                        out._version = [0]
                        out._base = None
                        out._views = None
                        if (x.requires_grad or y.requires_grad) and STATE.grad_enabled:
                            if differentiable:
                                _record_pair(op, x, y, out)
                            else:
                                autograd_record.record(op, _NO_PARAMS, (x, y), (out,))
                        return out
            return general(a, b)
        except Exception as e:      # an api boundary: errors leave with jitgrad's frames trimmed
            raise trimmed(e) from e.__cause__

    return fast


def direct_ok(x) -> bool:
    """Whether a caller may compute an op on eager tensor `x` with NumPy itself and wrap the
    value with `computed`: CPU storage of a NumPy-native dtype, and jg.profiler off (it times
    each eager op through the backend, so then every op takes `apply`)."""
    d, dev = x._data, x._device
    return d.__class__ is _ndarray and d.dtype in NATIVE and (dev is CPU or dev.type == "cpu") \
        and _BACKENDS["cpu"] is cpu_evaluate


def computed(op, inputs, params, res):
    """The eager tensor of `res`, the value of `op` on one or two CPU `inputs` (each
    `direct_ok`) that the caller computed as op's NumPy reference does (its dtype, and its
    storage shared with an input where the reference returns a view: x[slices], transpose,
    reshape); recorded for autograd as `apply` records it (a float or complex result of an
    input that requires grad)."""
    out = _wrap(res, inputs[0]._device)
    if STATE.grad_enabled and res.dtype.kind in "fc":      # NATIVE dtypes: NumPy's kind is exact
        if len(inputs) == 1:
            if inputs[0].requires_grad:
                _record_one(op, inputs[0], out, params)
        elif inputs[0].requires_grad or inputs[1].requires_grad:
            _record_pair(op, inputs[0], inputs[1], out, params)
    return out


_INT64 = 2 ** 63


_NO_PARAMS = autograd_record.NO_PARAMS
_record_one, _record_pair = autograd_record.record_one, autograd_record.record_pair


def eager_apply(op, inputs, params, key=None):
    dev = common_device(op, inputs)
    if dev != CPU and any(x.device != dev for x in inputs):
        inputs = [x if x.device == dev else x.to(dev) for x in inputs]     # 0-d CPU tensors
    try:
        types = infer_types(op, [x._type for x in inputs], params)
    except ShapeError as e:
        raise with_location(e, user_source_info()) from None
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
            raise with_location(e, user_source_info()) from None
        outs = tuple(Tensor._wrap(a, dev) for a in arrays)
    if grad_enabled() and any(x.requires_grad for x in inputs):
        autograd_record.record(op, params, inputs, outs)
    return outs


def evaluate_any(op, arrays, params, node):
    """NumPy evaluation of any op (kernel, cond, scan, ... included) with `node`'s result types."""
    return evaluate(op, arrays, params, [v.type for v in node.outputs])


def _cuda(op, arrays, params, out_types):
    from ..cuda import run_eager  # lazy: jg.cuda and numba.cuda load on first use
    return run_eager(op, arrays, params, out_types)


# device type -> fn(op, arrays, params, out_types) -> arrays
_BACKENDS = {"cpu": cpu_evaluate, "cuda": _cuda}
EAGER_BACKENDS = _BACKENDS      # jg.profiler wraps its entries while it records (timed eager ops)
