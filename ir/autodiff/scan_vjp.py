"""Reverse mode of scan with saved residuals (JAX's partial evaluation of the body).

The body's VJP graph (c, x, k, ct_c', ct_y) -> (c', y, g_c, g_x, g_k) is split in two: the nodes
that do not depend on a cotangent (the forward part, which recomputes the body) and those that
do (the backward part). The forward part becomes the body of a forward scan that also stacks,
per step, every value of it the backward part reads (the residuals: one stacked buffer each,
written in place by the loop); the backward part becomes the body of a scan in the opposite
direction that reads them as xs. The forward scan computes the same carry as the primal scan,
so `merge_scans` makes them one loop: the body runs once forward and its backward once, with no
recomputation. Constants are copied into both parts (never stacked); values that depend only on
the scan's consts (the transposed weight of `h @ w`) are computed once before the loops; a shape
op whose result only the backward part reads is redone there, and so is a transpose of a
large const read only as a deep product's right operand (`_operand_view`). To recompute instead of
saving, checkpoint the body (`jg.checkpoint`): its remat node depends on the cotangents, so it
lands in the backward part whole. A cheap elementwise node of the forward part (add, mul,
`1 - s`: OP_COST at most "cheap") whose inputs the backward part reads anyway is copied into the
backward part instead of stacking its result: sigmoid's derivative s * (1 - s) is recomputed
from the stacked s, one stacked array fewer (`_recomputed_cheap`).
"""
from __future__ import annotations

from ..builder import Builder
from ..control_flow import SCAN
from ..graph import Graph
from ..ops import Op
from ..registry import COST, OP_COST, RECORDS
from ..types import is_float
from .emitter import Emitter
from .transform import vjp_graph


def _copy(b, nodes, env):
    for n in nodes:
        outs = b.emit(n.op, [env[v] for v in n.inputs], n.params, n.source_info)
        env.update(zip(n.outputs, outs))


# ops cheaper to redo in the backward part than to stack per step
_RECOMPUTED = frozenset({Op.transpose, Op.reshape, Op.broadcast_to, Op.convert})


def _split(vb: Graph, n_in: int, n_out: int, varying: set):
    """Classify a VJP graph's nodes (inputs from n_in on are cotangents; `varying`: the inputs
    that change per step). Returns (constant nodes, loop-invariant nodes, forward nodes,
    backward nodes): backward ones read a cotangent; forward ones a varying input; invariant
    ones only the scan's consts (hoisted out of the loops); shape ops of the forward part whose
    results only the backward part reads move to the backward part (their input is stacked, not
    their result)."""
    dep, var, inv = set(vb.inputs[n_in:]), set(varying), set(vb.inputs[:n_in]) - set(varying)
    consts, hoisted, fwd, bwd = [], [], [], []
    for n in vb.nodes:
        if any(v in dep for v in n.inputs):
            bwd.append(n)
            dep.update(n.outputs)
        elif any(v in var for v in n.inputs):
            fwd.append(n)
            var.update(n.outputs)
        elif any(v in inv for v in n.inputs):
            hoisted.append(n)
            inv.update(n.outputs)
        else:
            consts.append(n)
    in_bwd = {id(n) for n in bwd}
    views = [n for n in hoisted if _operand_view(n, vb, in_bwd)]
    hoisted = [n for n in hoisted if n not in views]
    bwd += views
    kept = set(vb.outputs[:n_out])
    for n in reversed(list(fwd)):
        reads = kept | {v for m in fwd for v in m.inputs}
        if n.op in _RECOMPUTED and not any(v in reads for v in n.outputs):
            fwd.remove(n)
            bwd.append(n)
    bwd += _recomputed_cheap(fwd, bwd, vb, n_in, n_out, set(vb.inputs[:n_in]) - set(varying))
    order = {id(n): i for i, n in enumerate(vb.nodes)}
    bwd.sort(key=lambda n: order[id(n)])
    return consts, hoisted, fwd, bwd


# a transposed matrix the backward part reads as a matmul's right operand stays a view in the
# loop body when the product contracts over at least VIEW_DEPTH elements and the matrix is over
# VIEW_BYTES (see _operand_view)
VIEW_DEPTH = 256
VIEW_BYTES = 256 << 10


def _operand_view(n, vb, in_bwd) -> bool:
    """n transposes a 2-D loop-invariant matrix read only as the right operand of backward-part
    matmuls (in_bwd: their ids), deep and large (the backward `g @ W_hh` of `h @ W_hh.T`,
    W_hh.T a scan const): kept in the body, the product reads the const with a transposed-
    operand flag (the small-GEMM dot form, along rows contiguous in K) where hoisted it was a
    copy read by the broadcast form, whose row tiles each sweep the whole matrix. One core,
    [20,4H] @ [4H,H] per step: H=200 (640 KB) 104-129 -> 89-103 us, H=256 (1 MB) 255 -> 172,
    H=160 (400 KB) 83 -> 79; [16,512] @ [512,128] (256 KB, in L2) was 6% slower as a view, so
    it stays hoisted, as does a shallow contraction (the dot form's tiles are then a few
    vector steps each)."""
    if n.op != Op.transpose or len(n.inputs[0].type.shape) != 2 \
            or any(v in vb.outputs for v in n.outputs):
        return False
    t = n.inputs[0].type
    if t.shape[1] < VIEW_DEPTH or t.nbytes <= VIEW_BYTES:
        return False
    readers = [m for m in vb.nodes if any(v in n.outputs for v in m.inputs)]
    return bool(readers) and all(id(m) in in_bwd and m.op == Op.matmul
                                 and m.inputs[0] not in n.outputs for m in readers)


