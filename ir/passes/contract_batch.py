"""contract_batch: a product summed over its batch axes is one GEMM over the flattened rows,

    sum_b a_b^T c_b = reshape(a, [B*T, P])^T reshape(c, [B*T, Q])      (a [*B, T, P], c [*B, T, Q])

so the weight gradient of a layer applied to [B, T, D] activations (after fold_transposes:
reduce_sum(dY^T x, batch axes)) is one GEMM with K = B*T instead of B per-batch products of
K = T written out and then a reduce_sum kernel over [B, P, Q]. The reshapes merge leading axes of
the stored operands, so they are relabels that BLAS reads in place (fusion_rules.matmul_operand);
the transpose is a trans flag.

An IR rewrite rather than a lowering: the product and the reduction are two kernels after
fusion, and only the graph sees both. Applies when the reduction sums exactly the product's
batch axes (no kept axes), the product is its only use, the left operand is a last-two-axes
transpose and both operands carry the whole batch (a broadcast operand would be a different
sum). Not in canonicalize: the K products are summed in another order, so float32 results can
differ in the last bits. The old nodes are left for dce.
"""
from __future__ import annotations

import math

from ..graph import Graph
from ..ops import Op
from .rewriter import Rewriter


def _swapped_source(made, v):
    """x when v = transpose(x) of the last two axes, else None."""
    n = made.get(v)
    nd = len(v.type.shape)
    if n is None or n.op != Op.transpose or nd < 3:
        return None
    return n.inputs[0] if tuple(n.params["perm"]) == tuple(range(nd - 2)) + (nd - 1, nd - 2) else None


def _chain(node, made, users, outputs):
    """For a reduce_sum node: (a, c) of sum_b a_b^T c_b when it can be contracted, else None."""
    if node.op != Op.reduce_sum:
        return None
    mm = made.get(node.inputs[0])
    if (mm is None or mm.op != Op.matmul or len(users.get(mm.output, ())) != 1
            or mm.output in outputs):
        return None
    batch = mm.output.type.shape[:-2]
    if (not batch or tuple(node.params["axes"]) != tuple(range(len(batch)))
            or node.output.type.shape != mm.output.type.shape[-2:]):
        return None
    a, c = _swapped_source(made, mm.inputs[0]), mm.inputs[1]
    if a is None or a.type.shape[:-2] != batch or c.type.shape[:-2] != batch:
        return None
    return a, c


def contract_batch(graph: Graph) -> Graph:
    rw = Rewriter(graph, subgraph_pass=contract_batch)
    users, outputs = graph.consumers(), set(graph.outputs)
    made = {v: n for n in graph.nodes for v in n.outputs}
    for node in graph.nodes:
        chain = _chain(node, made, users, outputs)
        if chain is None:
            rw.keep(node)
            continue
        a, c = (rw.get(v) for v in chain)
        rows = math.prod(a.type.shape[:-1])
        si = node.source_info
        a2 = rw.emit(Op.reshape, (a,), {"shape": (rows, a.type.shape[-1])}, si)
        c2 = rw.emit(Op.reshape, (c,), {"shape": (rows, c.type.shape[-1])}, si)
        at = rw.emit(Op.transpose, (a2,), {"perm": (1, 0)}, si)
        mm = made[node.inputs[0]]
        rw.replace(node, (rw.emit(Op.matmul, (at, c2), mm.params, mm.source_info),))
    return rw.finish()
