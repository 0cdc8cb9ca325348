"""conv_input_grad: a convolution's input gradient as one product over the padded output gradient,

    col2im(A @ G)  ->  A' @ im2col(pad(G))

Reverse mode of a convolution (jitgrad.nn's conv2d: im2col, then a GEMM) multiplies the output
gradient G (..., O, L) by the weight matrix A (K*C, O) into the columns' gradient (..., K*C, L)
and sums its K blocks back into the image with col2im: a [K*C, L] array written and read again
per image, nine times the image for a 3x3 kernel. When every block starts on the image's first
row (stride 1, any dilation: one phase), the same sums are the transposed convolution

    dX[c, s] = sum over taps t and channels o of A[t*C + c, o] * G[o, s - c_t]

which is a GEMM of A' (C, K*O) (A's rows regrouped: A'[c, t*O + o] = A[t*C + c, o]) with the
columns of G padded by max c_t zeros in front: block t of those columns starts at max c_t - c_t.
Fusion then reads them in place (fusion_rules.matmul_operand), so the only array written is
the padded G. The sums are the same terms in another order (no longer tap after tap).
"""
from __future__ import annotations

import numpy as np

from ..graph import Graph
from ..ops import Op
from .rewriter import Rewriter


def _match(node, made, users, outputs):
    """(A, G) when `node` is col2im(A @ G) of one phase, the product read by it alone."""
    if node.op != Op.col2im:
        return None
    p = node.params
    if any(r != 0 for r, _ in p["starts"]) or p["size"][0] != p["rows"]:
        return None
    (v,) = node.inputs
    mm = made.get(v)
    if mm is None or mm.op != Op.matmul or v in outputs or len(users.get(v, ())) != 1:
        return None
    a, g = mm.inputs
    k, c = len(p["starts"]), p["rows"]
    if a.type.ndim != 2 or a.type.shape[0] != k * c or g.type.ndim < 2 \
            or g.type.shape[-1] != p["length"] or a.type.dtype != g.type.dtype \
            or np.dtype(g.type.dtype).kind != "f":
        return None
    return a, g


def conv_input_grad(graph: Graph) -> Graph:
    rw = Rewriter(graph, subgraph_pass=conv_input_grad)
    users, made = graph.consumers(), graph.producers()
    outputs = set(graph.outputs)
    for node in graph.nodes:
        found = _match(node, made, users, outputs)
        if found is None:
            rw.keep(node)
            continue
        a, g = found
        p, src = node.params, node.source_info
        k, c, o = len(p["starts"]), p["rows"], a.type.shape[1]
        length, lx = p["length"], p["size"][1]
        front = max(ct for _, ct in p["starts"])
        zeros = (0,) * (g.type.ndim - 1)
        padded = rw.emit(Op.pad, [rw.get(g)], {"lo": zeros + (front,), "hi": zeros + (lx - length,),
                                               "value": 0.0}, src)
        cols = rw.emit(Op.im2col, [padded], {"starts": tuple((0, front - ct) for _, ct in p["starts"]),
                                             "rows": o, "length": lx}, src)
        a3 = rw.emit(Op.reshape, [rw.get(a)], {"shape": (k, c, o)}, src)
        at = rw.emit(Op.transpose, [a3], {"perm": (1, 0, 2)}, src)
        a2 = rw.emit(Op.reshape, [at], {"shape": (c, k * o)}, src)
        rw.replace(node, (rw.emit(Op.matmul, [a2, cols], {}, src),))
    return rw.finish()
