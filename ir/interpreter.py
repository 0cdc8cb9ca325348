"""The reference interpreter: runs any Graph with its ops' NumPy references."""
from __future__ import annotations

import time

import numpy as np

from .errors import with_source
from .graph import Graph
from .reference import evaluate


def interpret(graph: Graph, args, on_node=None) -> list:
    """Evaluate `graph` on NumPy arrays `args`; returns the list of output arrays.
    on_node(node, t0, t1): told the perf_counter_ns span of every node evaluated (the profiler)."""
    if len(args) != len(graph.inputs):
        raise TypeError(f"graph {graph.name} takes {len(graph.inputs)} inputs, got {len(args)}")
    env = {}
    for v, a in zip(graph.inputs, args):
        a = np.asarray(a)
        if a.shape != v.type.shape or a.dtype != v.type.dtype:
            raise TypeError(f"graph {graph.name}: expected an input of type {v.type}, got "
                            f"{a.dtype.name}{list(a.shape)}")
        env[v] = a
    for node in graph.nodes:
        ins = [env[v] for v in node.inputs]
        t0 = time.perf_counter_ns() if on_node is not None else 0
        try:
            outs = evaluate(node.op, ins, node.params, [v.type for v in node.outputs])
        except (IndexError, ValueError) as e:     # a failed check: name the user's line
            raise with_source(e, node.source_info) from None
        if on_node is not None:
            on_node(node, t0, time.perf_counter_ns())
        for v, o in zip(node.outputs, outs):
            env[v] = o
    return [env[v] for v in graph.outputs]
