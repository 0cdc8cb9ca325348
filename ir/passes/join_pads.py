"""join_pads: a sum of zero-padded pieces that tile one axis is their concatenation,

    pad(a, lo=(0,0)) + pad(b, lo=(0,n_a)) + ... + pad(z, hi=(0,0))  ->  concatenate(a, b, ..., z)

Reverse mode of `split` (of slices) makes this sum: the cotangent of each piece is padded with
zeros back to the whole shape and the padded arrays are added. An LSTM cell splits its [B, 4H]
gates in four, so its backward writes four [B, 4H] zero-padded arrays and adds them, every
step of the reverse loop; one concatenate writes each element once.

Applies to a tree of `add`s (each inner add read only by its parent) whose leaves are `pad`s
with value 0, padded along one and the same axis only, whose ranges are disjoint and cover the
axis. Exact, up to the sign of a zero (-0.0 + 0.0 is +0.0, the concatenation keeps -0.0).
"""
from __future__ import annotations

from ..graph import Graph
from ..ops import Op
from .rewriter import Rewriter


def _leaves(node, made, users):
    """The leaves of the add tree rooted at `node` (inner adds: read only by their parent)."""
    out = []
    for v in node.inputs:
        inner = made.get(v)
        if inner is not None and inner.op == Op.add and len(users.get(v, ())) == 1:
            out += _leaves(inner, made, users)
        else:
            out.append(v)
    return out


def _piece(v, made):
    """(axis, start, array) when v = pad(array) with zeros along one axis only, else None."""
    n = made.get(v)
    if n is None or n.op != Op.pad or n.params.get("value", 0) != 0:
        return None
    lo, hi = n.params["lo"], n.params["hi"]
    axes = [i for i, (a, b) in enumerate(zip(lo, hi)) if a or b]
    if len(axes) > 1 or n.inputs[0].type.dtype != v.type.dtype:
        return None
    axis = axes[0] if axes else 0
    return axis, lo[axis], n.inputs[0]


def _pieces(node, made, users, outputs):
    """The arrays to concatenate (in order) and the axis, when the add tree at `node` is a
    tiling of zero pads; else None."""
    if node.op != Op.add or node.inputs[0].type != node.inputs[1].type:
        return None
    leaves = _leaves(node, made, users)
    if any(v in outputs for v in leaves) or len(leaves) < 2:
        return None
    pieces = [_piece(v, made) for v in leaves]
    if any(p is None for p in pieces) or len({p[0] for p in pieces}) != 1:
        return None
    axis = pieces[0][0]
    pieces.sort(key=lambda p: p[1])
    at = 0
    for _, start, arr in pieces:
        if start != at:
            return None
        at += arr.type.shape[axis]
    if at != node.output.type.shape[axis]:
        return None
    return axis, [p[2] for p in pieces]


def join_pads(graph: Graph) -> Graph:
    rw = Rewriter(graph, subgraph_pass=join_pads)
    users, made = graph.consumers(), graph.producers()
    outputs = set(graph.outputs)
    for node in graph.nodes:
        found = _pieces(node, made, users, outputs)
        if found is None:
            rw.keep(node)
            continue
        axis, arrays = found
        rw.replace(node, (rw.emit(Op.concatenate, [rw.get(v) for v in arrays], {"axis": axis},
                                  node.source_info),))
    return rw.finish()
