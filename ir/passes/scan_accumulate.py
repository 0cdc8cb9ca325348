"""scan_accumulate: a scan carry that only sums per-step terms becomes one product after the loop,

    acc' = acc + a_t^T b_t  (every step)  ->  acc_0 + reshape(A, [T*K, M])^T reshape(B, [T*K, N])

where A, B are a_t, b_t stacked over the steps. Reverse mode of a scan makes this carry: the
weight gradient of `h @ W` in a recurrent cell is accumulated step by step in the backward scan,
a GEMM with K = batch (16 for the LSTM benchmark) per step plus a read and write of the whole
[M, N] accumulator, where one GEMM with K = T * batch after the loop does the same sum at full
speed. a_t is usually already stacked (a residual of the forward scan, an xs of the backward one)
and b_t (the gates' cotangent) a ys output; an operand that is neither becomes a new ys output.
A term `reduce_sum(x_t, axes)` (the bias gradient) becomes one reduce_sum over the stacked x.

Applies to a float carry whose input is read by exactly one node, `add(acc, term)` in either
order, whose result is the carry's output and used nowhere else; the term is a 2-D matmul
(operands transposed or not; a transposed operand is stacked untransposed and the transpose
done once after the loop) or a reduce_sum (TERMS). An initial value that is not zeros is added
after the loop. New stacked outputs are bounded (STACK_LIMIT bytes per scan): stacking a huge
per-step operand would cost more memory than the loop saves. Not in canonicalize: the T*K
products are summed in another order, so float results can differ in the last bits.
"""
from __future__ import annotations

import numpy as np

from ..control_flow import SCAN
from ..graph import Graph, Node
from ..ops import Op
from ..types import is_float
from .rewriter import Rewriter

STACK_LIMIT = 1 << 26      # bytes of new ys outputs one scan may gain


def _transposed_source(made, v):
    """x when the 2-D v = transpose(x), else None."""
    n = made.get(v)
    return n.inputs[0] if n is not None and n.op == Op.transpose and n.params["perm"] == (1, 0) \
        else None


class _Term:
    """A carry's per-step term: the body values to stack, and `combine(rw, stacked, si)` that
    sums the term over the steps from their stacked (outer) values."""

    def __init__(self, values, combine):
        self.values, self.combine = values, combine


def _matmul_term(node, made):
    p, q = node.inputs
    if len(p.type.shape) != 2 or len(q.type.shape) != 2:
        return None
    pt, qt = _transposed_source(made, p), _transposed_source(made, q)
    (m, k), n = p.type.shape, q.type.shape[1]

    def combine(rw, stacked, si):
        sp, sq = stacked
        t = sp.type.shape[0]
        if pt is not None:                               # sp [T, K, M]
            left = rw.emit(Op.transpose, (rw.emit(Op.reshape, (sp,), {"shape": (t * k, m)}, si),),
                           {"perm": (1, 0)}, si)
        else:                                            # sp [T, M, K]
            left = rw.emit(Op.reshape, (rw.emit(Op.transpose, (sp,), {"perm": (1, 0, 2)}, si),),
                           {"shape": (m, t * k)}, si)
        if qt is not None:                               # sq [T, N, K]
            sq = rw.emit(Op.transpose, (sq,), {"perm": (0, 2, 1)}, si)
        right = rw.emit(Op.reshape, (sq,), {"shape": (t * k, n)}, si)
        return rw.emit(Op.matmul, (left, right), node.params, node.source_info)
    return _Term([p if pt is None else pt, q if qt is None else qt], combine)


def _reduce_term(node, made):
    axes = (0,) + tuple(a + 1 for a in node.params["axes"])

    def combine(rw, stacked, si):
        return rw.emit(Op.reduce_sum, (stacked[0],), {**node.params, "axes": axes},
                       node.source_info)
    return _Term([node.inputs[0]], combine)


TERMS = {Op.matmul: _matmul_term, Op.reduce_sum: _reduce_term}


