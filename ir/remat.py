"""The `remat` op: a sub-graph whose forward is recomputed in the backward pass instead of saving
its intermediates (jg.checkpoint / jg.remat, JAX's `checkpoint`).

Node: inputs = the function's flattened arguments (and the values it closes over); params
body=Graph. Evaluating it runs `body`. Its VJP is another remat node over the body's VJP graph,
taking only the body's inputs and the cotangents: the backward pass recomputes the body, and the
only residuals kept from the forward pass are the body's inputs. Its JVP is a remat node over the
body's JVP; batching batches the body. The two nodes hold different bodies, so CSE cannot merge
the recomputation back into the forward; `inline_remat` (ir/passes) replaces the nodes by their
bodies after CSE, right before fusion.
"""
from __future__ import annotations

from .autodiff.emitter import Emitter
from .autodiff.transform import jvp_graph, prune, vjp_graph
from .batching.transform import batch_graph
from .builder import Builder
from .errors import ShapeError
from .graph import Graph
from .interpreter import interpret
from .ops import Op

REMAT = Op.remat


def type_rule(op, in_types, params):
    body = params["body"]
    want = [v.type for v in body.inputs]
    if list(in_types) != want:
        raise ShapeError(f"remat: {body.name} takes (" + ", ".join(map(str, want)) + "), got ("
                         + ", ".join(map(str, in_types)) + ")")
    return [v.type for v in body.outputs]


def reference(*arrays, body):
    return tuple(interpret(body, arrays))


def _tail(graph: Graph, start: int) -> Graph:
    return prune(Graph(list(graph.inputs), list(graph.nodes), list(graph.outputs[start:]),
                       graph.name))


def _emit(e, inputs, body):
    return list(e.b.emit(REMAT, list(inputs), {"body": body}, e.source_info))


def vjp(e, node, cts):
    body, n_in, n_out = node.params["body"], len(node.inputs), len(node.outputs)
    cts = [e.zeros(v.type) if c is None else c for v, c in zip(node.outputs, cts)]
    g = _tail(vjp_graph(body, range(n_in), range(n_out)), n_out)   # (x, ct) -> ct_x
    g.name = f"{body.name}_remat_vjp"
    return _emit(e, list(node.inputs) + cts, g)


def jvp(e, node, ts):
    body, n_out = node.params["body"], len(node.outputs)
    ts = [e.zeros(v.type) if t is None else t for v, t in zip(node.inputs, ts)]
    g = _tail(jvp_graph(body, range(len(node.inputs))), n_out)      # (x, t) -> t_out
    return _emit(e, list(node.inputs) + ts, g)


def batch(e, node, args, flags):
    g, out_b = batch_graph(node.params["body"], flags, e.size)
    return list(zip(_emit(e, args, g), out_b))


def inline_bodies(graph: Graph) -> Graph:
    """The graph with every remat node replaced by its body (recursively)."""
    if not any(n.op == REMAT for n in graph.nodes):
        return graph
    b = Builder(Graph(name=graph.name, arg_names=graph.arg_names))
    e = Emitter(b)
    env = {v: b.add_input(v.type) for v in graph.inputs}
    for n in graph.nodes:
        ins = [env[v] for v in n.inputs]
        if n.op == REMAT:
            outs = e.inline(inline_bodies(n.params["body"]), ins)
        else:
            outs = b.emit(n.op, ins, n.params, n.source_info)
        env.update(zip(n.outputs, outs))
    b.graph.outputs = [env[v] for v in graph.outputs]
    return b.graph
