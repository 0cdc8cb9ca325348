"""sort and argsort as LLVM opaque kernels: a stable bottom-up merge sort of each line along
the axis, NaN last (NumPy's order: NaN compares greater than everything, equal to itself).

Each line (p, q) of the (before, axis, after) view is gathered with its positions into a scratch
pair, merged in passes of width 1, 2, 4, ... (the passes are unrolled: the axis length is
known), and its keys (sort) or positions (argsort) stored back. The merge is branch-free: both
heads are read clamped inside their runs, the right head is taken only when strictly less than
the left one (so equal keys keep their order: argsort is NumPy's kind="stable"). The scratch is
on the stack up to SCRATCH_STACK bytes, else malloc'd and freed.

`OPAQUE[op](fn, node, input pointers, output pointer)`: the entries opaque.OPAQUE takes.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ....ir.ops import Op
from ..llvm_exprs import I64
from .cumulative import pnq
from .heap import free, scratch


def _less(b, kind, x, y):
    """x < y in NumPy's sort order (floats: NaN last)."""
    if kind == "f":
        return b.or_(b.fcmp_ordered("<", x, y),
                     b.and_(b.fcmp_unordered("uno", y, y), b.fcmp_ordered("ord", x, x)))
    return (b.icmp_unsigned if kind in "ub" else b.icmp_signed)("<", x, y)


def _merge_pass(fn, kind, m, width, src, dst):
    """Merge the runs of `width` of src (keys, positions) into runs of 2 * width in dst."""
    b = fn.b
    c = lambda v: ir.Constant(I64, v)       # noqa: E731
    i_slot, j_slot = fn.alloca(I64), fn.alloca(I64)
    with fn.loop(-(-m // (2 * width))) as blk:
        lo = b.mul(blk, c(2 * width))
        mid = b.select(b.icmp_signed("<", b.add(lo, c(width)), c(m)), b.add(lo, c(width)), c(m))
        hi = b.select(b.icmp_signed("<", b.add(lo, c(2 * width)), c(m)), b.add(lo, c(2 * width)),
                      c(m))
        b.store(lo, i_slot)
        b.store(mid, j_slot)
        with fn.loop(hi, lo) as k:
            i, j = b.load(i_slot), b.load(j_slot)
            i_in, j_in = b.icmp_signed("<", i, mid), b.icmp_signed("<", j, hi)
            ic = b.select(i_in, i, b.sub(mid, c(1)))        # clamped: always a valid read
            jc = b.select(j_in, j, b.sub(hi, c(1)))
            ki, kj = b.load(b.gep(src[0], [ic])), b.load(b.gep(src[0], [jc]))
            right = b.and_(j_in, b.or_(b.not_(i_in), _less(b, kind, kj, ki)))
            b.store(b.select(right, kj, ki), b.gep(dst[0], [k]))
            pi, pj = b.load(b.gep(src[1], [ic])), b.load(b.gep(src[1], [jc]))
            b.store(b.select(right, pj, pi), b.gep(dst[1], [k]))
            b.store(b.select(right, i, b.add(i, c(1))), i_slot)
            b.store(b.select(right, b.add(j, c(1)), j), j_slot)


def _sort(fn, n, x, out):
    P, m, Q = pnq(n.inputs[0].type.shape, n.params["axis"])
    if P * m * Q == 0:
        return
    b = fn.b
    kind = np.dtype(n.inputs[0].type.dtype).kind
    kty = x[0].type.pointee
    kbytes = np.dtype(n.inputs[0].type.dtype).itemsize
    bufs = [(scratch(fn, kty, kbytes, m), scratch(fn, I64, 8, m)) for _ in range(2)]
    pair = [(keys[0], pos[0]) for keys, pos in bufs]
    widths = []
    while (1 << len(widths)) < m:
        widths.append(1 << len(widths))
    c = lambda v: ir.Constant(I64, v)       # noqa: E731

    def line(pq):
        p, q = pq
        base = b.add(b.mul(p, c(m * Q)), q)
        with fn.loop(m) as i:
            at = b.add(base, b.mul(i, c(Q)))
            b.store(b.load(b.gep(x[0], [at])), b.gep(pair[0][0], [i]))
            b.store(i, b.gep(pair[0][1], [i]))
        for k, w in enumerate(widths):
            _merge_pass(fn, kind, m, w, pair[k % 2], pair[1 - k % 2])
        done = pair[len(widths) % 2]
        with fn.loop(m) as i:
            at = b.add(base, b.mul(i, c(Q)))
            if n.op == Op.sort:
                b.store(b.load(b.gep(done[0], [i])), b.gep(out, [at]))
            else:
                v = b.load(b.gep(done[1], [i]))
                width = out.type.pointee.width
                b.store(v if width == 64 else b.trunc(v, out.type.pointee), b.gep(out, [at]))
    fn.nest((P, Q), line)
    for buf in bufs:
        for ptr, heap in buf:
            if heap:
                free(fn, ptr)


OPAQUE = {Op.sort: _sort, Op.argsort: _sort}
