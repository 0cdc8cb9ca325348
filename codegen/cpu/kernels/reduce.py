"""Reduction kernels as LLVM IR (the ReduceNest of codegen/kernel/nest.py): scalar accumulators
when the reduced axes are innermost, else accumulator rows walked in memory order; long float
sums in blocks (a float32 sum's blocks added up in float64; a float32 column sum over axis 0 in
groups of rows, added up in float64 rows); a full reduction in REDUCE_BLOCKS partial results on
the pool."""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir

from ...kernel.costs import SUM_BLOCK
from ...kernel.reducers import REDUCER_KIND
from ...kernel.nest import reduce_nest
from ..llvm_exprs import F32, F64, I8, I64, ltype
from .accumulators import Accs
from .function import GRAIN, SCRATCH_STACK, UNROLL_TRIPS, Point, LoopOffsets, extern, unravel

COLUMN_MIN = 16                   # columns per block of a parallel column reduction at least
WIDE_BLOCK = 256                  # elements of a block of a float32 sum (_blocked)
COLUMN_GROUP = 128                # rows of axis 0 a long float column sum adds up on their own
REDUCE_BLOCKS = 32                # partial results of a parallel full reduction (fixed: the
                                  # result does not depend on the number of threads)


def gen_reduce(fn):
    nest = reduce_nest(fn.body, fn.info)
    reds, D, axes, kept, rshape = nest.reds, nest.domain, nest.axes, nest.kept, nest.rshape
    pre, post = nest.pre, nest.post
    if math.prod(D) == 0 and math.prod(rshape) == 0:
        return
    full = {v: fn.shape_in(v) for v in fn.info.maps}
    part = {v: fn.shape_in(v, axes) for v in fn.info.maps}
    shapes = {v: full[v] if fn.reduced(v) else part[v] for v in fn.info.maps}
    inner = [D[d] for d in axes]
    accs = Accs(fn, reds, window=nest.layout != "columns" and bool(inner)
                 and max(inner) <= UNROLL_TRIPS, keyed=nest.layout != "columns")
    if nest.layout == "columns":
        return _reduce_outer(fn, accs, D, axes, kept, rshape, pre, post, shapes, part)
    sums = [n for n in reds if REDUCER_KIND[n.op][0] in ("sum", "prod")]

    def kept_body(kidx):
        rspace = LoopOffsets(fn, rshape, kidx)
        accs.init()

        def point(ridx, slots=None):
            at = dict(zip(kept, kidx))
            at.update(zip(axes, ridx))
            xspace = LoopOffsets(fn, D, [at[d] for d in range(len(D))])
            p = Point(fn, lambda v: xspace if fn.reduced(v) else rspace, shapes)
            for n in reds:
                accs.update(n, p.expr(n.inputs[0]), (slots or {}).get(n),
                            ridx[-1] if ridx else None)
            p.store_all(pre)

        if sums and inner and math.prod(inner) > _block(accs, sums, inner):
            _blocked(fn, accs, sums, inner, point)
        else:
            fn.nest(inner, point)
        p = Point(fn, lambda v: rspace, part, accs.results())
        p.store_all(post)

    fn.outer_nest(rshape, kept_body, flat=True)


