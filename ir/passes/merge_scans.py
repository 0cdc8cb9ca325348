"""merge_scans: two scans over the same inputs whose carries evolve the same way become one.

Reverse mode makes them: `value_and_grad` of a scan keeps the primal scan (for the value) and
adds the VJP's forward scan that also stacks the carry entering each step (the residuals of the
backward scan). Both read the same inputs and compute the same carry, so the loop runs twice.
Here their bodies are inlined into one body over the shared inputs and CSE'd; when every carry
output of the second is then the same value as the first's, one scan computes the carry and the
ys of both. Otherwise nothing changes.
"""
from __future__ import annotations

from ..autodiff.emitter import Emitter
from ..builder import Builder
from ..graph import Graph, Node, Value
from ..ops import Op
from .cse import cse
from .rewriter import Rewriter

_SAME = ("n_carry", "n_xs", "length", "reverse")


def _key(node):
    return (tuple(map(id, node.inputs)),) + tuple(node.params[k] for k in _SAME)


def _merged_body(a: Graph, b: Graph, nc: int):
    """One body running both (None when the carries differ): outputs carry, ys of a, ys of b."""
    bld = Builder(Graph(name=a.name))
    e = Emitter(bld)
    ins = [bld.add_input(v.type) for v in a.inputs]
    out_a, out_b = e.inline(a, ins), e.inline(b, ins)
    bld.graph.outputs = out_a + out_b
    g = cse(bld.graph)
    n_a = len(out_a)
    if any(g.outputs[k] is not g.outputs[n_a + k] for k in range(nc)):
        return None
    g.outputs = g.outputs[:n_a] + g.outputs[n_a + nc:]
    return g


def merge_scans(graph: Graph) -> Graph:
    groups = {}
    for n in graph.nodes:
        if n.op == Op.scan:
            groups.setdefault(_key(n), []).append(n)
    first_of, second_of = {}, {}     # id(node) -> the merged node (and where b's ys start)
    for group in groups.values():
        a, nc = group[0], group[0].params["n_carry"]
        for b in group[1:]:           # the first partner that merges (pairs only)
            body = _merged_body(a.params["body"], b.params["body"], nc)
            if body is None:
                continue
            outs = tuple(a.outputs) + tuple(Value(v.type) for v in b.outputs[nc:])
            merged = Node(Op.scan, a.inputs, {**a.params, "body": body}, outs, a.source_info)
            first_of[id(a)] = merged
            second_of[id(b)] = (merged, len(a.outputs))
            break
    if not first_of:
        return graph
    rw = Rewriter(graph, subgraph_pass=merge_scans)
    for n in graph.nodes:
        if id(n) in first_of:
            rw.keep(first_of[id(n)], inputs=rw.inputs(n))
        elif id(n) in second_of:
            merged, ys_at = second_of[id(n)]
            nc = n.params["n_carry"]
            rw.replace(n, list(merged.outputs[:nc]) + list(merged.outputs[ys_at:]))
        else:
            rw.keep(n)
    return rw.finish()