def _cheap(n) -> bool:
    r = RECORDS.get(n.op)
    return r is not None and r.kind == "elementwise" and OP_COST[n.op] <= COST["cheap"]


def _recomputed_cheap(fwd, bwd, vb, n_in, n_out, free):
    """Forward nodes to compute again in the backward part (they stay in the forward part too,
    where dce drops them if nothing there reads them): cheap elementwise nodes whose inputs are
    all stacked anyway (read by the backward part), free (xs, consts, values of neither part)
    or results of such nodes, and whose results the backward part reads. The backward part then
    reads no new stacked value and at least one fewer."""
    produced = {v for n in fwd for v in n.outputs}
    reads = {v for n in bwd for v in n.inputs} | set(vb.outputs[n_out:])
    carries = set(vb.inputs[:n_in]) - free
    avail = {v for v in reads if v in produced or v in carries}
    movable, made = [], {}
    for n in fwd:
        if _cheap(n) and all(v in avail or (v not in produced and v not in carries)
                             for v in n.inputs):
            movable.append(n)
            avail.update(n.outputs)
            made.update((v, n) for v in n.outputs)
    needed, todo = set(), [made[v] for v in reads if v in made]
    while todo:
        n = todo.pop()
        if id(n) not in needed:
            needed.add(id(n))
            todo += [made[v] for v in n.inputs if v in made]
    return [n for n in movable if id(n) in needed]


def scan_vjp(e, node, cts):
    p, body = node.params, node.params["body"]
    nc, nx = p["n_carry"], p["n_xs"]
    n_in, n_out = len(body.inputs), len(body.outputs)
    carry, xs, consts = (list(node.inputs[:nc]), list(node.inputs[nc:nc + nx]),
                         list(node.inputs[nc + nx:]))
    nk, ny = len(consts), n_out - nc
    cts = [e.zeros(v.type) if c is None else c for v, c in zip(node.outputs, cts)]
    ct_carry, ct_ys = cts[:nc], cts[nc:]

    vb = vjp_graph(body, range(n_in), range(n_out))      # (c, x, k, ct_c', ct_y) -> (c', y, g)
    c_in, x_in, k_in = vb.inputs[:nc], vb.inputs[nc:nc + nx], vb.inputs[nc + nx:n_in]
    const_nodes, inv_nodes, fwd_nodes, bwd_nodes = _split(vb, n_in, n_out, set(c_in + x_in))
    produced = ({v for n in fwd_nodes for v in n.outputs}
                - {v for n in bwd_nodes for v in n.outputs})     # recomputed: not stacked
    invariant = {v for n in inv_nodes for v in n.outputs}
    read = [v for n in bwd_nodes for v in n.inputs] + list(vb.outputs[n_out:])
    residuals = list(dict.fromkeys(v for v in read if v in produced or v in c_in))
    hoisted = list(dict.fromkeys(v for v in read if v in invariant))

    # loop-invariant values the backward reads (w.T of h @ w): once, before the loops
    outer = dict(zip(k_in, consts))
    _copy(e.b, const_nodes + inv_nodes, outer)

    # forward: (c, x, k) -> (c', y, residuals stacked)
    fb = Builder(Graph(name=f"{body.name}_fwd"))
    env = {v: fb.add_input(v.type) for v in vb.inputs[:n_in]}
    _copy(fb, const_nodes + inv_nodes + fwd_nodes, env)
    fb.graph.outputs = [env[v] for v in vb.outputs[:n_out]] + [env[v] for v in residuals]
    fwd = list(e.b.emit(SCAN, carry + xs + consts,
                        {"body": fb.graph, "n_carry": nc, "n_xs": nx, "length": p["length"],
                         "reverse": p["reverse"]}, e.source_info))
    stacked = fwd[n_out:]

    # backward: carry (ct_c, acc_k), xs (residuals_i, x_i, ct_y_i), consts k
    bb = Builder(Graph(name=f"{body.name}_bwd"))
    be = Emitter(bb)
    ct_c = [bb.add_input(v.type) for v in c_in]
    acc = [bb.add_input(v.type) for v in k_in]
    env = {v: bb.add_input(v.type) for v in residuals}
    env.update({v: bb.add_input(v.type) for v in x_in})
    ct_y = [bb.add_input(v.type) for v in body.outputs[nc:]]
    env.update({v: bb.add_input(v.type) for v in k_in + hoisted})
    env.update(zip(vb.inputs[n_in:], ct_c + ct_y))
    _copy(bb, const_nodes + bwd_nodes, env)
    grads = [env[v] for v in vb.outputs[n_out:]]
    g_c, g_x, g_k = grads[:nc], grads[nc:nc + nx], grads[nc + nx:]
    bb.graph.outputs = g_c + [be.add(a, g) if is_float(a.type.dtype) else a
                              for a, g in zip(acc, g_k)] + g_x
    zeros_k = [e.zeros(v.type) for v in consts]
    out = list(e.b.emit(SCAN, ct_carry + zeros_k + stacked + xs + ct_ys + consts
                        + [outer[v] for v in hoisted],
                        {"body": bb.graph, "n_carry": nc + nk,
                         "n_xs": len(residuals) + nx + ny, "length": p["length"],
                         "reverse": not p["reverse"]}, e.source_info))
    ct_init, ct_k, ct_xs = out[:nc], out[nc:nc + nk], out[nc + nk:]
    return ct_init + ct_xs + ct_k
