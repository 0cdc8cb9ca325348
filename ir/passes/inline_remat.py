"""inline_remat: replace each remat node (jg.checkpoint) by its body, after CSE.

A checkpointed function appears twice in a gradient graph: its forward, and a recomputation
inside the backward's remat node. Inlined before CSE, the two copies would be merged and the
forward's intermediates kept alive for the backward, which is what checkpointing avoids; inlined
here, fusion and memory planning see two separate computations. Each body is first simplified on
its own (canonicalize, fold_constants, cse, dce), as the pipeline did for the rest.
"""
from __future__ import annotations

from ..graph import Graph
from ..remat import REMAT
from ..remat import inline_bodies
from .canonicalize import canonicalize
from .cse import cse
from .dce import dce
from .fold_constants import fold_constants


def _simplified(graph: Graph) -> Graph:
    for p in (canonicalize, fold_constants, cse, dce):
        graph = p(graph)
    return graph


def inline_remat(graph: Graph) -> Graph:
    if not any(n.op == REMAT for n in graph.nodes):
        return graph
    nodes = []
    for n in graph.nodes:
        if n.op == REMAT:
            body = _simplified(inline_remat(n.params["body"]))
            n = type(n)(n.op, n.inputs, {**n.params, "body": body}, n.outputs, n.source_info)
        nodes.append(n)
    return dce(inline_bodies(Graph(list(graph.inputs), nodes, list(graph.outputs), graph.name,
                             arg_names=graph.arg_names)))
