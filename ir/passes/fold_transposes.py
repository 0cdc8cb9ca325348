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

Two more rules keep a transpose's copy in contiguous runs of the last axis (an element loop
that moves the last axis reads a cache line per element: a [8,64,4,32] -> [8,4,32,64] head
transpose took 31 us a call where (0,2,1,3) took 6, 16 of them in a GPT step):
- a transpose of a matmul (its only use) whose perm puts the product's row axis last is the
  folded product (B^T A^T) transposed with a perm that keeps its last axis (the gradient of
  `k` through `q @ k^T` with heads);
- a transpose read only as the left operand of matmuls whose perm brings its input's last axis
  second to last (in the attention's backward, a head tensor in [b, t, h, d] layout read with
  perm (0,2,3,1)) is transpose(x, (0,2,1,3))-style with the last axis kept, then the swap of
  the last two axes the matmul reads as its transposed-operand flag (a left operand is read
  with any strides). Not a right operand: transposed, a batch of shallow products (K = 32
  here) would run the dot form, whose horizontal sums cost more than the copy saves.
  Equal transposes made here are made once (cse has run already).
Uses are counted among live nodes: dce runs after this pass.
"""
from __future__ import annotations

from ..graph import Graph
from ..ops import Op
from .dce import live_nodes
from .rewriter import Rewriter


def _swap_last(n: int) -> tuple:
    return tuple(range(n - 2)) + (n - 1, n - 2)


def _readers(graph: Graph) -> dict:
    """The live nodes reading each value (dce runs after this pass: a value read by a dead
    node only, such as a transpose autodiff left unused, counts as read once), a graph output
    read by None."""
    readers: dict = {}
    for node in live_nodes(graph):
        for v in node.inputs:
            readers.setdefault(v, []).append(node)
    for v in graph.outputs:
        readers.setdefault(v, []).append(None)
    return readers


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
    """For a transpose node: (matmul, reduce_sum or None) when it can be folded, else None.
    Its perm swaps the last two axes, or (a matmul's own product, no reduce_sum between) moves
    the product's row axis last: the rest of it is then a transpose of the folded product
    that keeps the last axis last (_after_fold)."""
    if node.op != Op.transpose or len(node.output.type.shape) < 2:
        return None
    n = len(node.output.type.shape)
    perm = tuple(node.params["perm"])
    if perm != _swap_last(n):
        mid = made.get(node.inputs[0])
        if perm[-1] != n - 2 or mid is None or mid.op != Op.matmul:
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


def _after_fold(perm) -> tuple:
    """The transpose of the folded product (A B)^T = B^T A^T that gives transpose(A B, perm)."""
    swap = _swap_last(len(perm))
    return tuple(swap[p] for p in perm)


def _operand_split(node, readers):
    """For a transpose read only as matmul operands whose perm brings its input's last axis
    second to last (a gather: the element loop reads a cache line per element): the perm q
    with swap_last(transpose(x, q)) == transpose(x, perm), q keeping the last axis last (a copy
    of contiguous runs); the matmul reads the swap as its transposed-operand flag."""
    if node.op != Op.transpose:
        return None
    perm, n = tuple(node.params["perm"]), len(node.output.type.shape)
    mine = readers.get(node.output, ())
    if n < 3 or perm[-1] == n - 1 or perm[-2] != n - 1 or not mine or \
            any(u is None or u.op != Op.matmul or u.inputs[0] is not node.output
                or u.inputs[1] is node.output for u in mine):
        return None       # (a 2-D transpose is the swap itself)
    return tuple(perm[s] for s in _swap_last(n))


def fold_transposes(graph: Graph) -> Graph:
    rw = Rewriter(graph, subgraph_pass=fold_transposes)
    readers = _readers(graph)
    uses = {v: len(r) for v, r in readers.items()}
    made = {v: n for n in graph.nodes for v in n.outputs}
    seen: dict = {}       # (input, perm) -> a transpose made already (no cse runs after this)

    def transposed(x, perm, source_info):
        if perm == tuple(range(len(perm))):
            return x
        key = (x, perm)
        if key not in seen:
            seen[key] = rw.emit(Op.transpose, (x,), {"perm": perm}, source_info)
        return seen[key]
    for node in graph.nodes:
        chain = _folded_chain(node, made, uses)
        q = _operand_split(node, readers) if chain is None else None
        if q is not None:
            x = transposed(rw.get(node.inputs[0]), q, node.source_info)
            rw.replace(node, (transposed(x, _swap_last(len(q)), node.source_info),))
            continue
        if chain is None:
            rw.keep(node)
            if node.op == Op.transpose:
                seen.setdefault((rw.get(node.inputs[0]), tuple(node.params["perm"])),
                                rw.get(node.output))
            continue
        mm, red = chain
        a, b = (rw.get(v) for v in mm.inputs)
        out = rw.emit(Op.matmul, (_transposed(rw, b, node.source_info),
                                  _transposed(rw, a, node.source_info)),
                      mm.params, mm.source_info)
        if red is not None:
            out = rw.emit(Op.reduce_sum, (out,), red.params, red.source_info)
        else:
            out = transposed(out, _after_fold(tuple(node.params["perm"])), node.source_info)
        rw.replace(node, (out,))
    return rw.finish()
