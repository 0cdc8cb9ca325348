"""The eager fast path: an op on CPU tensors whose signature was seen before skips the type rule.

`dispatch.apply` asks `signature(inputs, params)` for a key made of each input's shape and dtype and
the params (their values and types); None means the call is not a plain CPU call (a traced
value, a meta or cuda tensor, deleted storage, unhashable params) and takes the generic path.
The generic path runs the type rule once and `remember`s the result types in the op's table
(`table(op)`, one dict per op) under the key; later calls with that key find them with one dict
lookup (`lookup`) and run the NumPy reference directly (`run_reference`) when every dtype
involved is one NumPy computes natively; low-precision dtypes go through ir.reference.evaluate,
which widens and rounds. The operators (`dispatch.fast_binary`) and the one-primitive
jitgrad.numpy functions (`dispatch.fast_unary`, `dispatch.apply_fast`) look up the subset they
run directly in two-level tables (`direct_unary` / `direct_binary`: dtype, then the shape, or
the two shapes): a hit costs one dtype hash and one small tuple hash, with nothing in between.

NumPy's floating-point warnings are silenced as the reference interpreter does (`np.errstate(
all="ignore")`), but without entering a new errstate per op: the call runs inside a
contextvars.Context, one per thread, in which the errstate was entered once (NumPy >= 2 keeps
its error state in a context variable). The caller's own error state is untouched. The
direct calls try one context shared by all threads first (`SHARED.run`, no thread-local read);
a thread that finds it entered (another thread is inside it) uses its own (`quiet_context`).
"""
from __future__ import annotations

import contextvars
import threading

import numpy as np

from ..ir.reference import evaluate
from ..ir.registry import KIND
from ..ir.types import kind_of
from ..runtime.device import CPU
from .cpu_backend import NATIVE, eager_reference
from .tensor import Tensor

_ndarray = np.ndarray
# kinds whose references are plain NumPy (never call back into jitgrad: no nested ctx.run)
PURE_KINDS = frozenset(("elementwise", "reduce", "cumulative", "shape", "index", "matmul",
                        "linalg", "fft"))
_TABLES: dict = {}  # op -> {signature: (result types, reference fn or None, all results float)}
# op -> {dtype: {shape key: [fn, result dtype, result is float, exact]}}: the subset the direct
# calls (dispatch.fast_unary / fast_binary / apply_fast) run, one result of a NumPy-native dtype
# and no params (what they need not check again per call). One input: the key is its shape; two
# of one dtype: the shape when both have it, else (shape, shape). `exact` (set on the first
# direct call, dispatch.settle): fn is a NumPy ufunc whose result was an ndarray of the result
# dtype, which it then always is at that signature (NumPy 2 resolves a ufunc's dtypes from the
# input dtypes, and a result is a scalar only when 0-d): later calls skip that check.
_DIRECT1: dict = {}
_DIRECT2: dict = {}
_MISSES = [0]


def table(op) -> dict:
    """The signature table of `op` (made on first use); callers may keep it."""
    t = _TABLES.get(op)
    if t is None:
        t = _TABLES[op] = {}
    return t


def direct_unary(op) -> dict:
    """`op`'s one-input signatures the direct calls run: {dtype: {shape: hit}} (made on first
    use); callers may keep it and its per-dtype tables (`by_dtype`)."""
    t = _DIRECT1.get(op)
    if t is None:
        t = _DIRECT1[op] = {}
    return t


def direct_binary(op) -> dict:
    """`op`'s two-input signatures of one dtype the direct calls run: {dtype: {shape key:
    hit}} (made on first use); callers may keep it and its per-dtype tables (`by_dtype`)."""
    t = _DIRECT2.get(op)
    if t is None:
        t = _DIRECT2[op] = {}
    return t


def by_dtype(direct: dict, dtypes) -> dict:
    """{dtype: its table in `direct`} for each of `dtypes` (the tables made now, so that they
    stay the ones filled later): one dict lookup is both the dtype test and the table."""
    return {dt: direct.setdefault(dt, {}) for dt in dtypes}


def pair_key(sa, sb):
    """The direct_binary key of two shapes."""
    return sa if sa == sb else (sa, sb)


