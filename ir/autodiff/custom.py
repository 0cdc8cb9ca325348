"""The `custom_vjp_call` op: a user-written reverse-mode rule (jg.custom_vjp).

Node: inputs = the function's flattened arguments; params body=Graph (the primal function),
fwd=Graph (arguments -> outputs + residuals), bwd=Graph (residuals + output cotangents -> one
cotangent per argument). Evaluating it runs `body`; its VJP inlines `fwd` and `bwd`, so the
gradient graph holds only ordinary primitives (and can be differentiated again). Forward mode
is refused, as in JAX. `inline_custom_calls` lowers remaining nodes to their bodies before
compilation.
"""
from __future__ import annotations

from ..builder import Builder
from ..errors import ShapeError
from ..graph import Graph
from ..interpreter import interpret
from ..ops import Op
from .emitter import Emitter

CUSTOM_VJP = Op.custom_vjp_call


def type_rule(op, in_types, params):
    body = params["body"]
    want = [v.type for v in body.inputs]
    if list(in_types) != want:
        raise ShapeError(f"{op}: {body.name} takes (" + ", ".join(map(str, want)) + "), got ("
                         + ", ".join(map(str, in_types)) + ")")
    return [v.type for v in body.outputs]


def reference(*arrays, body, fwd, bwd):
    return tuple(interpret(body, arrays))


def vjp(e, node, cts):
    fwd, bwd = node.params["fwd"], node.params["bwd"]
    residuals = e.inline(fwd, node.inputs)[len(node.outputs):]
    cts = [e.zeros(v.type) if c is None else c for v, c in zip(node.outputs, cts)]
    return e.inline(bwd, residuals + cts)


def jvp(e, node, tangents):
    raise TypeError(f"{node.params['body'].name}: can't apply forward-mode autodiff (jvp, "
                    "jacfwd) to a jg.custom_vjp function; use reverse mode (grad, vjp, jacrev), "
                    "as in JAX")


def inline_custom_calls(graph: Graph) -> Graph:
    """The graph with every custom_vjp_call replaced by its body (what compilation runs)."""
    if not any(n.op == CUSTOM_VJP for n in graph.nodes):
        return graph
    b = Builder(Graph(name=graph.name, arg_names=graph.arg_names))
    e = Emitter(b)
    env = {v: b.add_input(v.type) for v in graph.inputs}
    for n in graph.nodes:
        ins = [env[v] for v in n.inputs]
        if n.op == CUSTOM_VJP:
            outs = e.inline(inline_custom_calls(n.params["body"]), ins)
        else:
            outs = b.emit(n.op, ins, n.params, n.source_info)
        env.update(zip(n.outputs, outs))
    b.graph.outputs = [env[v] for v in graph.outputs]
    return b.graph