def _blocked(fn, accs, sums, inner, point):
    """A long sum in blocks of at most _block() elements, each summed on its own first and
    added to a total (float64 for a float32 sum): float32 rounding error grows with the block
    size, not with the length. A block is a run of the innermost reduced axis, or whole runs
    of the axes after reduced axis t - 1, g at a time (BatchNorm's mean over (0, 2, 3): 64
    runs summed one after the other gave ~10x NumPy's error)."""
    b, size = fn.b, _block(accs, sums, inner)
    t = next(t for t in range(1, len(inner) + 1) if math.prod(inner[t:]) <= size)
    n, g = inner[t - 1], size // math.prod(inner[t:])
    blocks = {r: fn.alloca(accs.ty(r)) for r in sums}
    totals = {r: fn.alloca(F64) for r in sums if _widened(accs, r)}
    for r in totals:
        b.store(ir.Constant(F64, 0.0), totals[r])

    def outer(oidx):
        with fn.loop(_kept_rolled(-(-n // g))) as blk:
            accs.init(blocks)
            lo = b.mul(blk, ir.Constant(I64, g))
            hi = b.add(lo, ir.Constant(I64, g))
            hi = b.select(b.icmp_signed("<", hi, ir.Constant(I64, n)), hi, ir.Constant(I64, n))
            with fn.loop(hi, lo) as j:
                fn.nest(inner[t:], lambda idx: point([*oidx, j, *idx], blocks))
            for r in sums:
                if r in totals:
                    b.store(b.fadd(b.load(totals[r]), b.fpext(b.load(blocks[r]), F64)), totals[r])
                else:
                    accs.update(r, b.load(blocks[r]))
    fn.nest(inner[:t - 1], outer)
    for r in totals:
        accs.update(r, b.fptrunc(b.load(totals[r]), F32))


def _kept_rolled(trips: int):
    """A loop of blocks as an IR constant, which Fn.loop never unrolls: each trip is a loop
    nest, and unrolling 2-4 of them only multiplied LLVM's work (BatchNorm's mean and variance
    kernels 24 -> 46 ms to compile, ResNet's cold first call 1.0 -> 1.5 s)."""
    return ir.Constant(I64, trips)


def _block(accs, sums, inner) -> int:
    """The elements of a block of _blocked: SUM_BLOCK of an innermost reduced axis longer than
    that; else whole runs of the inner axes, WIDE_BLOCK elements where a float32 sum adds its
    blocks up in float64 (short blocks cost one more float64 add each), else SUM_BLOCK."""
    if inner[-1] > SUM_BLOCK or not any(_widened(accs, n) for n in sums):
        return SUM_BLOCK
    return WIDE_BLOCK


def _widened(accs, n) -> bool:
    """Whether a sum's blocks or groups add up in float64: a float32 sum."""
    return REDUCER_KIND[n.op][0] == "sum" and accs.dtype(n) == np.float32


def gen_reduce_blocks(fn):
    """A full reduction on the thread pool: the first reduced axis cut into REDUCE_BLOCKS
    blocks (a 1-D float sum: runs of SUM_BLOCK-element sums), each block's accumulators into a
    row of partial results on the kernel's stack, folded in block order after the pool returns."""
    info, b = fn.info, fn.b
    nest = reduce_nest(fn.body, info)
    reds, D, axes, kept, rshape = nest.reds, nest.domain, nest.axes, nest.kept, nest.rshape
    pre, post = nest.pre, nest.post
    full = {v: fn.shape_in(v) for v in info.maps}
    part = {v: fn.shape_in(v, axes) for v in info.maps}
    shapes = {v: full[v] if fn.reduced(v) else part[v] for v in info.maps}
    inner = [D[d] for d in axes]
    sums = [n for n in reds if REDUCER_KIND[n.op][0] in ("sum", "prod")]
    runs = sums and len(inner) == 1 and inner[0] > SUM_BLOCK
    A = -(-inner[0] // SUM_BLOCK) if runs else inner[0]        # what the blocks divide
    P = min(A, REDUCE_BLOCKS)
    final = Accs(fn, reds)
    rows = [fn.alloca(final.ty(n), P) for n in reds]
    args = [fn.alloca(I64, P) for n in reds if n in final.arg]
    state, mine = fn.range_body(rows + args)
    prow, parg = dict(zip(reds, mine)), dict(zip([n for n in reds if n in final.arg], mine[len(reds):]))
    accs = Accs(fn, reds)
    zeros = [ir.Constant(I64, 0)] * len(kept)
    fn.range_n = P

    def point(ridx, slots=None):
        at = dict(zip(kept, zeros))
        at.update(zip(axes, ridx))
        xspace = LoopOffsets(fn, D, [at[d] for d in range(len(D))])
        rspace = LoopOffsets(fn, rshape, zeros)
        p = Point(fn, lambda v: xspace if fn.reduced(v) else rspace, shapes)
        for n in reds:
            accs.update(n, p.expr(n.inputs[0]), (slots or {}).get(n), ridx[-1] if ridx else None)
        p.store_all(pre)

    begin, end = fn.range
    with fn.loop(end, begin) as q:
        fb = fn.b
        accs.init()
        lo = fb.udiv(fb.mul(q, ir.Constant(I64, A)), ir.Constant(I64, P))
        hi = fb.udiv(fb.mul(fb.add(q, ir.Constant(I64, 1)), ir.Constant(I64, A)), ir.Constant(I64, P))
        if runs:            # runs of SUM_BLOCK elements, each summed on its own (as _blocked)
            n0 = ir.Constant(I64, inner[0])
            blocks = {r: fn.alloca(accs.ty(r)) for r in sums}
            with fn.loop(hi, lo) as blk:
                accs.init(blocks)
                start = fn.b.mul(blk, ir.Constant(I64, SUM_BLOCK))
                stop = fn.b.add(start, ir.Constant(I64, SUM_BLOCK))
                stop = fn.b.select(fn.b.icmp_signed("<", stop, n0), stop, n0)
                with fn.loop(stop, start) as j:
                    point([j], blocks)
                for r in sums:
                    accs.update(r, fn.b.load(blocks[r]), widened=True)
        else:
            with fn.loop(hi, lo) as j0:
                if sums and len(inner) > 1 and inner[-1] > SUM_BLOCK:
                    _blocked(fn, accs, sums, inner[1:], lambda idx, slots=None: point([j0, *idx], slots))
                else:
                    fn.nest(inner[1:], lambda idx: point([j0, *idx]))
        for n in reds:
            fn.b.store(fn.b.load(accs.slot[n]), fn.b.gep(prow[n], [q], inbounds=True))
            if n in parg:
                fn.b.store(fn.b.load(accs.arg[n]), fn.b.gep(parg[n], [q], inbounds=True))
    fn.end_range_body(state, 0)
    b = fn.b
    final.init()
    with fn.loop(P) as q:
        for k, n in enumerate(reds):
            v = b.load(b.gep(rows[k], [q], inbounds=True))
            index = b.load(b.gep(dict(zip([m for m in reds if m in final.arg], args))[n], [q])) \
                if n in final.arg else None
            final.update(n, v, index=index, widened=True)
    rspace = LoopOffsets(fn, rshape, zeros)
    Point(fn, lambda v: rspace, part, final.results()).store_all(post)


def _reduce_outer(fn, accs, D, axes, kept, rshape, pre, post, shapes, part):
    """Last axis kept (a column sum): walk the input in memory order into accumulator rows."""
    b = fn.b
    rsize = math.prod(rshape)
    length = math.prod(D[a] for a in axes)      # a float32 column sum of over 8 groups: _columns
    groups = {n: _scratch(fn, accs.dtype(n), rsize) for n in accs.nodes
              if _widened(accs, n) and length > 8 * COLUMN_GROUP}
    rows = {n: _scratch(fn, np.float64 if n in groups else accs.dtype(n), rsize)
            for n in accs.nodes}
    args = {n: _scratch(fn, np.int64, rsize) for n in accs.arg}
    with fn.loop(rsize) as r:
        for n in accs.nodes:
            zero = ir.Constant(F64, 0.0) if n in groups else accs.init_value(n)
            b.store(zero, b.gep(rows[n][0], [r], inbounds=True))
            if n in groups:
                b.store(accs.init_value(n), b.gep(groups[n][0], [r], inbounds=True))
        for n in args:
            b.store(ir.Constant(I64, 0), b.gep(args[n][0], [r], inbounds=True))
    (axis,) = axes if len(axes) == 1 else (None,)
    g = max(1, COLUMN_GROUP * D[axes[0]] // length) if groups else 0   # a group's rows of axes[0]

    def point(idx, rows_at, args_at):
        b = fn.b
        xspace = LoopOffsets(fn, D, idx)
        rspace = LoopOffsets(fn, rshape, [idx[d] for d in kept])
        p = Point(fn, lambda v: xspace if fn.reduced(v) else rspace, shapes)
        r = rspace.offset(rshape)
        for n in accs.nodes:
            arg = b.gep(args_at[n], [r], inbounds=True) if n in args_at else None
            accs.update(n, p.expr(n.inputs[0]), b.gep(rows_at[n], [r], inbounds=True),
                        idx[axis] if axis is not None else None, arg)
        p.store_all(pre)
    scratch = [*rows.values(), *args.values(), *groups.values()]
    if fn.form != "columns":
        _columns(fn, accs, D, rshape, point, [v[0] for v in scratch], rows, groups, (axes[0], g), 0, D[-1])
    else:           # blocks of the last (kept) axis on the pool: each column's order unchanged
        state, mine = fn.range_body([v[0] for v in scratch])
        L, blocks = D[-1], min(D[-1] // COLUMN_MIN, REDUCE_BLOCKS)
        fn.range_n = blocks
        begin, end = fn.range
        with fn.loop(end, begin) as cb:
            fb = fn.b
            c0 = fb.udiv(fb.mul(cb, ir.Constant(I64, L)), ir.Constant(I64, blocks))
            c1 = fb.udiv(fb.mul(fb.add(cb, ir.Constant(I64, 1)), ir.Constant(I64, L)),
                         ir.Constant(I64, blocks))
            _columns(fn, accs, D, rshape, point, mine, rows, groups, (axes[0], g), c0, c1)
        fn.end_range_body(state, GRAIN)
    with fn.loop(rsize) as r:
        given = {}
        for n in accs.nodes:
            v = b.load(b.gep((args if n in args else rows)[n][0], [r], inbounds=True))
            given[n.output] = accs.value(n, b.fptrunc(v, F32) if n in groups else v)
        rspace = LoopOffsets(fn, rshape, unravel(fn, rshape, r), flat=r)
        Point(fn, lambda v: rspace, part, given).store_all(post)
    for ptr, heap in scratch:
        if heap:
            free = extern(fn, "free", ir.FunctionType(ir.VoidType(), [ir.PointerType(I8)]))
            b.call(free, [b.bitcast(ptr, ir.PointerType(I8))])


def _columns(fn, accs, D, rshape, point, ptrs, rows, groups, grouping, c0, c1):
    """Columns [c0, c1) of the domain D folded into the accumulator rows (ptrs: the rows, the
    argmax/argmin indices, the group rows, as in _reduce_outer's scratch). With group rows,
    grouping = (a, g): the first reduced axis a in groups of g rows (at most COLUMN_GROUP
    elements of a column), under each index of the kept axes before it: each column's group
    summed on its own in float32, then added to its float64 row, and the group rows reset: the
    float32 error grows with the group size, not with the length ((65536, 32).sum(0) as one
    chain per column was ~250x NumPy's pairwise error)."""
    n_rows, n_args = len(rows), len(ptrs) - len(rows) - len(groups)
    rows_at = dict(zip(rows, ptrs))
    args_at = dict(zip(list(accs.arg), ptrs[n_rows:n_rows + n_args]))
    group_at = dict(zip(groups, ptrs[n_rows + n_args:]))

    def walk(outer, at):
        def columns(idx):
            with fn.loop(c1, c0) as j:
                point([*outer, *idx, j], at, args_at)
        fn.nest(D[len(outer):-1], columns)
    if not groups:
        return walk([], rows_at)
    a, g = grouping
    n0 = D[a]

    def grouped(prefix):
        b = fn.b
        with fn.loop(-(-n0 // g)) as blk:
            lo = b.mul(blk, ir.Constant(I64, g))
            hi = b.add(lo, ir.Constant(I64, g))
            hi = b.select(b.icmp_signed("<", hi, ir.Constant(I64, n0)), hi, ir.Constant(I64, n0))
            with fn.loop(hi, lo) as i0:
                walk([*prefix, i0], {**rows_at, **group_at})

            def fold(kidx):
                with fn.loop(c1, c0) as j:
                    r = LoopOffsets(fn, rshape, [*prefix, *kidx, j]).offset(rshape)
                    for n, ptr in group_at.items():
                        at = fn.b.gep(ptr, [r], inbounds=True)
                        row = fn.b.gep(rows_at[n], [r], inbounds=True)
                        fn.b.store(fn.b.fadd(fn.b.load(row), fn.b.fpext(fn.b.load(at), F64)), row)
                        fn.b.store(accs.init_value(n), at)
            fn.nest(rshape[a:-1], fold)
    fn.nest(D[:a], grouped)


def _scratch(fn, dt, n):
    """(pointer, on the heap?) to n elements: on the stack up to SCRATCH_STACK, else malloc'd."""
    ty = ltype(dt)
    if n * np.dtype(dt).itemsize <= SCRATCH_STACK:
        return fn.alloca(ty, max(n, 1)), False
    malloc = extern(fn, "malloc", ir.FunctionType(ir.PointerType(I8), [I64]))
    raw = fn.b.call(malloc, [ir.Constant(I64, n * np.dtype(dt).itemsize)])
    return fn.b.bitcast(raw, ir.PointerType(ty)), True
