"""Derivatives of structured control flow (ir/control_flow.py), built from the graph transforms
applied to the sub-graphs:

- cond / switch: each branch is differentiated; the result is the same op over the derivative
  branches.
- scan, forward mode: one scan whose body is the body's JVP (carry and tangent carried together).
- scan, reverse mode: ir/autodiff/scan_vjp.py (residuals stacked once per value, loop
  invariants hoisted, a reverse scan over the body's VJP).
- while_loop: forward mode only. Its trip count is dynamic, so reverse mode would need unbounded
  storage; as in JAX, use fori_loop with static bounds or scan.
"""
from __future__ import annotations

from ..builder import Builder
from ..control_flow import SCAN, WHILE, branches, with_branches
from ..graph import Graph
from ..types import TensorType
from .emitter import Emitter
from .transform import jvp_graph, prune, vjp_graph


def _emit(e, op, inputs, params):
    return list(e.b.emit(op, list(inputs), params, e.source_info))


def _tail(graph: Graph, start: int) -> Graph:
    """`graph` returning only its outputs from `start` on (dead nodes pruned)."""
    g = Graph(list(graph.inputs), list(graph.nodes), list(graph.outputs[start:]), graph.name)
    return prune(g)


def _or_zeros(e, values, like):
    return [v if v is not None else e.zeros(t) for v, t in zip(values, like)]


# ----------------------------------------------------------------------------- cond

def branch_vjp(e, node, cts):
    """cond / switch: the same op choosing among the branches' VJPs."""
    n_out, ops_ = len(node.outputs), list(node.inputs[1:])
    cts = _or_zeros(e, cts, [v.type for v in node.outputs])
    gs = [_tail(vjp_graph(g, range(len(ops_)), range(n_out)), n_out)
          for g in branches(node.op, node.params)]
    return [None] + _emit(e, node.op, [node.inputs[0]] + ops_ + cts, with_branches(node.op, gs))


def branch_jvp(e, node, ts):
    """cond / switch: the same op choosing among the branches' JVPs."""
    ops_ = list(node.inputs[1:])
    tans = _or_zeros(e, ts[1:], [v.type for v in ops_])
    n_out = len(node.outputs)
    gs = [_tail(jvp_graph(g, range(len(ops_))), n_out) for g in branches(node.op, node.params)]
    return _emit(e, node.op, [node.inputs[0]] + ops_ + tans, with_branches(node.op, gs))


# ----------------------------------------------------------------------------- scan

def _split(p, values):
    nc, nx = p["n_carry"], p["n_xs"]
    return list(values[:nc]), list(values[nc:nc + nx]), list(values[nc + nx:])


def _slice_type(t):
    return TensorType(t.shape[1:], t.dtype)


def scan_jvp(e, node, ts):
    p, body = node.params, node.params["body"]
    carry, xs, consts = _split(p, node.inputs)
    t_carry, t_xs, t_consts = _split(p, _or_zeros(e, ts, [v.type for v in node.inputs]))
    nc, nx = len(carry), len(xs)
    jb = jvp_graph(body, range(len(body.inputs)))      # (c, x, k, tc, tx, tk) -> (c', y, tc', ty)
    # reorder to the scan layout: carry = (c, tc), xs = (x, tx), consts = (k, tk)
    b = Builder(Graph(name=f"{body.name}_jvp"))
    c_in = [b.add_input(v.type) for v in body.inputs[:nc]]
    tc_in = [b.add_input(v.type) for v in body.inputs[:nc]]
    x_in = [b.add_input(v.type) for v in body.inputs[nc:nc + nx]]
    tx_in = [b.add_input(v.type) for v in body.inputs[nc:nc + nx]]
    k_in = [b.add_input(v.type) for v in body.inputs[nc + nx:]]
    tk_in = [b.add_input(v.type) for v in body.inputs[nc + nx:]]
    outs = Emitter(b).inline(jb, c_in + x_in + k_in + tc_in + tx_in + tk_in)
    n_body_out = len(body.outputs)
    prim, tan = outs[:n_body_out], outs[n_body_out:]
    b.graph.outputs = prim[:nc] + tan[:nc] + prim[nc:] + tan[nc:]
    res = _emit(e, SCAN, carry + t_carry + xs + t_xs + consts + t_consts,
                {"body": b.graph, "n_carry": 2 * nc, "n_xs": 2 * nx, "length": p["length"],
                 "reverse": p["reverse"]})
    ny = n_body_out - nc
    return res[nc:2 * nc] + res[2 * nc + ny:]      # the carry's and the ys' tangents


# ----------------------------------------------------------------------------- while_loop

def while_jvp(e, node, ts):
    p = node.params
    nc = p["n_carry"]
    carry, consts = list(node.inputs[:nc]), list(node.inputs[nc:])
    tans = _or_zeros(e, ts, [v.type for v in node.inputs])
    t_c, t_k = tans[:nc], tans[nc:]
    cond, body = p["cond"], p["body"]
    jb = jvp_graph(body, range(len(body.inputs)))      # (c, k, tc, tk) -> (c', tc')

    def layout(name, outputs_of):
        """A sub-graph over the while layout (c, tc, k, tk)."""
        b = Builder(Graph(name=name))
        c_in = [b.add_input(v.type) for v in body.inputs[:nc]]
        tc_in = [b.add_input(v.type) for v in body.inputs[:nc]]
        k_in = [b.add_input(v.type) for v in body.inputs[nc:]]
        tk_in = [b.add_input(v.type) for v in body.inputs[nc:]]
        b.graph.outputs = outputs_of(Emitter(b), c_in, tc_in, k_in, tk_in)
        return b.graph

    new_cond = layout(f"{cond.name}_jvp", lambda be, c, tc, k, tk: be.inline(cond, c + k))
    new_body = layout(f"{body.name}_jvp", lambda be, c, tc, k, tk: be.inline(jb, c + k + tc + tk))
    res = _emit(e, WHILE, carry + t_c + consts + t_k,
                {"cond": new_cond, "body": new_body, "n_carry": 2 * nc})
    return res[nc:]


def while_vjp(e, node, cts):
    raise TypeError("reverse-mode differentiation (grad, vjp) of jg.while_loop is not supported: "
                    "its trip count is only known at run time. Use jg.fori_loop with Python-int "
                    "bounds or jg.scan, which are reverse-differentiable (as in JAX)")
