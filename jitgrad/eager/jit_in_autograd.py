"""A compiled call inside eager autograd: `jg.jit(f)(m, x)` on tensors that require grad
records ONE op whose backward is f's VJP graph, so mixed eager/jitted code gets the gradients of
the same code written eagerly (as torch.compile and jax.jit compose with their autodiff).

The op is a `custom_vjp_call` (ir/autodiff/custom.py) with body = the traced graph, fwd = the
graph returning its inputs as residuals, and bwd = ir.autodiff's VJP of the graph. `.backward()`
differentiates it like any recorded op: the VJP inlines bwd into the gradient graph, which runs
through the compiler like every other backward, compiled at its first run (has_jitted_call).

`saving_split(graph)` is the form that computes nothing twice (a recurrent layer's scan, whose
backward above would run the forward scan again for its per-step values): the VJP graph's
nodes that read no cotangent (the outputs and every value the backward reads, the per-step
residual stacks of a scan: ir/autodiff/scan_vjp.py) become the forward, run once and saved by
the record (saved_residuals.py); the rest, the backward alone.
"""
from __future__ import annotations

import weakref

from ..ir import Builder, Graph, Op
from ..ir.autodiff import CUSTOM_VJP, vjp_values
from ..ir.autodiff.emitter import Emitter
from ..ir.types import kind_of
from .array_base import ArrayOps
from .autograd_record import record
from .grad_mode import grad_enabled
from .saved_residuals import SAVING_BODIES, saving_params
from .tensor import tensor

# ops of the forward part that the backward redoes on the inputs instead of saving the result
REDONE = frozenset((Op.transpose, Op.reshape, Op.broadcast_to, Op.convert))

# traced graph -> params of its custom_vjp_call (built once per compiled signature)
_PARAMS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


# traced graphs whose function took gradients itself (jg.grad / value_and_grad / vjp inside):
# a JAX-style training step. Recording it would chain every step's updated parameters to the
# previous ones through the tape, so it is not recorded (as if run under jg.no_grad()).
TAKES_GRADIENTS: "weakref.WeakSet" = weakref.WeakSet()


def needs_record(leaves, graph) -> bool:
    """Whether a call of `graph` on these leaves must be recorded for `.backward()`."""
    return grad_enabled() and graph not in TAKES_GRADIENTS and \
        any(getattr(x, "requires_grad", False) for x in leaves)


def record_call(graph: Graph, leaves, outs) -> None:
    """Record `outs = graph(*leaves)` (already computed) as one differentiable op."""
    params = _PARAMS.get(graph)
    if params is None:
        params = _PARAMS[graph] = {"body": graph, "fwd": _fwd(graph), "bwd": _bwd(graph)}
    record(CUSTOM_VJP, params, [x if isinstance(x, ArrayOps) else tensor(x) for x in leaves], outs)


def has_jitted_call(records) -> bool:
    """Whether one of these autograd records is a jitted call recorded by record_call or a
    compiled call that saved its residuals (saved_residuals.py): its backward is compiled at its
    first run (eager/backward.py), as its forward was, instead of interpreted until the
    structure turns hot."""
    return any(rec.op is CUSTOM_VJP and (rec.params.get("body") in _PARAMS or
                                         rec.params.get("body") in SAVING_BODIES)
               for rec in records)


def _fwd(graph):
    """inputs -> outputs + the inputs (the residuals bwd recomputes from)."""
    b = Builder(Graph(name=f"{graph.name}_fwd"))
    ins = [b.add_input(v.type) for v in graph.inputs]
    b.graph.outputs = Emitter(b).inline(graph, ins) + ins
    return b.graph


def _bwd(graph):
    """(inputs, one cotangent per output) -> one cotangent per input (zeros for integers)."""
    float_out = [i for i, v in enumerate(graph.outputs) if kind_of(v.type.dtype) == "f"]
    vg = vjp_values(graph, graph.inputs, float_out)
    b = Builder(Graph(name=f"{graph.name}_bwd"))
    e = Emitter(b)
    ins = [b.add_input(v.type) for v in graph.inputs]
    cts = [b.add_input(v.type) for v in graph.outputs]
    outs = e.inline(vg, ins + [cts[i] for i in float_out])
    grads = outs[len(graph.outputs):]
    b.graph.outputs = [g if kind_of(v.type.dtype) == "f" else e.zeros(v.type)
                       for g, v in zip(grads, graph.inputs)]
    return b.graph


def saving_split(graph: Graph):
    """(fwd, n_out, params): fwd maps graph's inputs to its n_out outputs followed by the
    values its VJP's backward part reads; params, the custom_vjp_call params of an op
    recorded with those values saved (saved_residuals.record_saving)."""
    n_in, n_out = len(graph.inputs), len(graph.outputs)
    float_out = [i for i, v in enumerate(graph.outputs) if kind_of(v.type.dtype) == "f"]
    vg = vjp_values(graph, graph.inputs, float_out)
    leaves, dep = vg.inputs[:n_in], set(vg.inputs[n_in:])
    fwd_nodes, bwd_nodes, sources, free = [], [], [], set(leaves)
    for n in vg.nodes:
        if any(v in dep for v in n.inputs):
            bwd_nodes.append(n)
            dep.update(n.outputs)
            continue
        fwd_nodes.append(n)
        # constants, and shape ops of inputs (a weight's transpose): redone by the backward
        if not n.inputs or n.op in REDONE and all(v in free for v in n.inputs):
            sources.append(n)
            free.update(n.outputs)
    grads = vg.outputs[n_out:]
    read = [v for n in bwd_nodes for v in n.inputs] + list(grads)
    residuals = list(dict.fromkeys(v for v in read if v not in dep and v not in free))
    fwd = Graph(list(leaves), fwd_nodes, list(vg.outputs[:n_out]) + residuals,
                f"{graph.name}_saving")
    b = Builder(Graph(name=f"{graph.name}_saved_bwd"))
    env = {v: b.add_input(v.type) for v in list(leaves) + residuals}
    cts = [b.add_input(v.type) for v in graph.outputs]
    env.update(zip(vg.inputs[n_in:], [cts[i] for i in float_out]))
    e = Emitter(b)
    for n in sources + bwd_nodes:
        env.update(zip(n.outputs, b.emit(n.op, [env[v] for v in n.inputs], n.params,
                                         n.source_info)))
    b.graph.outputs = [env[g] if kind_of(v.type.dtype) == "f" else e.zeros(v.type)
                       for g, v in zip(grads, graph.inputs)]
    return fwd, n_out, saving_params(fwd, n_out, b.graph)
