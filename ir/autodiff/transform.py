"""The two transformations: Graph -> Graph.

vjp_graph / vjp_values (reverse mode): copy the primal nodes, then walk them backwards
accumulating cotangents with VJP_RULES. jvp_graph (forward mode): copy each primal node and
right after it emit its tangent with JVP_RULES. Both produce ordinary graphs built with the
Builder, so they go through the same passes and code generation as anything else, and can be
differentiated again (higher order).
"""
from __future__ import annotations

from ..builder import Builder
from ..errors import MissingRuleError
from ..graph import Graph, Node, Value
from ..registry import JVP_RULES, NON_DIFFERENTIABLE, VJP_RULES
from ..types import is_inexact
from .emitter import Emitter
from ..passes.dce import dce as prune   # rules emit pieces one mode or input doesn't need


def _names(graph, extra_names):
    base = list(graph.arg_names or [f"a{i}" for i in range(len(graph.inputs))])
    taken, out = set(base), []
    for n in extra_names:
        while n in taken:
            n += "_"
        taken.add(n)
        out.append(n)
    return base + out


def _copy_node(b, node, env):
    outs = tuple(Value(v.type) for v in node.outputs)
    new = Node(node.op, tuple(env[v] for v in node.inputs), node.params, outs, node.source_info)
    b.graph.nodes.append(new)
    env.update(zip(node.outputs, outs))
    return new


def _depends_on(graph, roots) -> set:
    """Float values that depend on any of `roots` (the values derivatives can flow through)."""
    active = {v for v in roots if is_inexact(v.type.dtype)}
    for n in graph.nodes:
        if n.op in NON_DIFFERENTIABLE:      # zero derivative (stop_gradient, floor, argmax,
            continue                        # ...): JAX's symbolic zero, from the op records
        if any(v in active for v in n.inputs):
            active.update(v for v in n.outputs if is_inexact(v.type.dtype))
    return active


def _rule(table, op, concern):
    rule = table.get(op)
    if rule is None:
        raise MissingRuleError(op, concern)
    return rule


def vjp_values(graph: Graph, wrt_values, out_idx) -> Graph:
    """Reverse mode with respect to any values of `graph` (inputs or intermediates).

    Result inputs: graph.inputs + one cotangent per output in `out_idx` (typed like it).
    Result outputs: graph.outputs + one cotangent per value in `wrt_values` (zeros where the
    chosen outputs do not depend on it)."""
    wrt_values, out_idx = list(wrt_values), list(out_idx)
    b = Builder(Graph(name=f"{graph.name}_vjp"))
    e = Emitter(b)
    env = {v: b.add_input(v.type) for v in graph.inputs}
    copies = [_copy_node(b, n, env) for n in graph.nodes]
    seeds = [b.add_input(graph.outputs[i].type) for i in out_idx]
    b.graph.arg_names = _names(graph, ["ct"] if len(seeds) == 1 else
                               [f"ct{i}" for i in range(len(seeds))])
    active = _depends_on(graph, wrt_values)
    ct, found, wanted = {}, {}, set(wrt_values)

    def accumulate(v, c):
        ct[v] = c if v not in ct else e.add(ct[v], c)

    for i, s in zip(out_idx, seeds):
        if graph.outputs[i] in active:
            accumulate(graph.outputs[i], s)
    for node, new in zip(reversed(graph.nodes), reversed(copies)):
        cts = [ct.pop(v, None) for v in node.outputs]
        found.update((v, c) for v, c in zip(node.outputs, cts) if v in wanted and c is not None)
        if all(c is None for c in cts) or node.op in NON_DIFFERENTIABLE \
                or not any(v in active for v in node.inputs):
            continue
        e.source_info = node.source_info
        in_cts = _rule(VJP_RULES, node.op, "VJP")(e, new, cts)
        for v, new_v, c in zip(node.inputs, new.inputs, in_cts):
            if c is not None and v in active:
                accumulate(v, e.sum_to(c, new_v.type.shape))
    e.source_info = None
    found.update((v, ct[v]) for v in graph.inputs if v in wanted and v in ct)
    grads = [found[v] if v in found else e.zeros(v.type) for v in wrt_values]
    b.graph.outputs = [env[v] for v in graph.outputs] + grads
    return prune(b.graph)


# vjp_graph calls so far (grad, value_and_grad, vjp): jit notes whether tracing a function took
# gradients -- a JAX-style training step, which eager autograd then does not record
REVERSE_CALLS = [0]


def vjp_graph(graph: Graph, wrt, out_idx) -> Graph:
    """Reverse mode with respect to the inputs at indices `wrt` (see vjp_values)."""
    REVERSE_CALLS[0] += 1
    return vjp_values(graph, [graph.inputs[i] for i in wrt], out_idx)


def jvp_graph(graph: Graph, tangent_inputs) -> Graph:
    """Forward mode. Result inputs: graph.inputs + one tangent per index in `tangent_inputs`;
    outputs: graph.outputs + one tangent per output (zeros for non-float or independent ones)."""
    tangent_inputs = list(tangent_inputs)
    b = Builder(Graph(name=f"{graph.name}_jvp"))
    e = Emitter(b)
    env = {v: b.add_input(v.type) for v in graph.inputs}
    tan = {}
    for i in tangent_inputs:
        t = b.add_input(graph.inputs[i].type)
        if is_inexact(t.type.dtype):
            tan[graph.inputs[i]] = t
    names = list(graph.arg_names or [f"a{i}" for i in range(len(graph.inputs))])
    b.graph.arg_names = _names(graph, [names[i] + "_dot" for i in tangent_inputs])
    for node in graph.nodes:
        new = _copy_node(b, node, env)
        ts = [tan.get(v) for v in node.inputs]
        if all(t is None for t in ts) or node.op in NON_DIFFERENTIABLE:
            continue
        e.source_info = node.source_info
        for v, t in zip(node.outputs, _rule(JVP_RULES, node.op, "JVP")(e, new, ts)):
            if t is not None and is_inexact(v.type.dtype):
                tan[v] = e.broadcast_to(t, v.type.shape)
    e.source_info = None
    b.graph.outputs = [env[v] for v in graph.outputs] + [
        tan[v] if v in tan else e.zeros(v.type) for v in graph.outputs]
    return prune(b.graph)
