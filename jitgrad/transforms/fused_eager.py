"""Composite functions (layer_norm, gelu, softmax, log_softmax, cross_entropy) eagerly as ONE
compiled call, as PyTorch's eager mode runs them as one native kernel each (and a recurrent
layer's scan over time, nn/rnn_scan.py, as one call per layer and direction).

Written as decompositions into primitives, these run eagerly as 5-10 NumPy passes and as many
dispatches and autograd records each. `@fused_in_eager("x", ...)` (the parameters that take
tensors; every other parameter is static) makes a function, called on eager CPU tensors with
a signature (shapes, dtypes, static values) seen HOT times before, run as jit runs it (traced
once per signature, compiled by compile_graph): one fused kernel, and under autograd one
recorded op whose backward is the backward part of the function's VJP, reading the values
its forward saved (eager/jit_in_autograd.saving_split: a scan's per-step values, so nothing of
the forward runs twice). Tiered like the eager backward: the first calls of a signature run
op by op, so a one-off call never waits for a compile. Anything else (traced values, NumPy
arrays or lists, other devices, the interpreter-only setting) runs the function as written.
Both tiers compute the same function; they may differ in the last bits (a fused kernel rounds
where NumPy's passes round), as eager and jit do.

`bwd=` (and `fwd=`) give a function a backward that reads saved values, as PyTorch's native
kernels have (softmax's backward reads its output instead of running max, exp and sum again):
see fused_saving.py. Calls not recorded for autograd compile the function alone; the op-by-op
tier and traced calls never use the rule (autodiff of the decomposition needs none).
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from .. import tree_util
from ..eager.tensor import Tensor
from ..ir import config
from ..runtime.device import CPU
from ..eager.jit_in_autograd import saving_split
from ..eager.saved_residuals import record_saving
from ..trace.tracing import trace_to_graph
from ..compilation.compile_graph import compile_graph
from .fused_saving import compile_saving, recorded, run_saving, saves_output

HOT = 2                 # op-by-op calls of one signature before it runs compiled
_MAX_SIGNATURES = 256   # per function: a flood of new signatures resets the caches
_NOT_FUSED = object()   # a signature whose trace is not one graph of one output


def fused_in_eager(*array_params, fwd=None, bwd=None):
    """Decorator: `array_params` names the parameters that take tensors (or None); fwd and bwd
    a backward from saved values (see the module's doc)."""
    def decorate(fn):
        saves = fwd or (bwd and saves_output(fn))
        params = list(inspect.signature(fn).parameters.values())
        names = [p.name for p in params]
        defaults = [p.default for p in params]
        arrays = tuple(names.index(a) for a in array_params)
        seen, compiled = {}, {}

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            full = _bind(args, kwargs, names, defaults)
            key = None if full is None else _key(full, arrays)
            if key is not None:
                n = seen.get(key, 0)
                if n >= HOT:
                    tensors = [full[i] for i in arrays if full[i] is not None]
                    saving = recorded(tensors)
                    rule = saving and bwd is not None
                    unit = compiled.get((key, saving))
                    if unit is None:
                        unit = compiled[key, saving] = (
                            _compile_with_rule(saves, bwd, full, arrays, tensors) if rule
                            else _compile(fn, full, arrays, tensors, saving))
                    if unit is not _NOT_FUSED:
                        return (run_saving if rule else _run)(unit, tensors)
                else:
                    if len(seen) >= _MAX_SIGNATURES:
                        seen.clear()
                        compiled.clear()
                    seen[key] = n + 1
            return fn(*args, **kwargs)
        return wrapper
    return decorate


def _bind(args, kwargs, names, defaults):
    """All arguments by position (defaults filled in), or None when the call is not plain."""
    if len(args) > len(names):
        return None
    full = list(args) + defaults[len(args):]
    for k, v in kwargs.items():
        if k not in names or names.index(k) < len(args):
            return None
        full[names.index(k)] = v
    return None if any(v is inspect.Parameter.empty for v in full) else full


def _key(full, arrays):
    """(the tensors' shapes and dtypes, the static values and which tensors are None), or None
    when the call is not one on eager CPU tensors with hashable static values."""
    parts = []
    for i in arrays:
        x = full[i]
        if x is None:
            parts.append(None)
            continue
        if not isinstance(x, Tensor):
            return None
        d = x._data
        if type(d) is not np.ndarray or x._device is not CPU and x._device.type != "cpu":
            return None
        parts.append((d.shape, d.dtype))
    statics = tuple((i, v) for i, v in enumerate(full) if i not in arrays or v is None)
    try:
        hash(statics)
    except TypeError:
        return None
    if config.interpreter_only():
        return None
    return tuple(parts), statics


def _with_args(fn, full, arrays, name=None):
    """fn(args) -> fn's result on `full` with its live tensors replaced by args (the static
    values and the None tensors baked in; the template holds no tensor)."""
    live = [i for i in arrays if full[i] is not None]
    template = [None if i in live else v for i, v in enumerate(full)]

    def call(*ts):
        args = list(template)
        for i, t in zip(live, ts):
            args[i] = t
        return fn(args)
    call.__name__ = call.__qualname__ = name or getattr(fn, "__name__", "fused")
    return call


def _compile(fn, full, arrays, tensors, saving=False):
    """(saving, executable, output tree) of fn on these tensors, the static values (and the
    None tensors) of this call baked in; _NOT_FUSED when the trace is not one graph with
    outputs. saving (a call recorded for autograd): the executable also returns what the
    backward reads (eager/jit_in_autograd.saving_split) and saving is (record params, number
    of outputs, where each output and residual is among the executable's results); else None."""
    call = _with_args(lambda args: fn(*args), full, arrays, getattr(fn, "__name__", None))
    graph, out_tree, captures, _ = trace_to_graph(call, tuple(tensors))
    if captures or not graph.outputs:
        return _NOT_FUSED
    if not saving:
        return None, compile_graph(graph, "cpu"), out_tree
    fwd, n_out, params = saving_split(graph)
    distinct = list(dict.fromkeys(fwd.outputs))     # a residual may be an output too
    where = [distinct.index(v) for v in fwd.outputs]
    fwd.outputs = distinct
    return (params, n_out, where), compile_graph(fwd, "cpu"), out_tree


def _compile_with_rule(fwd, bwd, full, arrays, tensors):
    """fused_saving's unit for fwd and bwd on this call's signature, or _NOT_FUSED."""
    live = [n for n, i in enumerate(arrays) if full[i] is not None]
    unit = compile_saving(fwd, bwd, lambda f, name=None: _with_args(f, full, arrays, name),
                          live, tensors)
    return _NOT_FUSED if unit is None else unit


def _run(unit, tensors):
    """One call of a compiled unit; under autograd, one recorded op that holds the values its
    backward reads (eager/saved_residuals.py)."""
    saving, exe, out_tree = unit
    arrays = [np.asarray(out) for out in exe.run([t._data for t in tensors])]
    if saving is None:
        return tree_util.tree_unflatten(out_tree, [Tensor._wrap(a) for a in arrays])
    params, n_out, where = saving
    results = [Tensor._wrap(arrays[i]) for i in where[:n_out]]
    first = {w: k for k, w in reversed(list(enumerate(where[:n_out])))}
    record_saving(params, tensors, [arrays[i] for i in where[n_out:]], results,
                  [results[first[w]] if w in first else None for w in where[n_out:]])
    return tree_util.tree_unflatten(out_tree, results)
