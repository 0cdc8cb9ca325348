"""Batching rules of the primitives (their records name them): fn(e, node, args, batched) -> [(value, batched)].

`node` is the per-example node (its params and types), `args` its inputs in the batched graph,
`batched[i]` whether args[i] carries the batch axis (always axis 0, see emitter.py). A rule is
called only when at least one input is batched, and returns one (value, is_batched) per output.
Every rule emits ordinary primitives, so a batched graph fuses and compiles like any other.
"""
from __future__ import annotations

import numpy as np

from ..ops import Op


def elementwise(e, node, args, batched):
    rank = node.outputs[0].type.ndim
    lifted = [e.lift(a, b, rank) for a, b in zip(args, batched)]
    return [(e(node.op, *lifted, **node.params), True)]


def shift(key):
    """Rules of one-input ops whose param `key` holds axes (a tuple) or one axis (an int)."""
    def rule(e, node, args, batched):
        p = node.params[key]
        moved = tuple(a + 1 for a in p) if isinstance(p, tuple) else p + 1
        return [(e(node.op, args[0], **{**node.params, key: moved}), True)]
    return rule


def prepend(**extra):
    """Rules of one-input ops whose per-axis params get one entry for the batch axis in front."""
    def rule(e, node, args, batched):
        p = dict(node.params)
        for key, value in extra.items():
            p[key] = ((e.size if value is None else value),) + tuple(p[key])
        return [(e(node.op, args[0], **p), True)]
    return rule


def transpose(e, node, args, batched):
    perm = (0,) + tuple(p + 1 for p in node.params["perm"])
    return [(_permute(e, args[0], perm), True)]


def _permute(e, x, perm):
    """transpose(x, perm), emitted as a reshape when it only moves size-1 axes, and pushed into
    the operands of a broadcast product (the per-example outer products of weight gradients),
    so the large result is written once, already in its final order."""
    shape = x.type.shape
    out = tuple(shape[p] for p in perm)
    if [p for p in perm if shape[p] != 1] == [i for i, d in enumerate(shape) if d != 1]:
        return e.reshape(x, out)
    made = _producer(e, x)
    if made is not None and made.op is Op.mul and all(
            v.type.ndim == x.type.ndim and v.type.size < x.type.size for v in made.inputs):
        return e.mul(*[_permute(e, v, perm) for v in made.inputs])
    return e.transpose(x, perm)


def _producer(e, v, window=4):
    """The node that just produced `v` in the graph being built (None if not among the last
    few); rules use it for local rewrites of what they emitted themselves."""
    for n in e.b.graph.nodes[-window:]:
        if v in n.outputs:
            return n
    return None


def broadcast_to(e, node, args, batched):
    shape = node.params["shape"]
    x = e.lift(args[0], True, len(shape))
    return [(e(Op.broadcast_to, x, shape=(e.size,) + tuple(shape)), True)]


def concatenate(e, node, args, batched):
    parts = [e.batched(a, b) for a, b in zip(args, batched)]
    return [(e(Op.concatenate, *parts, axis=node.params["axis"] + 1), True)]


# ----------------------------------------------------------------------------- indexing

def _flat_positions(e, idx, n):
    """Per-example indices idx[B, ...] into an axis of size n, as positions into the B * n rows
    of the examples stacked along that axis. Negative indices wrap; an out-of-range one maps to
    row B * n, so the gather/scatter still reports it (IndexError) instead of reading another
    example's row."""
    dt = idx.type.dtype
    wrapped = e.select(e(Op.lt, idx, e.const(0, dt)), e.add(idx, n), idx)
    ok = e(Op.logical_and, e(Op.ge, wrapped, e.const(0, dt)), e(Op.lt, wrapped, e.const(n, dt)))
    offsets = (np.arange(e.size, dtype=dt) * n).reshape((e.size,) + (1,) * (idx.type.ndim - 1))
    return e.select(ok, e.add(wrapped, e.const(offsets, dt)), e.size * n)


def take(e, node, args, batched):
    (x, idx), (bx, bi), axis = args, batched, node.params["axis"]
    if not bi:
        return [(e(Op.take, x, idx, axis=axis + 1), True)]
    if not bx:      # the batch axis of idx lands at position `axis` of the result
        return [(e.move_axis(e(Op.take, x, idx, axis=axis), axis, 0), True)]
    # both batched: gather rows of [B * n, rest...], where rest = x's axes other than `axis`
    n, rest = x.type.shape[axis + 1], x.type.shape[1:axis + 1] + x.type.shape[axis + 2:]
    rows = e.reshape(e.move_axis(x, axis + 1, 1), (e.size * n,) + rest)
    out = e(Op.take, rows, _flat_positions(e, idx, n), axis=0)     # [B, idx..., rest...]
    k = idx.type.ndim - 1
    perm = [0] + list(range(1 + k, 1 + k + axis)) + list(range(1, 1 + k)) \
        + list(range(1 + k + axis, out.type.ndim))
    return [(e.transpose(out, perm), True)]


def scatter_add(e, node, args, batched):
    (idx, upd), (bi, bu) = args, batched
    shape, axis = tuple(node.params["shape"]), node.params["axis"]
    if not bi:
        return [(e(Op.scatter_add, idx, upd, shape=(e.size,) + shape, axis=axis + 1), True)]
    upd = e.batched(upd, bu)                # [B, shape[:axis], idx..., shape[axis+1:]]
    k, n = idx.type.ndim - 1, shape[axis]
    perm = [0] + list(range(1 + axis, 1 + axis + k)) + list(range(1, 1 + axis)) \
        + list(range(1 + axis + k, upd.type.ndim))
    rest = shape[:axis] + shape[axis + 1:]
    out = e(Op.scatter_add, _flat_positions(e, idx, n), e.transpose(upd, perm),
            shape=(e.size * n,) + rest, axis=0)
    out = e.reshape(out, (e.size, n) + rest)
    return [(e.move_axis(out, 1, axis + 1), True)]


# ----------------------------------------------------------------------------- matmul

def matmul(e, node, args, batched):
    (a, b), (ba, bb) = args, batched
    out = node.outputs[0].type
    if ba and not bb and b.type.ndim == 2:
        # every example's rows against one matrix: a single GEMM over [B * rows, k]
        k = a.type.shape[-1]
        rows = e.reshape(a, (int(np.prod(a.type.shape[:-1], dtype=np.int64)), k))
        return [(e.reshape(e(Op.matmul, rows, b), (e.size,) + out.shape), True)]
    rank = out.ndim
    a, b = e.lift(a, ba, rank), e.lift(b, bb, rank)
    if a.type.shape[-1] == 1:
        # an outer product per example (per-example weight gradients): a broadcast multiply,
        # which fuses, instead of B tiny GEMMs
        return [(e.mul(a, b), True)]
    return [(e(Op.matmul, a, b), True)]


def linalg(e, node, args, batched):
    """The decompositions treat leading axes as a batch already: the vmapped axis is one more
    (an unbatched operand of solve is broadcast along it)."""
    outs = e.b.emit(node.op, [e.batched(a, b) for a, b in zip(args, batched)], node.params,
                    e.source_info)
    return [(o, True) for o in outs]
