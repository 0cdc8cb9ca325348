"""cse: merge nodes that compute the same op on the same inputs with the same params.

Literal params hash by content; floats by their exact bits (so -0.0 and 0.0 differ); sub-graphs by
identity.
"""
from __future__ import annotations

import numpy as np

from ..graph import Graph
from .rewriter import Rewriter


def freeze(p):
    """A hashable stand-in for a param value that is equal exactly when the values are."""
    if isinstance(p, (tuple, list)):
        return (type(p).__name__,) + tuple(freeze(x) for x in p)
    if isinstance(p, (float, np.floating)):
        return ("float", float(p).hex())
    if isinstance(p, Graph):
        return ("graph", id(p))
    if isinstance(p, np.dtype):
        return ("dtype", p.str)
    return (type(p).__name__, p)


def node_key(op, inputs, params):
    return (str(op), tuple(map(id, inputs)),
            tuple(sorted((k, freeze(v)) for k, v in params.items())))


def cse(graph: Graph) -> Graph:
    rw = Rewriter(graph, subgraph_pass=cse)
    seen = {}
    for node in graph.nodes:
        ins = rw.inputs(node)
        key = node_key(node.op, ins, node.params)
        prior = seen.get(key)
        if prior is not None:
            rw.replace(node, prior.outputs)
        else:
            seen[key] = rw.keep(node, ins)
    return rw.finish()
