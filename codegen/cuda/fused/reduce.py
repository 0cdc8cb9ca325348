"""Reduce kernels on CUDA, in one of three layouts by the shape of the reduction (gen_reduce):
a block per output element, coalesced columns (fused/reduce_columns.py), or a full reduction
split over many blocks."""
from __future__ import annotations

import functools

import numpy as np

from ....ir.passes.fusion_rules import analyze_kernel
from ...kernel.buffer import CSE
from ...kernel.nest import reduce_nest
from ...kernel.space import Space, flat_space, times
from .. import reduction_fold as fold
from .. import target
from .. import vectorize as VV
from ..kernels import WARP
from .blocks import BlockReductions, block_prologue, block_setup, epilogue
from ..target import threads_for
from .fused_kernel import MAX_BLOCK, MAX_BLOCKS, Fused, FusedKernel
from .reduce_columns import reduce_columns

SPLIT_ELEMS = target.DEFAULT.split_elems   # a full reduction: a block per this many elements
MAX_SPLIT = target.DEFAULT.max_split       # ... up to this many


def gen_reduce(name, node) -> Fused:
    """One of three layouts, by the shape of the reduction:
      columns  the innermost axis is kept (x.sum(axis=0)): lane l of every warp folds outputs
               r0 + 4l ... r0 + 4l + 3, one 128-bit load per element when aligned (output
               r0 + l where columns do not group by 4), so a warp reads consecutive elements; the warps of a block split the
               reduced elements and meet in shared memory; when there are few column blocks the
               reduced axis is also split over grid.y (partials + a ticket per column block, as
               `split`), so a 512-wide bias gradient runs 4 x 66 blocks instead of 16
      split    one output (a full reduction) over many elements: SPLIT blocks grid-stride over
               them (128-bit loads when aligned), each writes its partial; the last block to
               finish (an atomic ticket) folds the partials and writes the epilogue
      rows     otherwise: one block per output element, threads stride over its elements"""
    k = FusedKernel(name, node, "reduce")
    nest = reduce_nest(k.body, analyze_kernel(node))
    shape = ReduceShape(nest.domain, nest.axes)
    red = BlockReductions(k, list(nest.reds))
    if nest.layout == "columns" and shape.rows >= WARP:
        return reduce_columns(k, red, shape)
    if nest.layout == "full" and shape.length >= 2 * SPLIT_ELEMS:
        return _reduce_split(k, red, shape)
    return _reduce_rows(k, red, shape)


class ReduceShape:
    """A reduce kernel's nest (codegen/kernel/nest.py) as the CUDA loops index it: x's shape
    split into kept dims (output element r) and reduced dims (element j). Extents are ints (jit)
    or parameter names (eager kernels: codegen/cuda/eager_reduce.py)."""

    def __init__(self, xshape, axes):
        self.xshape, self.axes = tuple(xshape), tuple(axes)
        self.kept = tuple(d for d in range(len(self.xshape)) if d not in self.axes)
        self.rshape = tuple(self.xshape[d] for d in self.kept)
        self.jshape = tuple(self.xshape[d] for d in self.axes)
        self.rows = functools.reduce(times, self.rshape, 1)
        self.length = functools.reduce(times, self.jshape, 1)

    def xspace(self, cse, j="j", r="r"):
        """x's space at output element `r`, reduced element `j`."""
        rs, js = flat_space(self.rshape, r, cse), flat_space(self.jshape, j, cse)
        where = {d: (rs, i) for i, d in enumerate(self.kept)}
        where.update({d: (js, i) for i, d in enumerate(self.axes)})
        return Space(self.xshape, [functools.partial(s.index, i) for s, i in
                                   (where[d] for d in range(len(self.xshape)))], cse)


def _fold_elements(k, red, shape, start, step, vp=None, end=None):
    """Each thread folds elements j = start, start + step, ... of output element r; with a
    vector plan (one output: x's flat elements), groups of vp.lanes first when aligned."""
    if vp is not None:
        _fold_vectors(k, red, shape, start, step, vp)
    else:
        k.buf.writeline(f"j = {start}")
    with k.buf.indent(f"while j < {end or shape.length}:"):
        cse = CSE(k.buf)
        xspace = shape.xspace(cse)
        ev = k.evaluator(lambda v: xspace, cse)
        for n in red.nodes:
            red.update(n, ev.expr(n.inputs[0]))
        k.buf.writeline(f"j += {step}")


