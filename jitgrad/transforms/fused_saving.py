"""The tier of `fused_in_eager` for functions with a backward from saved values, as PyTorch's
native kernels have one (softmax's backward reads its output instead of running max, exp and
sum again; GELU's reads its erf term instead of evaluating erf again).

A function gives `bwd=` (and optionally `fwd=`):
- fwd(*args) -> (out, residuals): the value and what its backward reads; by default
  residuals = (out,);
- bwd(args, residuals, g) -> one cotangent per array parameter (None: zero), args being the
  call's arguments with the tensors traced.

A call recorded for autograd runs fwd as one compiled call (its value and residuals from one
kernel schedule) and is recorded as one op that holds the residuals (eager/saved_residuals.py);
bwd is traced once per signature and is that op's backward.
"""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..eager.grad_mode import grad_enabled
from ..eager.saved_residuals import record_saving, saving_params
from ..eager.tensor import Tensor
from ..ir import Graph
from ..ir.types import kind_of
from ..trace.tracing import ShapeDtype, trace_to_graph
from ..compilation.compile_graph import compile_graph


def saves_output(fn):
    """The default fwd: fn's value, saved as the one residual."""
    def fwd(*args):
        out = fn(*args)
        return out, (out,)
    fwd.__name__ = getattr(fn, "__name__", "fused")
    return fwd


def recorded(tensors) -> bool:
    """Whether a call on these tensors is recorded for autograd (then it saves residuals)."""
    return grad_enabled() and any(t.requires_grad for t in tensors)


def compile_saving(fwd, bwd, bind, live, tensors):
    """(fwd's executable, where each of out and the residuals is among its outputs, the
    record's params), or None when fwd or bwd closes over traced values.
    bind(f, name) -> call(*tensors) running f(args) on this call's arguments with its tensors
    replaced; live: the positions (among the array parameters) of the tensors given."""
    name = getattr(fwd, "__name__", "fused").strip("_")
    graph, _, captures, _ = trace_to_graph(bind(lambda args: _flat(fwd(*args)), name),
                                           tuple(tensors))
    if captures:
        return None
    flat = list(graph.outputs)
    distinct = list(dict.fromkeys(flat))        # softmax saves its output: one result, twice
    specs = [[ShapeDtype(v.type.shape, v.type.dtype) for v in vs]
             for vs in (graph.inputs, flat[1:], flat[:1])]
    bwd_graph, _, bwd_captures, _ = trace_to_graph(
        lambda ls, rs, cs: _cotangents(bwd, bind, live, ls, rs, cs[0]), tuple(specs),
        name=f"{name}_bwd")
    if bwd_captures:
        return None
    params = saving_params(Graph(graph.inputs, graph.nodes, flat, graph.name), 1, bwd_graph)
    graph.outputs = distinct
    return compile_graph(graph, "cpu"), [distinct.index(v) for v in flat], params


def run_saving(unit, tensors):
    """One call of fwd's executable, recorded with its residuals saved for the backward."""
    exe, where, params = unit
    results = exe.run([t._data for t in tensors])
    arrays = [np.asarray(results[i]) for i in where]
    result = Tensor._wrap(arrays[0])
    shares = [result if i == where[0] else None for i in where[1:]]
    record_saving(params, tensors, arrays[1:], [result], shares)
    return result


def _flat(out_and_residuals):
    out, residuals = out_and_residuals
    return [out, *residuals]


def _cotangents(bwd, bind, live, leaves, residuals, g):
    """bwd's cotangents for the tensors given (traced `leaves`), in their dtypes (a float32
    weight of a float64 input); zeros where bwd gives None and for integer tensors."""
    cts = bind(lambda args: bwd(args, residuals, g))(*leaves)
    return [jnp.astype(cts[n], t.dtype) if cts[n] is not None and kind_of(t.dtype) in "fc"
            else jnp.zeros(t.shape, t.dtype) for n, t in zip(live, leaves)]
