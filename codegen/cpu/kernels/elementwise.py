"""Elementwise kernels as LLVM IR: the ElementwiseNest's loops over its collapsed shape, the
unit-stride axis innermost (codegen/kernel/nest.py); a matmul's epilogue by row blocks."""
from __future__ import annotations

from ...kernel.nest import elementwise_nest
from .function import Point, LoopOffsets, unravel


def elementwise(fn, nest):
    """The ElementwiseNest's loops over its collapsed shape, storing its outputs."""
    def emit(idx):
        space = LoopOffsets(fn, nest.shape, idx)
        Point(fn, lambda v: space, nest.shapes).store_all(nest.outputs)
    with fn.parallel_loops():
        if nest.size:
            fn.outer_nest(nest.shape, emit)


def elementwise_rows(fn, outs, lo, hi):
    """Store `outs` over rows [lo, hi) of the kernel's domain (its axes but the last
    flattened), the last axis the inner loop: a matmul's epilogue after a row block."""
    D = fn.info.domain
    lead = D[:-1]
    shapes = {v: fn.shape_in(v) for v in fn.info.maps if v in fn.arrays or v in fn.outs}
    with fn.parallel_loops(), fn.loop(hi, lo) as r:
        head = unravel(fn, lead, r) if len(lead) > 1 else [r]
        with fn.loop(D[-1]) as j:
            space = LoopOffsets(fn, D, [*head, j])
            Point(fn, lambda v: space, shapes).store_all(outs)


def gen_elementwise(fn):
    elementwise(fn, elementwise_nest(fn.body, fn.info))