def _fold_vectors(k, red, shape, start, step, vp):
    """Groups g = start, start + step, ... of vp.lanes elements when `vec`, then `j` at the first
    element the scalar loop folds (the tail, or everything when unaligned)."""
    buf, groups = k.buf, shape.length // vp.lanes
    buf.writeline(f"j = {start}")
    with buf.indent("if vec:"):
        with buf.indent(f"while j < {groups}:"):
            lanes = VV.load_group(buf, k.arrays, vp, "j")
            for lane in range(vp.lanes):
                cse = CSE(buf, f"l{lane}_")
                xspace = shape.xspace(cse, cse.get(f"j * {vp.lanes} + {lane}"))
                ev = k.evaluator(lambda v: xspace, cse,
                                 {v: names[lane] for v, names in lanes.items()})
                for n in red.nodes:
                    red.update(n, ev.expr(n.inputs[0]))
            buf.writeline(f"j += {step}")
        buf.writeline(f"j = {groups * vp.lanes} + {start}   # the scalar tail")


def rows_grid(rows, length) -> tuple:
    """(blocks, threads per block) of a rows reduction, jit and eager alike: a block per output
    element, grid-striding past MAX_BLOCKS, of threads_for(length) threads: a warp for rows of
    up to 32 elements (consecutive lanes read consecutive elements), up to MAX_BLOCK for long
    ones."""
    return max(1, min(rows, MAX_BLOCKS)), threads_for(length)


def _reduce_rows(k, red, shape) -> Fused:
    k.kind = "reduce: a block per output"
    blocks, block = rows_grid(shape.rows, shape.length)
    write_rows(k, red, shape, block)
    return k.finish((blocks,), (block,))


def write_rows(k, red, shape, block):
    """The kernel of a rows reduction: a block of `block` threads per output element r, each
    thread folding elements j = tid, tid + block, ...; extents are ints (jit) or parameter
    names (eager)."""
    with k.header():
        with block_prologue(k, block, red, shape.rows):
            red.init(red.nodes)
            _fold_elements(k, red, shape, "tid", block)
            red.fold(red.nodes, lambda: epilogue(k, red, shape))
            k.buf.writeline("cuda.syncthreads()   # the shared partials are reused next row")
            k.buf.writeline("r += cuda.gridDim.x")


def split_blocks(length) -> int:
    """Blocks of a full reduction over `length` elements, jit and eager alike."""
    return min(MAX_SPLIT, -(-length // SPLIT_ELEMS))


def _reduce_split(k, red, shape) -> Fused:
    k.kind = "reduce: split over blocks"
    split = split_blocks(shape.length)
    k.workspace += [(name, dt, split) for name, dt in split_parts(red)]
    k.workspace.append(("ticket", np.dtype("int32"), 1))
    k.module_consts += [f"SPLIT = {split}  # blocks, each folding a grid-stride share", ""]
    vp = VV.plan(k.arrays, {}, shape.length)
    if vp is not None:
        k.kind += f", {vp.lanes}-wide vectors"
        k.extra_imports.append(VV.IMPORT)
    write_split(k, red, shape, vp)
    return k.finish((split,), (MAX_BLOCK,))


def split_parts(red) -> list:
    """(name, dtype) of each reduction's partials, one per block of a full reduction (an
    8/16-bit one in 32-bit words, which atomics read)."""
    return [(f"part{red.names[n][3:]}", fold.word_dtype(red.dt(n))) for n in red.nodes]


def write_split(k, red, shape, vp):
    """The kernel of a full reduction: SPLIT blocks of MAX_BLOCK threads grid-stride over the
    elements and publish partials; the last block to finish (a ticket) folds them. The length
    is an int (jit) or a parameter name (eager), and so is SPLIT."""
    block, buf = MAX_BLOCK, k.buf
    parts = {n: name for n, (name, _) in zip(red.nodes, split_parts(red))}
    with k.header():
        if vp is not None:
            buf.writeline(f"vec = {VV.aligned_check(k.arrays, {}, vp)}   # once per launch")
        block_setup(k, block, red, "0   # the one output element")
        buf.writeline("last = cuda.shared.array(1, int32)")
        red.init(red.nodes)
        _fold_elements(k, red, shape, "cuda.blockIdx.x * BLOCK + tid", "SPLIT * BLOCK", vp)

        def publish():
            for n in red.nodes:
                buf.writeline(f"{parts[n]}[cuda.blockIdx.x] = {red.names[n]}")
            buf.writeline("cuda.threadfence()   # partials visible before the ticket")
            buf.writeline("last[0] = 1 if cuda.atomic.add(ticket, 0, 1) == SPLIT - 1 else 0")
        red.fold(red.nodes, publish)
        buf.writeline("cuda.syncthreads()")
        with buf.indent("if last[0] == 1:   # every other block has published"):
            red.init(red.nodes)
            buf.writeline("j = tid")
            with buf.indent("while j < SPLIT:"):
                for n in red.nodes:
                    red.update_raw(n, fold.atomic_read(parts[n], "j", red.dt(n), k.ctx))
                buf.writeline("j += BLOCK")

            def finish():
                epilogue(k, red, shape)
                buf.writeline("ticket[0] = 0   # ready for the next launch")
            red.fold(red.nodes, finish)
