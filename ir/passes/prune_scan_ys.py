"""prune_scan_ys: a scan's stacked outputs (ys) that repeat one body value, or that nothing
reads, are dropped; a repeat reads the first one's stack instead.

Each ys is a [length, ...] buffer written every step (a copy per step when the body value is
also a carry or an earlier ys). merge_scans makes repeats: the primal scan's ys `h` and the VJP's
forward scan's residual `h` are one value of the merged body, stacked twice. Carries are kept
(their outputs are the loop's state). Runs after merge_scans and before dce.
"""
from __future__ import annotations

from ..control_flow import SCAN
from ..graph import Graph
from .rewriter import Rewriter


def _kept(node, used):
    """Indices of the ys to keep, and for each ys index the kept index whose stack it reads."""
    body, nc = node.params["body"], node.params["n_carry"]
    first, keep, source = {}, [], {}
    for j, v in enumerate(body.outputs[nc:]):
        if v in first:
            source[j] = first[v]
        elif node.outputs[nc + j] in used:
            first[v] = j
            keep.append(j)
            source[j] = j
    return keep, source


def prune_scan_ys(graph: Graph) -> Graph:
    rw = Rewriter(graph, subgraph_pass=prune_scan_ys)
    used = set(graph.outputs) | {v for n in graph.nodes for v in n.inputs}
    for node in graph.nodes:
        if node.op != SCAN:
            rw.keep(node)
            continue
        nc, body = node.params["n_carry"], prune_scan_ys(node.params["body"])
        keep, source = _kept(node, used)
        new_body = Graph(list(body.inputs), list(body.nodes),
                         list(body.outputs[:nc]) + [body.outputs[nc + j] for j in keep], body.name)
        outs = rw.emit(SCAN, rw.inputs(node), {**node.params, "body": new_body},
                       node.source_info)
        outs = outs if isinstance(outs, tuple) else (outs,)
        at = {j: nc + k for k, j in enumerate(keep)}
        rw.replace(node, list(outs[:nc]) + [outs[at[source[j]]] if j in source else None
                                            for j in range(len(node.outputs) - nc)])
    return rw.finish()
