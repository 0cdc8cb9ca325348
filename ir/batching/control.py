"""Batching rules of the ops that hold sub-graphs (ir/control_flow.py, custom_vjp_call), built by
batching the sub-graphs themselves:

- cond, unbatched predicate: a cond over the batched branches (an output is batched when it is
  in either branch). Batched predicate: both branches run on the whole batch and a select
  picks each example's result (as in JAX).
- while_loop: the carry entries that become batched are found by iterating the body's batching
  to a fixed point. Unbatched predicate: a while over the batched body. Batched predicate: the
  loop runs while ANY example's predicate holds, and the body keeps the carry of the examples
  that are done (select), so each example stops where it would have alone.
- scan: carry as for while_loop; batched xs are scanned over their second axis (the batch axis
  moves behind the scanned one) and batched ys come back with the batch axis first.
- custom_vjp_call: every input is made batched and body, fwd and bwd are batched over all of
  theirs; differentiating the result still inlines the user's (batched) rule.
"""
from __future__ import annotations

from ..autodiff.custom import CUSTOM_VJP
from ..builder import Builder
from ..control_flow import COND, SCAN, WHILE, branches, with_branches
from ..graph import Graph
from ..ops import Op
from .emitter import BatchEmitter
from .transform import batch_graph, batched_type


def _emit(e, op, inputs, params):
    return list(e.b.emit(op, list(inputs), params, e.source_info))


def _either(a, b):
    return [x or y for x, y in zip(a, b)]


def _carry_fixed_point(body, carry_b, rest_b, size):
    """The carry entries that are batched on every iteration: those batched on entry, plus
    those the body makes batched, until nothing changes."""
    carry_b = list(carry_b)
    while True:
        _, out_b = batch_graph(body, carry_b + rest_b, size)
        new = _either(carry_b, out_b[:len(carry_b)])
        if new == carry_b:
            return carry_b
        carry_b = new


def _graph_over(name, like, flags, size, build):
    """A new graph whose inputs are typed like `like`'s (batched where `flags` says);
    build(emitter, inputs) returns its outputs."""
    b = Builder(Graph(name=name))
    ins = [b.add_input(batched_type(v.type, size) if f else v.type)
           for v, f in zip(like.inputs, flags)]
    b.graph.outputs = build(BatchEmitter(b, size), ins)
    return b.graph


# ----------------------------------------------------------------------------- cond

def _select_branches(e, node, args, flags):
    """A batched index or predicate: every branch runs on the whole batch and each example's
    result is selected from its own branch (as JAX)."""
    index, ops_ = args[0], args[1:]
    picked = []
    for branch in branches(node.op, node.params):
        g, out_b = batch_graph(branch, flags[1:], e.size)
        picked.append(list(zip(e.inline(g, ops_), out_b)))
    if node.op == COND:
        masks = [None, index]
    else:       # branch k where clamp(index) == k: the last branch takes every index above
        last = len(picked) - 1
        masks = [None] + [e(Op.ge, index, e.const(k, index.type.dtype)) for k in range(1, last + 1)]
    res = []
    for j, o in enumerate(node.outputs):
        rank = o.type.ndim
        v, _ = picked[0][j]
        out = e.lift(v, picked[0][j][1], rank)
        for k in range(1, len(picked)):
            vk, bk = picked[k][j]
            out = e(Op.select, e.lift(masks[k], True, rank), e.lift(vk, bk, rank), out)
        res.append((out, True))
    return res


def branch_op(e, node, args, flags):
    """cond / switch: a batched index selects per example; else the same op over the batched
    branches."""
    if flags[0]:
        return _select_branches(e, node, args, flags)
    gs = branches(node.op, node.params)
    out_b = [False] * len(node.outputs)
    for g in gs:
        out_b = _either(out_b, batch_graph(g, flags[1:], e.size)[1])
    batched = [batch_graph(g, flags[1:], e.size, force_out=out_b)[0] for g in gs]
    outs = _emit(e, node.op, args, with_branches(node.op, batched))
    return list(zip(outs, out_b))


# ----------------------------------------------------------------------------- while_loop

def while_loop(e, node, args, flags):
    p, size = node.params, e.size
    nc, cond, body = p["n_carry"], p["cond"], p["body"]
    k_b = list(flags[nc:])
    carry_b = _carry_fixed_point(body, flags[:nc], k_b, size)
    _, (pred_b,) = batch_graph(cond, carry_b + k_b, size)
    if pred_b:
        carry_b = [True] * nc
    bcond, _ = batch_graph(cond, carry_b + k_b, size)
    bbody, _ = batch_graph(body, carry_b + k_b, size, force_out=carry_b)
    if pred_b:
        per_lane_cond, per_lane_body = bcond, bbody

        def any_lane(be, ins):
            return [be(Op.reduce_max, be.inline(per_lane_cond, ins)[0], axes=(0,))]

        def masked_body(be, ins):
            going = be.inline(per_lane_cond, ins)[0]
            new = be.inline(per_lane_body, ins)
            return [be(Op.select, be.lift(going, True, c.type.ndim - 1), n, c)
                    for n, c in zip(new, ins[:nc])]
        in_flags = carry_b + k_b
        bcond = _graph_over(f"{cond.name}_any", cond, in_flags, size, any_lane)
        bbody = _graph_over(f"{body.name}_masked", body, in_flags, size, masked_body)
    carry = [e.batched(a, f) if want else a
             for a, f, want in zip(args[:nc], flags[:nc], carry_b)]
    outs = _emit(e, WHILE, carry + list(args[nc:]), {"cond": bcond, "body": bbody, "n_carry": nc})
    return list(zip(outs, carry_b))


# ----------------------------------------------------------------------------- scan

def scan(e, node, args, flags):
    p, size = node.params, e.size
    nc, nx = p["n_carry"], p["n_xs"]
    xs_b, k_b = list(flags[nc:nc + nx]), list(flags[nc + nx:])
    carry_b = _carry_fixed_point(p["body"], flags[:nc], xs_b + k_b, size)
    ny = len(p["body"].outputs) - nc
    body, out_b = batch_graph(p["body"], carry_b + xs_b + k_b, size,
                              force_out=carry_b + [False] * ny)
    carry = [e.batched(a, f) if want else a
             for a, f, want in zip(args[:nc], flags[:nc], carry_b)]
    xs = [e.move_axis(x, 0, 1) if b else x for x, b in zip(args[nc:nc + nx], xs_b)]
    outs = _emit(e, SCAN, carry + xs + list(args[nc + nx:]), {**p, "body": body})
    ys = [e.move_axis(y, 1, 0) if b else y for y, b in zip(outs[nc:], out_b[nc:])]
    return list(zip(outs[:nc] + ys, carry_b + out_b[nc:]))


# ----------------------------------------------------------------------------- custom_vjp

def custom_vjp(e, node, args, flags):
    def all_batched(g):
        return batch_graph(g, [True] * len(g.inputs), e.size, force_out=[True] * len(g.outputs))[0]
    params = {k: all_batched(node.params[k]) for k in ("body", "fwd", "bwd")}
    outs = _emit(e, CUSTOM_VJP, [e.batched(a, f) for a, f in zip(args, flags)], params)
    return [(o, True) for o in outs]
