"""dce: drop every node none of whose outputs the graph's outputs need.

Only the sub-graph needed for the requested outputs is ever compiled or run. Graph inputs stay
(they are the signature) even when unused.
"""
from __future__ import annotations

from ..graph import Graph
from .rewriter import Rewriter


def dce(graph: Graph) -> Graph:
    needed = set(graph.outputs)
    live = []
    for node in reversed(graph.nodes):
        if any(v in needed for v in node.outputs):
            live.append(node)
            needed.update(node.inputs)
    rw = Rewriter(graph, subgraph_pass=dce)
    for node in reversed(live):
        rw.keep(node)
    return rw.finish()
