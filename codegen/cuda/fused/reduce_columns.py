"""Column reductions on CUDA (the innermost axis kept, x.sum(axis=0)): lane l of every warp folds
a group of columns, one 128-bit load per element when aligned; the warps of a block split the
reduced elements and meet in shared memory; with few column blocks the reduced axis is also
split over grid.y (partials + a ticket per column block)."""
from __future__ import annotations

import math

import numpy as np

from ...kernel.buffer import CSE
from .. import reduction_fold as fold
from .. import vectorize as VV
from ..kernels import WARP
from .blocks import BlockReductions, epilogue
from .fused_kernel import MAX_BLOCK, MAX_BLOCKS, Fused

COLUMN_BLOCKS = 264        # a column reduction splits its reduced axis to reach this many blocks
COLUMN_CHUNK = 32          # ... each folding at least this many elements


def column_grid(rows, length, cols=WARP) -> tuple:
    """(column blocks, blocks along the reduced axis, reduced elements per block) of a column
    reduction, for the jit kernels and the eager ones alike: enough blocks for COLUMN_BLOCKS in
    all, each folding at least COLUMN_CHUNK elements (a 512-wide bias gradient over 4096 rows:
    4 column blocks of 128 x 66 instead of 16 blocks)."""
    col_blocks = min(-(-rows // cols), MAX_BLOCKS)
    split = max(1, min(-(-COLUMN_BLOCKS // col_blocks), length // COLUMN_CHUNK))
    return col_blocks, split, -(-length // split)


def _column_vectors(k, shape):
    """The vector plan of a column reduction: lane l folds columns r0 + l*lanes ... + lanes-1,
    read as one 128-bit group per reduced element; needs whole groups inside x's contiguous
    run of kept columns (after the last reduced axis)."""
    vp = VV.plan(k.arrays, {}, math.prod(shape.xshape))
    run = math.prod(shape.xshape[max(shape.axes) + 1:])
    return vp if vp is not None and run % vp.lanes == 0 and shape.rows % vp.lanes == 0 else None


def reduce_columns(k, red, shape) -> Fused:
    k.kind = "reduce: columns"
    vp = _column_vectors(k, shape)
    lanes = vp.lanes if vp else 1
    cols = WARP * lanes
    warps = min(MAX_BLOCK // WARP, shape.length)
    col_blocks, split, chunk = column_grid(shape.rows, shape.length, cols)
    k.module_consts += [f"WARPS = {warps}  # shared.array size", f"COLS = {cols}", ""]
    if split > 1:
        k.kind += f", split {split} ways along the reduced axis"
        k.workspace += [(name, dt, split * shape.rows) for name, dt in column_parts(red)]
        k.workspace.append(("ticket", np.dtype("int32"), -(-shape.rows // cols)))
        k.module_consts[-1:] = [f"SPLIT = {split}  # blocks along the reduced axis (grid.y)",
                                f"CHUNK = {chunk}  # reduced elements per block", ""]
    if vp is not None:
        k.kind += f", {lanes}-wide vectors"
        k.extra_imports.append(VV.IMPORT)
    write_columns(k, red, shape, vp, split > 1, warps * WARP)
    return k.finish((max(1, col_blocks), split), (warps * WARP,))


def column_parts(red) -> list:
    """(name, dtype) of each reduction's partials when the reduced axis is split over grid.y
    (an 8/16-bit one in 32-bit words, which atomics read)."""
    return [(f"part{red.names[n][3:]}", fold.word_dtype(red.dt(n))) for n in red.nodes]


def write_columns(k, red, shape, vp, split, block):
    """The kernel: `block` threads (WARPS warps) over COLS columns; `split`: grid.y splits the
    reduced axis in CHUNKs, the SPLIT blocks of a column block meeting through partials and a
    ticket. Extents are ints (jit) or parameter names (eager), and so are SPLIT and CHUNK."""
    lanes = vp.lanes if vp else 1
    buf = k.buf
    parts = {n: name for n, (name, _) in zip(red.nodes, column_parts(red))}
    with k.header():
        red.declare("(WARPS, COLS)")
        if vp is not None:
            buf.writeline(f"vec = {VV.aligned_check(k.arrays, {}, vp)}   # once per launch")
        for line in ("tid = cuda.threadIdx.x", "lane = tid % 32", "warp = tid // 32",
                     "r0 = cuda.blockIdx.x * COLS"):
            buf.writeline(line)
        start, end = "warp", shape.length
        if split:
            buf.writeline("last = cuda.shared.array(1, int32)")
            buf.writeline("j0 = cuda.blockIdx.y * CHUNK")
            buf.writeline(f"jend = min(j0 + CHUNK, {shape.length})")
            start, end = "j0 + warp", "jend"
        with buf.indent(f"while r0 < {shape.rows}:"):   # uniform over the block: syncthreads ok
            buf.writeline(f"rv = r0 + lane * {lanes}   # this lane's first column")
            reds = [_lane_reductions(k, red, q) for q in range(lanes)]
            for rq in reds:
                rq.init(rq.nodes)
            with buf.indent(f"if rv < {shape.rows}:"):
                if vp is None:
                    _column_fold(k, reds, shape, start, end, None)
                else:
                    with buf.indent("if vec:"):
                        _column_fold(k, reds, shape, start, end, vp)
                    with buf.indent("else:"):
                        _column_fold(k, reds, shape, start, end, None)
            for q, rq in enumerate(reds):
                for n in red.nodes:
                    buf.writeline(f"sh{red.names[n][3:]}[warp, lane * {lanes} + {q}] = "
                                  f"{rq.names[n]}")
            buf.writeline("cuda.syncthreads()")
            _column_finish(k, red, shape, parts, split, block)
            buf.writeline("cuda.syncthreads()   # the shared partials are reused next columns")
            buf.writeline("r0 += cuda.gridDim.x * COLS")


def _lane_reductions(k, red, q):
    """red's accumulators for column q of a lane's group (acc{i}_{q})."""
    rq = BlockReductions(k, red.nodes)
    rq.names = {n: f"{name}_{q}" for n, name in red.names.items()}
    return rq


def _column_fold(k, reds, shape, start, end, vp):
    """Warps stride over reduced elements j; a lane folds its `len(reds)` columns rv + q, read
    as one 128-bit group when `vp` is given."""
    buf = k.buf
    buf.writeline(f"j = {start}")
    with buf.indent(f"while j < {end}:"):
        lanes = {}
        if vp is not None:
            gcse = CSE(buf, "g")
            base = shape.xspace(gcse, "j", "rv").offset(shape.xshape)
            lanes = VV.load_group(buf, k.arrays, vp, gcse.get(f"({base}) // {vp.lanes}"))
        for q, rq in enumerate(reds):
            cse = CSE(buf, f"q{q}_")
            xspace = shape.xspace(cse, "j", cse.get(f"rv + {q}") if len(reds) > 1 else "rv")
            ev = k.evaluator(lambda v: xspace, cse, {v: names[q] for v, names in lanes.items()})
            for n in rq.nodes:
                rq.update(n, ev.expr(n.inputs[0]))
        buf.writeline("j += WARPS")


def _column_finish(k, red, shape, parts, split, block):
    """Threads c = tid, tid + block, ... < COLS fold column r0 + c over the warps' partials, then
    write its epilogue, or (split) publish a partial; the last of the SPLIT blocks of these
    columns (an atomic ticket) folds the published partials and writes the epilogue."""
    buf = k.buf

    def each_column(body):
        buf.writeline("c = tid")
        with buf.indent("while c < COLS:"):
            buf.writeline("r = r0 + c")
            with buf.indent(f"if r < {shape.rows}:"):
                body()
            buf.writeline(f"c += {block}")

    def fold_warps():
        for n in red.nodes:
            buf.writeline(f"{red.names[n]} = sh{red.names[n][3:]}[0, c]")
        with buf.indent("for w in range(1, WARPS):"):
            for n in red.nodes:
                red.update_raw(n, f"sh{red.names[n][3:]}[w, c]")
        if not split:
            epilogue(k, red, shape)
            return
        for n in red.nodes:
            buf.writeline(f"{parts[n]}[cuda.blockIdx.y * {shape.rows} + r] = {red.names[n]}")
        buf.writeline("cuda.threadfence()   # partials visible before the ticket")
    each_column(fold_warps)
    if not split:
        return
    buf.writeline("cuda.syncthreads()")
    with buf.indent("if tid == 0:"):
        buf.writeline("last[0] = 1 if cuda.atomic.add(ticket, r0 // COLS, 1) == SPLIT - 1 else 0")
    buf.writeline("cuda.syncthreads()")

    def fold_parts():
        red.init(red.nodes)
        with buf.indent("for s in range(SPLIT):"):
            for n in red.nodes:
                red.update_raw(n, fold.atomic_read(parts[n], f"s * {shape.rows} + r", red.dt(n),
                                                   k.ctx))
        epilogue(k, red, shape)
    with buf.indent("if last[0] == 1:   # every block of these columns has published"):
        each_column(fold_parts)
        with buf.indent("if tid == 0:"):
            buf.writeline("ticket[r0 // COLS] = 0   # ready for the next launch")