def signature(inputs, params):
    """The cache key of an eager call on CPU tensors (each input's shape and dtype, then the
    params), or None when the fast path cannot apply."""
    n = len(inputs)
    if n == 2:                          # binary ops, unrolled: the commonest case
        a, b = inputs
        if not (isinstance(a, Tensor) and isinstance(b, Tensor)):      # Tensor or Parameter
            return None
        da, db = a._data, b._data
        dev = a._device
        if type(da) is not _ndarray or type(db) is not _ndarray or not _same_cpu(dev, b._device):
            return None
        key = (da.shape, da.dtype, db.shape, db.dtype)
    elif n == 1:
        (a,) = inputs
        if not isinstance(a, Tensor):
            return None
        da = a._data
        if type(da) is not _ndarray or not _same_cpu(a._device, a._device):
            return None
        key = (da.shape, da.dtype)
    elif n == 0:                        # constants, random draws: the generic path
        return None
    else:
        parts = []
        dev = inputs[0]._device if isinstance(inputs[0], Tensor) else None
        for x in inputs:
            if not isinstance(x, Tensor):
                return None
            d = x._data
            if type(d) is not _ndarray or not _same_cpu(dev, x._device):
                return None
            parts.append(d.shape)
            parts.append(d.dtype)
        key = tuple(parts)
    if params:
        key += tuple([e for k, v in params.items() for e in (k, type(v), v)])
        try:
            hash(key)
        except TypeError:      # list- or array-valued params: no key
            return None
    return key


def _same_cpu(dev, other) -> bool:
    return (dev is CPU or dev.type == "cpu") and (other is dev or other == dev)


def lookup(op, key):
    """(result types, direct fn or None, differentiable) of a known signature, else None."""
    t = _TABLES.get(op)
    return None if t is None else t.get(key)


def remember(op, key, inputs, types) -> None:
    """File the result `types` the type rule gave for `op` at signature `key`."""
    _MISSES[0] += 1
    native = all(x._data.dtype in NATIVE for x in inputs) and all(t.dtype in NATIVE for t in types)
    fn = eager_reference(op, inputs[0]._data.dtype) if native and KIND.get(op) in PURE_KINDS \
        else None
    # native dtypes only: NumPy's kind is exact there ('f' / 'c': results that get gradients)
    differentiable = fn is not None and all(kind_of(t.dtype) in "fc" for t in types)
    table(op)[key] = (tuple(types), fn, differentiable)
    if fn is not None and len(types) == 1 and len(key) == 2 * len(inputs) and CONTEXT_ERRSTATE:
        hit = [fn, types[0].dtype, differentiable, False]
        if len(inputs) == 1:
            direct_unary(op).setdefault(key[1], {})[key[0]] = hit
        elif len(inputs) == 2 and key[1] == key[3]:
            direct_binary(op).setdefault(key[1], {})[pair_key(key[0], key[2])] = hit


def cache_info() -> dict:
    """{'size': signatures known, 'misses': type-rule runs that filled the cache}."""
    return {"size": sum(len(t) for t in _TABLES.values()), "misses": _MISSES[0]}


def cache_clear() -> None:
    per_dtype = [t for d in (*_DIRECT1.values(), *_DIRECT2.values()) for t in d.values()]
    for t in (*_TABLES.values(), *per_dtype):       # emptied in place: callers hold them
        t.clear()
    _MISSES[0] = 0


# ----------------------------------------------------------------------------- NumPy calls

class _Local(threading.local):
    ctx = None


_local = _Local()


def local_state():
    """The thread-local holder of each thread's quiet context (`.ctx`, None until made)."""
    return _local


def quiet_context() -> contextvars.Context:
    """This thread's context in which NumPy's floating-point warnings are off."""
    ctx = _local.ctx
    if ctx is None:
        ctx = contextvars.copy_context()
        ctx.run(np.errstate(all="ignore").__enter__)      # left entered: it lives in ctx only
        _local.ctx = ctx
    return ctx


CONTEXT_ERRSTATE = int(np.__version__.split(".")[0]) >= 2    # NumPy 1 keeps it thread-local


def _shared_context() -> contextvars.Context:
    ctx = contextvars.copy_context()
    ctx.run(np.errstate(all="ignore").__enter__)
    return ctx


# the quiet context the direct calls enter first, from any thread: Context.run raises
# RuntimeError when the context is entered already (by another thread running in it now, or a
# call inside a call), and then the caller runs in its thread's own (`quiet_context`); a
# RuntimeError of the NumPy call itself is raised again there (the references are pure)
SHARED = _shared_context()


def run_reference(fn, op, arrays, params, types):
    """Outputs of `fn` (op's NumPy reference) with exactly the dtypes of `types`."""
    if CONTEXT_ERRSTATE:
        ctx = _local.ctx or quiet_context()
        res = ctx.run(fn, *arrays, **params) if params else ctx.run(fn, *arrays)
    else:
        return evaluate(op, list(arrays), params or {}, types)
    if type(res) is _ndarray and len(types) == 1:
        dt = types[0].dtype
        return (res if res.dtype is dt or res.dtype == dt else res.astype(dt),)
    return cast_results(res, types)


def cast_results(res, types) -> tuple:
    """A reference's result(s) as arrays of exactly `types`' dtypes (as ir.reference.evaluate)."""
    res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
    return tuple(_cast(r, t.dtype) for r, t in zip(res, types))


def _cast(r, dtype):
    r = np.asarray(r)
    return r if r.dtype == dtype else r.astype(dtype)
