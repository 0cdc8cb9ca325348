"""fold_transposes: a transposed matrix product becomes the product of transposed operands,
(A B)^T = B^T A^T, so the transpose is read by BLAS as trans flags instead of copied.

The weight gradient of `x @ W.T` is where this matters: autodiff gives dW = (x^T dY)^T, a GEMM
followed by a transpose kernel copying the whole [out, in] gradient (12.6% of the MLP step in the
model benchmark's profile). Rewritten, dW = dY^T x: one GEMM whose operand transposes fuse into
it (fusion_rules.is_matmul_prologue), and a transpose of a transpose collapses (x^T^T = x).

Applies to a transpose of the last two axes of a matmul whose only use it is, with both operands
at least 2-D (batch axes broadcast the same either way), and through a `reduce_sum` over batch
axes only between them (the weight gradient of a layer applied to [B, T, D] activations is
sum_b (x_b^T dY_b), then transposed): sum_b (x_b^T dY_b)^T = sum_b dY_b^T x_b. Not in
canonicalize: BLAS may sum the K products in another order for the swapped operands, so results
can differ in the last bits. The old nodes are left for dce.
"""
from __future__ import annotations

from ..graph import Graph
from ..ops import Op
from .rewriter import Rewriter


def _swap_last(n: int) -> tuple:
    return tuple(range(n - 2)) + (n - 1, n - 2)


def _uses(graph: Graph) -> dict:
    uses: dict = {}
    for node in graph.nodes:
        for v in node.inputs:
            uses[v] = uses.get(v, 0) + 1
    for v in graph.outputs:
        uses[v] = uses.get(v, 0) + 1
    return uses


def _transposed(rw, v, source_info):
    """v with its last two axes swapped, composed with v's own transpose when it has one."""
    n = len(v.type.shape)
    perm = _swap_last(n)
    inner = rw.producer.get(v)
    if inner is not None and inner.op == Op.transpose:
        v, perm = inner.inputs[0], tuple(inner.params["perm"][p] for p in perm)
    if perm == tuple(range(n)):
        return v
    return rw.emit(Op.transpose, (v,), {"perm": perm}, source_info)


def _folded_chain(node, made, uses):
    """For a transpose node: (matmul, reduce_sum or None) when it can be folded, else None."""
    if node.op != Op.transpose or node.params["perm"] != _swap_last(len(node.output.type.shape)):
        return None
    mid = made.get(node.inputs[0])
    red = None
    if mid is not None and mid.op == Op.reduce_sum and uses.get(mid.output) == 1:
        n = len(mid.inputs[0].type.shape)
        axes = tuple(mid.params["axes"])
        if len(mid.output.type.shape) != n - len(axes) or any(a >= n - 2 for a in axes):
            return None                 # keeps reduced axes, or reduces a matrix axis
        red, mid = mid, made.get(mid.inputs[0])
    if (mid is None or mid.op != Op.matmul or uses.get(mid.output) != 1
            or any(len(v.type.shape) < 2 for v in mid.inputs)):
        return None
    return mid, red


def fold_transposes(graph: Graph) -> Graph:
    rw = Rewriter(graph, subgraph_pass=fold_transposes)
    uses = _uses(graph)
    made = {v: n for n in graph.nodes for v in n.outputs}
    for node in graph.nodes:
        chain = _folded_chain(node, made, uses)
        if chain is None:
            rw.keep(node)
            continue
        mm, red = chain
        a, b = (rw.get(v) for v in mm.inputs)
        out = rw.emit(Op.matmul, (_transposed(rw, b, node.source_info),
                                  _transposed(rw, a, node.source_info)),
                      mm.params, mm.source_info)
        if red is not None:
            out = rw.emit(Op.reduce_sum, (out,), red.params, red.source_info)
        rw.replace(node, (out,))
    return rw.finish()
