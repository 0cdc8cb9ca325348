"""dce: drop every node none of whose outputs the graph's outputs need.

Only the sub-graph needed for the requested outputs is ever compiled or run. Graph inputs stay
(they are the signature) even when unused.
"""
from __future__ import annotations

from ..graph import Graph
from .rewriter import Rewriter


def live_nodes(graph: Graph, outputs=None) -> list:
    """The nodes the graph's outputs (or the given values of it) need, in graph order."""
    needed = set(graph.outputs if outputs is None else outputs)
    live = []
    for node in reversed(graph.nodes):
        if any(v in needed for v in node.outputs):
            live.append(node)
            needed.update(node.inputs)
    return live[::-1]


def dce(graph: Graph) -> Graph:
    rw = Rewriter(graph, subgraph_pass=dce)
    for node in live_nodes(graph):
        rw.keep(node)
    return rw.finish()
