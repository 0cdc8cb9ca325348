"""One eager op whose backward reads what its forward saved (PyTorch's ctx.save_for_backward).

A compiled call recorded by jit_in_autograd.record_call differentiates its traced graph: the
backward gets the call's inputs and recomputes the rest (softmax's backward ran max, exp and
sum again; GELU's its erf). Here the forward also returned `residuals` (softmax's output,
GELU's erf term), and they are held by the record as extra inputs that need no gradient:

    op(leaves, residuals) -> outs        body: the function of the leaves (residuals unused)
    fwd:  outs + (leaves, residuals)     the node's own inputs as its residuals
    bwd:  (leaves, residuals, cts) -> one cotangent per leaf, zeros for the residuals

The VJP of the recorded `custom_vjp_call` (ir/autodiff/custom.py) inlines fwd only for its
residuals, which are inputs, so dead-code elimination drops the recomputed outputs: the
backward graph runs the hand-written rule on saved values and nothing of the forward.
"""
from __future__ import annotations

import weakref

from ..ir import Builder, Graph
from ..ir.autodiff import CUSTOM_VJP
from ..ir.autodiff.emitter import Emitter
from ..ir.passes.dce import dce
from .autograd_record import record
from .tensor import Tensor

# the body graphs of saving_params: ops whose forward ran compiled (jit_in_autograd's
# has_jitted_call: their backward is compiled at its first run, as the forward was)
SAVING_BODIES: "weakref.WeakSet" = weakref.WeakSet()


def saving_params(fwd: Graph, n_out: int, bwd: Graph) -> dict:
    """The custom_vjp_call params of an op with a saved-residual rule.
    fwd: leaves -> outs (n_out of them) + residuals; bwd: (leaves, residuals, cts) -> one
    cotangent per leaf."""
    leaf_types = [v.type for v in fwd.inputs]
    res_types = [v.type for v in fwd.outputs[n_out:]]
    out_types = [v.type for v in fwd.outputs[:n_out]]
    body = graph_of(f"{fwd.name}_body", leaf_types + res_types,
                    lambda e, ins: e.inline(fwd, ins[:len(leaf_types)])[:n_out])
    SAVING_BODIES.add(body)
    return {"body": body,
            "fwd": graph_of(f"{fwd.name}_fwd", leaf_types + res_types,
                          lambda e, ins: e.inline(fwd, ins[:len(leaf_types)])[:n_out] + ins),
            "bwd": graph_of(f"{fwd.name}_bwd", leaf_types + res_types + out_types,
                          lambda e, ins: e.inline(bwd, ins) + [e.zeros(t) for t in res_types])}


def record_saving(params: dict, leaves, residuals, outs, shares=None) -> None:
    """Record `outs = body(*leaves)` (already computed) with `residuals` (arrays) saved for the
    backward. shares[i]: the output tensor residual i is the storage of (None: its own), whose
    version counter it then shares, so an in-place write to that output is caught by backward
    as for any saved tensor."""
    shares = shares or [None] * len(residuals)
    saved = [Tensor._wrap(r) if o is None else Tensor._wrap(r, o._device, o._version)
             for r, o in zip(residuals, shares)]
    record(CUSTOM_VJP, params, list(leaves) + saved, outs)


def graph_of(name, in_types, emit) -> Graph:
    """A graph of inputs `in_types` whose outputs are emit(Emitter, inputs), dead code dropped."""
    b = Builder(Graph(name=name))
    ins = [b.add_input(t) for t in in_types]
    b.graph.outputs = emit(Emitter(b), ins)
    return dce(b.graph)
