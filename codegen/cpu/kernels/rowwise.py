"""Rowwise kernels (softmax, layernorm) as LLVM IR: one walk of each row per dependent reduction
level (the RowNest of codegen/kernel/nest.py), values reused by a later level kept in a row of
stack scratch."""
from __future__ import annotations

import numpy as np

from ...kernel.nest import row_nest
from ..llvm_exprs import ltype
from .accumulators import Accs
from .function import SCRATCH_STACK, Point, LoopOffsets


def gen_rowwise(fn):
    body, info = fn.body, fn.info
    per_row = {v for v in info.maps if not fn.reduced(v)}      # read at the row's index
    outs = list(dict.fromkeys(body.outputs))
    elements = [v for v in outs if v not in per_row]
    nest = row_nest(body, elements)
    reds, D, L, rows = nest.reds, nest.domain, nest.L, nest.rows
    nd = len(D)
    if rows * L == 0 and not any(v in per_row and v.type.size for v in outs):
        return
    accs = Accs(fn, reds, keyed=True)
    R = (nd - 1,)
    full = {v: fn.shape_in(v) for v in info.maps}
    part = {v: fn.shape_in(v, R) for v in info.maps}
    shapes = {v: full[v] if fn.reduced(v) else part[v] for v in info.maps}
    rshape = D[:-1]
    work = nest.work(elements)
    kept = _kept_rows(nest, work, per_row, L)
    rows_of = {v: fn.alloca(ltype(v.type.dtype), L) for v in kept}

    def row(ridx):
        accs.init()
        rspace = LoopOffsets(fn, rshape, ridx)
        given = {}
        for p, (mine, stores) in enumerate(work):
            if not mine and not stores:
                continue
            with fn.loop(L) as j:
                xspace = LoopOffsets(fn, D, list(ridx) + [j])
                read = {v: fn.load(rows_of[v], j, v.type.dtype)
                        for v, (at, later) in kept.items() if p in later}
                pt = Point(fn, lambda v: xspace if fn.reduced(v) else rspace, shapes,
                            {**given, **read})
                for n in mine:
                    accs.update(n, pt.expr(n.inputs[0]), index=j)
                pt.store_all(stores)
                for v, (at, _) in kept.items():
                    if at == p:
                        fn.store(rows_of[v], j, pt.expr(v), v.type.dtype)
            res = accs.results()
            given.update({n.output: res[n.output] for n in mine})
        Point(fn, lambda v: rspace, part, given).store_all([v for v in outs if v in per_row])

    fn.outer_nest(rshape, row, flat=True)


def _kept_rows(nest, work, per_row, L) -> dict:
    """nest.reused values (softmax's exp(x - max): summed in one pass, divided in the next),
    each kept in a row of scratch on the stack and read back instead of computed again; {} when
    the rows would not fit in SCRATCH_STACK."""
    kept = nest.reused(work, per_row)
    size = sum(L * np.dtype(v.type.dtype).itemsize for v in kept)
    return kept if size <= SCRATCH_STACK else {}