def _term(body, k, users, made):
    """The _Term of carry k when it is `acc' = acc + term` with acc read only there, else None."""
    acc, out = body.inputs[k], body.outputs[k]
    add = made.get(out)
    if (not is_float(acc.type.dtype) or add is None or add.op != Op.add
            or users.get(acc) != [add] or users.get(out) or acc in body.outputs
            or body.outputs.count(out) != 1):
        return None
    term = add.inputs[1] if add.inputs[0] is acc else add.inputs[0]
    producer = made.get(term)
    if term.type != acc.type or producer is None or producer.op not in TERMS:
        return None
    return TERMS[producer.op](producer, made)


def _plan(node):
    """{carry index: _Term} of a scan's accumulating carries ({} when none)."""
    body, nc = node.params["body"], node.params["n_carry"]
    users, made = body.consumers(), body.producers()
    found = {k: _term(body, k, users, made) for k in range(nc)}
    return {k: t for k, t in found.items() if t is not None}


def _stack_sources(node, terms):
    """Where each value to stack comes from: ("xs", j), ("ys", j) or ("new", j); and the new ys."""
    body, nc, nx = node.params["body"], node.params["n_carry"], node.params["n_xs"]
    xs, ys = body.inputs[nc:nc + nx], body.outputs[nc:]
    where, new = {}, []
    for t in terms.values():
        for v in t.values:
            if v in where:
                continue
            if v in xs:
                where[v] = ("xs", xs.index(v))
            elif v in ys:
                where[v] = ("ys", ys.index(v))
            else:
                where[v] = ("new", len(new))
                new.append(v)
    return where, new


def _new_body(body, nc, terms, new_ys):
    adds = {id(body.producers()[body.outputs[k]]) for k in terms}
    nodes = [Node(n.op, n.inputs, n.params, n.outputs, n.source_info)
             for n in body.nodes if id(n) not in adds]
    inputs = [v for i, v in enumerate(body.inputs) if i not in terms]
    outputs = ([v for i, v in enumerate(body.outputs[:nc]) if i not in terms]
               + list(body.outputs[nc:]) + list(new_ys))
    return Graph(inputs, nodes, outputs, body.name)


def _rewrite(rw, node, body, terms):
    p, nc = node.params, node.params["n_carry"]
    where, new_ys = _stack_sources(node, terms)
    ins = rw.inputs(node)
    new_inputs = [v for i, v in enumerate(ins) if i not in terms]
    params = {**p, "body": _new_body(body, nc, terms, new_ys), "n_carry": nc - len(terms)}
    outs = rw.emit(SCAN, new_inputs, params, node.source_info)
    outs = outs if isinstance(outs, tuple) else (outs,)
    kept = nc - len(terms)
    old_ys = outs[kept:kept + len(node.outputs) - nc]
    added = outs[kept + len(old_ys):]
    stacked_of = {"xs": lambda j: ins[nc + j], "ys": lambda j: old_ys[j], "new": lambda j: added[j]}
    si = node.source_info
    carries, it = [], iter(outs[:kept])
    for k in range(nc):
        if k not in terms:
            carries.append(next(it))
            continue
        total = terms[k].combine(rw, [stacked_of[where[v][0]](where[v][1])
                                      for v in terms[k].values], si)
        init = rw.literal(ins[k])
        carries.append(total if init is not None and not np.any(init)
                       else rw.emit(Op.add, (ins[k], total), {}, si))
    rw.replace(node, carries + list(old_ys))


def _new_bytes(node, terms):
    _, new = _stack_sources(node, terms)
    return sum(node.params["length"] * v.type.nbytes for v in new)


def scan_accumulate(graph: Graph) -> Graph:
    rw = Rewriter(graph, subgraph_pass=scan_accumulate)
    for node in graph.nodes:
        if node.op != SCAN:
            rw.keep(node)
            continue
        body = scan_accumulate(node.params["body"])      # inner loops first, once
        node = Node(node.op, node.inputs, {**node.params, "body": body}, node.outputs,
                    node.source_info)
        terms = _plan(node)
        if terms and _new_bytes(node, terms) <= STACK_LIMIT:
            _rewrite(rw, node, body, terms)
        else:       # emitted, not kept: keep would run this pass on the body again
            outs = rw.emit(SCAN, rw.inputs(node), node.params, node.source_info)
            rw.replace(node, outs if isinstance(outs, tuple) else (outs,))
    return rw.finish()
