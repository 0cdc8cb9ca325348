"""Fused CUDA kernel generators for @jit: one numba.cuda kernel per scheduled kernel node.

Each generator writes the kernel body with the shared Evaluator (codegen/kernel/evaluator.py) and
iteration spaces (codegen/kernel/space.py), passing the CUDA expression table, over the kernel's
nest (codegen/kernel/nest.py: the loop structure the CPU renderer reads too); what is
CUDA-specific is the prologue and how threads walk the nest:

  elementwise  a grid-stride loop over the ElementwiseNest's collapsed shape: one flat index,
               unravelled by divmod over the collapsed dims an operand spans
  reduce       one block per output element (grid-striding over them): each thread folds a
               strided slice of the reduced elements, with the elementwise prologue computed in
               the fold; warps fold through shuffles, warp partials meet in shared memory, and
               lane 0 writes the elementwise epilogue
  rowwise      one block per row: one pass over the row per reduction level (max, then sum of
               exp, then the output); each level's reductions are block reductions whose results
               are broadcast to the block through shared memory; per-row values (mean, 1/std)
               are computed once per row, the epilogue is stored in the last pass
  matmul       64 x 64 shared-memory tiles (16 x 16 along a side shorter than 64), 4 x 4
               outputs per thread in registers, transposed operands loaded coalesced, the
               elementwise epilogue applied to each accumulator before the only store. cuBLAS
               is not reachable from numba-cuda without extra dependencies (cupy or
               nvmath-python, whose cuBLAS calls could not fuse the epilogue anyway).
  reduce       (see gen_reduce) a block per output, coalesced columns, or a full reduction
               split over many blocks

`why_not(node)` says, before any code is written, why a kernel is not one of these (an arg
reduction or integer matmul inside a fused kernel, reductions over different axes, a reshape or
operand shape a point of the loop cannot read); codegen/cuda/backend.py then runs it op by op,
logged at JITGRAD_DEBUG=1. A kernel the check passes always generates.

Kernels are self-contained (no device-function calls: compile_ptx cannot build callees without a
GPU); block sizes and shared-array sizes are module-level constants. Each generator returns a
`Fused`: the source, its array constants and the launch configuration.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ...ir.ops import Op
from ...ir.passes.fusion_rules import analyze, analyze_kernel, product_stores, row_pass_levels
from ...ir.primitives import REDUCE
from ...ir.types import is_bool, is_float
from ..kernel import canonical
from ..kernel.buffer import CSE, IndentedBuffer
from ..kernel.control import control_op
from ..kernel.evaluator import Evaluator, array_constants, gap
from ..kernel.nest import elementwise_nest, matmul_nest, reduce_nest, row_nest
from ..kernel.space import Space, bare, broadcast_gap, flat_space, rows_space
from . import exprs
from . import kernels as KK
from . import tiles as TL
from . import vectorize as VV
from .kernels import WARP, grid_stride
from .source import NUMBA_TYPE, CudaKernelSource, module_text

MAX_BLOCK = 256            # threads per block of reduce / rowwise kernels (8 warps)
MAX_BLOCKS = 4096          # grid-stride over rows / output elements beyond this many blocks
SPLIT_ELEMS = 2048         # a full reduction gets one block per this many elements ...
MAX_SPLIT = 1024           # ... up to this many (an H100 holds 132 SMs x 8 blocks of 256)
SMS = 132                  # an H100's SMs: a product with fewer tiles splits K (k_split) ...
SPLIT_K_BLOCKS = 264       # ... into shares for this many blocks (two per SM: a matmul block
                           # takes 24K of an SM's 64K registers) ...
SPLIT_K_TILES = 4          # ... each summing at least this many K-tiles ...
MAX_K_SPLIT = 32           # ... in at most this many shares
ROW_CACHE_BYTES = 32768    # a rowwise kernel keeps rows up to this size in shared memory
COLUMN_BLOCKS = 264        # a column reduction splits its reduced axis to reach this many blocks
COLUMN_CHUNK = 32          # ... each folding at least this many elements


@dataclass(frozen=True)
class Fused:
    source: CudaKernelSource
    constants: list        # Literals passed after the inputs, as flat arrays
    grid: tuple
    block: tuple
    workspace: tuple = ()  # (dtype, size) of zeroed arrays passed last, kept across launches


def _block_for(n: int) -> int:
    """Threads per block for folding n elements: whole warps, at most MAX_BLOCK."""
    return min(MAX_BLOCK, max(WARP, -(-n // WARP) * WARP))


class _FusedKernel:
    """Parameters (inputs, array constants, outputs, all flat), the buffer, and the module."""

    def __init__(self, name, node, kind):
        self.name, self.node, self.kind = name, node, kind
        self.body = node.params["body"]
        self.ctx = exprs.ExprContext()
        self.consts = array_constants(self.body)
        self.arrays = {v: f"in{k}" for k, v in enumerate(self.body.inputs)}
        self.arrays.update({n.outputs[0]: f"c{k}" for k, n in enumerate(self.consts)})
        self.outs: dict = {}
        for k, v in enumerate(self.body.outputs):
            self.outs.setdefault(v, []).append(f"out{k}")
        self.buf = IndentedBuffer()
        self.module_consts: list[str] = []
        self.workspace: list = []    # (name, dtype, size): zeroed device arrays kept per launch
        self.extra_imports: list = []

    def header(self):
        params = list(self.arrays.values()) + [o for names in self.outs.values() for o in names]
        params += [w[0] for w in self.workspace]
        return self.buf.indent(f"def {self.name}({', '.join(params)}):")

    def evaluator(self, space_of, cse, given=None, shapes=None):
        """shapes: every array's shape in the space by the index maps (an ElementwiseNest's),
        else operands broadcast NumPy-style against it."""
        return Evaluator(self.ctx, self.body, self.arrays, space_of, cse, given, shapes,
                         expr_table=exprs.scalar_expr, aligned=shapes is not None)

    def store(self, v, space, expr, shape=None):
        for o in self.outs[v]:
            self.buf.writeline(f"{o}[{space.offset(shape or v.type.shape)}] = {expr}")

    def finish(self, grid, block) -> Fused:
        dtypes = [v.type.dtype for v in self.body.inputs] + \
            [c.outputs[0].type.dtype for c in self.consts] + \
            [v.type.dtype for v, names in self.outs.items() for _ in names] + \
            [w[1] for w in self.workspace]
        comment = f"kernel {self.name} ({self.kind})\n" + \
            "\n".join(f"  {line}" for line in canonical.body_lines(self.node))
        consts = self.ctx.prologue() + self.module_consts
        text = module_text(comment, consts, self.buf.lines, self.extra_imports)
        src = CudaKernelSource(self.name, text,
                               tuple(f"{NUMBA_TYPE[np.dtype(d)]}[::1]" for d in dtypes))
        return Fused(src, [c.params["value"] for c in self.consts], grid, block,
                     tuple((np.dtype(dt), n) for _, dt, n in self.workspace))


# ----------------------------------------------------------------------------- elementwise

def gen_elementwise(name, node) -> Fused:
    k = _FusedKernel(name, node, "elementwise")
    nest = elementwise_nest(k.body, analyze_kernel(node))
    n = nest.size
    vp = VV.plan(k.arrays, k.outs, n)
    with k.header():
        if vp is not None:
            _elementwise_vectors(k, vp, nest)
        with grid_stride(k.buf, str(n)) if vp is None else k.buf.indent(f"while i < {n}:"):
            cse = CSE(k.buf)
            space = flat_space(nest.shape, "i", cse)
            ev = k.evaluator(lambda v: space, cse, shapes=nest.shapes)
            for v in nest.outputs:
                k.store(v, space, ev.expr(v), nest.shapes[v])
            k.buf.writeline("i += step")
    per_thread = vp.lanes if vp is not None else 1
    threads = min(MAX_BLOCK, max(WARP, -(-n // (WARP * per_thread)) * WARP))
    return k.finish((min(MAX_BLOCKS, max(1, -(-n // (threads * per_thread)))),), (threads,))


def _elementwise_vectors(k, vp, nest):
    """The 128-bit path (codegen/cuda/vectorize.py), then `i` at the first element the scalar
    loop after it covers: the tail, or everything when an array is not 16-byte aligned."""
    k.kind = f"elementwise: {vp.lanes}-wide vectors"
    k.extra_imports.append(VV.IMPORT)
    groups, buf = nest.size // vp.lanes, k.buf
    buf.writeline("i = cuda.grid(1)")
    buf.writeline("step = cuda.gridsize(1)")
    with buf.indent(f"if {VV.aligned_check(k.arrays, k.outs, vp)}:   # once per launch"):
        with buf.indent(f"while i < {groups}:"):
            lanes = VV.load_group(buf, k.arrays, vp, "i")
            results = {v: [] for v in nest.outputs}
            for lane in range(vp.lanes):
                cse = CSE(buf, f"l{lane}_")
                space = flat_space(nest.shape, cse.get(f"i * {vp.lanes} + {lane}"), cse)
                ev = k.evaluator(lambda v: space, cse,
                                 {v: names[lane] for v, names in lanes.items()}, nest.shapes)
                for v in nest.outputs:
                    results[v].append(ev.expr(v))
            VV.store_group(buf, k.outs, vp, "i", results)
            buf.writeline("i += step")
        buf.writeline(f"i = {groups * vp.lanes} + cuda.grid(1)   # the scalar tail")


# ----------------------------------------------------------------------------- block reductions

class _BlockReductions:
    """Accumulators of a body's reductions and the block-wide fold that combines them."""

    def __init__(self, k, nodes):
        self.k, self.nodes = k, nodes
        self.names = {n: f"acc{i}" for i, n in enumerate(nodes)}

    def dt(self, n):
        dt = n.inputs[0].type.dtype
        return np.dtype("int32") if is_bool(dt) else dt   # shuffles and shared memory need numbers

    def _init(self, n):
        return exprs.REDUCE_INIT[exprs.REDUCER_KIND[n.op][0]](self.k.ctx, self.dt(n))

    def _combine(self, n, acc, v):
        dt = self.dt(n)
        e = exprs.REDUCE_COMBINE[exprs.REDUCER_KIND[n.op][0]](acc, v, dt)
        return f"np.{dt.name}({e})" if dt.kind == "i" else e   # numba widens int32 arithmetic

    def declare(self, shape="WARPS"):
        for n in self.nodes:
            self.k.buf.writeline(f"sh{self.names[n][3:]} = cuda.shared.array({shape}, "
                                 f"{NUMBA_TYPE[self.dt(n)]})")

    def init(self, nodes):
        for n in nodes:
            self.k.buf.writeline(f"{self.names[n]} = {self._init(n)}")

    def update(self, n, v):
        """Fold element `v` of the reduced operand into n's accumulator."""
        self.update_raw(n, f"np.int32({v})" if is_bool(n.inputs[0].type.dtype) else v)

    def update_raw(self, n, v):
        """Fold `v`, already of the accumulator's dtype (a partial), into n's accumulator."""
        self.k.buf.writeline(f"{self.names[n]} = {self._combine(n, self.names[n], v)}")

    def _warp_fold(self, nodes):
        buf = self.k.buf
        with buf.indent("for offset in (16, 8, 4, 2, 1):"):
            for n in nodes:   # every lane shuffles exactly once per step, outside conditionals
                a = self.names[n]
                buf.writeline(f"{a}_o = {KK.shuffle_down(a, self.dt(n))}")
                buf.writeline(f"{a} = {self._combine(n, a, a + '_o')}")

    def fold(self, nodes, at_lane0):
        """Fold every thread's accumulators; then at_lane0() runs in thread 0 with the results
        in the accumulators (as results(nodes) names them)."""
        buf = self.k.buf
        self._warp_fold(nodes)
        with buf.indent("if lane == 0:"):
            for n in nodes:
                buf.writeline(f"sh{self.names[n][3:]}[warp] = {self.names[n]}")
        buf.writeline("cuda.syncthreads()")
        with buf.indent("if warp == 0:"):
            for n in nodes:
                a = self.names[n]
                buf.writeline(f"{a} = sh{a[3:]}[lane] if lane < WARPS else {self._init(n)}")
            self._warp_fold(nodes)
            with buf.indent("if lane == 0:"):
                at_lane0()

    def results(self, nodes):
        return {n.output: f"({self.names[n]} != 0)" if is_bool(n.output.type.dtype)
                else self.names[n] for n in nodes}


def _block_setup(k, block, reds, r):
    """Module constants, shared partials and thread coordinates; `r` the first output element."""
    k.module_consts += [f"BLOCK = {block}", f"WARPS = {block // WARP}  # shared.array size", ""]
    reds.declare()
    for line in ("tid = cuda.threadIdx.x", "lane = tid % 32", "warp = tid // 32", f"r = {r}"):
        k.buf.writeline(line)


def _block_prologue(k, block, reds, rows):
    _block_setup(k, block, reds, "cuda.blockIdx.x")
    return k.buf.indent(f"while r < {rows}:")


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
    k = _FusedKernel(name, node, "reduce")
    nest = reduce_nest(k.body, analyze_kernel(node))
    shape = _ReduceShape(nest)
    red = _BlockReductions(k, list(nest.reds))
    if nest.layout == "columns" and shape.rows >= WARP:
        return _reduce_columns(k, red, shape)
    if nest.layout == "full" and shape.length >= 2 * SPLIT_ELEMS:
        return _reduce_split(k, red, shape)
    return _reduce_rows(k, red, shape)


class _ReduceShape:
    """A reduce kernel's nest (codegen/kernel/nest.py) as the CUDA loops index it: x's shape
    split into kept dims (output element r) and reduced dims (element j)."""

    def __init__(self, nest):
        self.xshape, self.axes, self.kept = nest.domain, nest.axes, nest.kept
        self.rshape, self.jshape = nest.rshape, nest.jshape
        self.rows, self.length = nest.rows, nest.length

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


def _epilogue(k, red, shape):
    cse = CSE(k.buf, "e")
    rspace = flat_space(shape.rshape, "r", cse)
    ev = k.evaluator(lambda v: rspace, cse, red.results(red.nodes))
    for v in k.outs:
        k.store(v, rspace, ev.expr(v))


def _reduce_rows(k, red, shape) -> Fused:
    k.kind = "reduce: a block per output"
    block = _block_for(shape.length)
    with k.header():
        with _block_prologue(k, block, red, shape.rows):
            red.init(red.nodes)
            _fold_elements(k, red, shape, "tid", block)
            red.fold(red.nodes, lambda: _epilogue(k, red, shape))
            k.buf.writeline("cuda.syncthreads()   # the shared partials are reused next row")
            k.buf.writeline("r += cuda.gridDim.x")
    return k.finish((max(1, min(shape.rows, MAX_BLOCKS)),), (block,))


def _column_split(shape, cols) -> int:
    """Blocks along the reduced axis of a column reduction: enough for COLUMN_BLOCKS blocks in
    all, each folding at least COLUMN_CHUNK elements (a 512-wide bias gradient over 4096 rows:
    4 column blocks of 128 x 66 instead of 16 blocks)."""
    col_blocks = min(-(-shape.rows // cols), MAX_BLOCKS)
    return max(1, min(-(-COLUMN_BLOCKS // col_blocks), shape.length // COLUMN_CHUNK))


def _column_vectors(k, shape):
    """The vector plan of a column reduction: lane l folds columns r0 + l*lanes ... + lanes-1,
    read as one 128-bit group per reduced element; needs whole groups inside x's contiguous
    run of kept columns (after the last reduced axis)."""
    vp = VV.plan(k.arrays, {}, math.prod(shape.xshape))
    run = math.prod(shape.xshape[max(shape.axes) + 1:])
    return vp if vp is not None and run % vp.lanes == 0 and shape.rows % vp.lanes == 0 else None


def _reduce_columns(k, red, shape) -> Fused:
    k.kind = "reduce: columns"
    vp = _column_vectors(k, shape)
    lanes = vp.lanes if vp else 1
    cols = WARP * lanes
    warps = min(MAX_BLOCK // WARP, shape.length)
    block = warps * WARP
    split = _column_split(shape, cols)
    col_blocks = min(-(-shape.rows // cols), MAX_BLOCKS)
    buf = k.buf
    k.module_consts += [f"WARPS = {warps}  # shared.array size", f"COLS = {cols}", ""]
    parts = {n: f"part{red.names[n][3:]}" for n in red.nodes}
    if split > 1:
        k.kind += f", split {split} ways along the reduced axis"
        k.workspace += [(parts[n], red.dt(n), split * shape.rows) for n in red.nodes]
        k.workspace.append(("ticket", np.dtype("int32"), -(-shape.rows // cols)))
        k.module_consts[-1:] = [f"SPLIT = {split}  # blocks along the reduced axis (grid.y)",
                                f"CHUNK = {-(-shape.length // split)}  # reduced elements per block", ""]
    if vp is not None:
        k.kind += f", {lanes}-wide vectors"
        k.extra_imports.append(VV.IMPORT)
    with k.header():
        red.declare("(WARPS, COLS)")
        if vp is not None:
            buf.writeline(f"vec = {VV.aligned_check(k.arrays, {}, vp)}   # once per launch")
        for line in ("tid = cuda.threadIdx.x", "lane = tid % 32", "warp = tid // 32",
                     "r0 = cuda.blockIdx.x * COLS"):
            buf.writeline(line)
        start, end = "warp", shape.length
        if split > 1:
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
    return k.finish((max(1, col_blocks), split), (block,))


def _lane_reductions(k, red, q):
    """red's accumulators for column q of a lane's group (acc{i}_{q})."""
    rq = _BlockReductions(k, red.nodes)
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
        if split == 1:
            _epilogue(k, red, shape)
            return
        for n in red.nodes:
            buf.writeline(f"{parts[n]}[cuda.blockIdx.y * {shape.rows} + r] = {red.names[n]}")
        buf.writeline("cuda.threadfence()   # partials visible before the ticket")
    each_column(fold_warps)
    if split == 1:
        return
    buf.writeline("cuda.syncthreads()")
    with buf.indent("if tid == 0:"):
        buf.writeline("last[0] = 1 if cuda.atomic.add(ticket, r0 // COLS, 1) == SPLIT - 1 else 0")
    buf.writeline("cuda.syncthreads()")

    def fold_parts():
        red.init(red.nodes)
        with buf.indent("for s in range(SPLIT):"):
            for n in red.nodes:   # an atomic read comes from L2, never a stale L1 line
                zero = k.ctx.const(0, red.dt(n))
                red.update_raw(n, f"cuda.atomic.add({parts[n]}, s * {shape.rows} + r, {zero})")
        _epilogue(k, red, shape)
    with buf.indent("if last[0] == 1:   # every block of these columns has published"):
        each_column(fold_parts)
        with buf.indent("if tid == 0:"):
            buf.writeline("ticket[r0 // COLS] = 0   # ready for the next launch")


def _reduce_split(k, red, shape) -> Fused:
    k.kind = "reduce: split over blocks"
    split = min(MAX_SPLIT, -(-shape.length // SPLIT_ELEMS))
    block = MAX_BLOCK
    buf = k.buf
    parts = {n: f"part{red.names[n][3:]}" for n in red.nodes}
    k.workspace += [(parts[n], red.dt(n), split) for n in red.nodes]
    k.workspace.append(("ticket", np.dtype("int32"), 1))
    k.module_consts += [f"SPLIT = {split}  # blocks, each folding a grid-stride share", ""]
    vp = VV.plan(k.arrays, {}, shape.length)
    if vp is not None:
        k.kind += f", {vp.lanes}-wide vectors"
        k.extra_imports.append(VV.IMPORT)
    with k.header():
        if vp is not None:
            buf.writeline(f"vec = {VV.aligned_check(k.arrays, {}, vp)}   # once per launch")
        _block_setup(k, block, red, "0   # the one output element")
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
                for n in red.nodes:   # an atomic read comes from L2, never a stale L1 line
                    zero = k.ctx.const(0, red.dt(n))
                    red.update_raw(n, f"cuda.atomic.add({parts[n]}, j, {zero})")
                buf.writeline("j += BLOCK")

            def finish():
                _epilogue(k, red, shape)
                buf.writeline("ticket[0] = 0   # ready for the next launch")
            red.fold(red.nodes, finish)
    return k.finish((split,), (block,))


# ----------------------------------------------------------------------------- rowwise

def gen_rowwise(name, node) -> Fused:
    k = _FusedKernel(name, node, "rowwise")
    nest = row_nest(k.body)
    reds, xshape, L, rows = list(nest.reds), nest.domain, nest.L, nest.rows
    level, per_row, passes = nest.level, nest.per_row, nest.passes
    # per-row values read by row elements, handed to the element passes once computed
    feeds = [v for n in k.body.nodes if n.output not in per_row for v in n.inputs
             if v in per_row]
    elem_outs = {v: names for v, names in k.outs.items() if v not in per_row}
    vp = VV.plan(k.arrays, elem_outs, rows * L)
    if vp is not None and L % vp.lanes:     # rows must start on whole groups
        vp = None
    block = _block_for(L // vp.lanes if vp else L)
    red = _BlockReductions(k, reds)
    cached = _row_cache(k, passes, L, rows)
    recip = _row_reciprocals(k.body, per_row)
    row = _RowPass(k, xshape, block, cached, red, elem_outs, level, recip)
    with k.header():
        for v, name in cached.items():
            k.buf.writeline(f"{name} = cuda.shared.array(ROW, {NUMBA_TYPE[v.type.dtype]})")
        if vp is not None:
            k.kind += f", {vp.lanes}-wide vectors"
            k.extra_imports.append(VV.IMPORT)
            k.buf.writeline(f"vec = {VV.aligned_check(k.arrays, elem_outs, vp)}   # once per launch")
        with _block_prologue(k, block, red, rows):
            rcse = CSE(k.buf, "r")
            rspace = flat_space(xshape[:-1], "r", rcse)
            given = {}
            for p in range(passes):
                mine = [n for n in reds if level[n.inputs[0]] == p]
                rev = k.evaluator(lambda v: rspace, rcse, given)
                g = {v: rev.expr(v) for v in dict.fromkeys(feeds) if level[v] <= p}
                # one reciprocal per row for each division by a per-row value
                invs = {d: rcse.get(f"({k.ctx.const(1, d.type.dtype)} / {g[d]})")
                        for d in dict.fromkeys(d for _, d in recip.values()) if d in g}
                red.init(mine)
                if vp is None:
                    row.scalar(p, rcse, {**given, **g}, mine, invs)
                else:
                    with k.buf.indent("if vec:"):
                        row.vectors(p, rcse, {**given, **g}, mine, invs, vp)
                    with k.buf.indent("else:"):
                        row.scalar(p, rcse, {**given, **g}, mine, invs)
                if mine:
                    def publish():
                        for n in mine:
                            k.buf.writeline(f"sh{red.names[n][3:]}[0] = {red.names[n]}")
                    red.fold(mine, publish)
                    k.buf.writeline("cuda.syncthreads()")
                    for n in mine:   # every thread reads the row's result
                        k.buf.writeline(f"{red.names[n]} = sh{red.names[n][3:]}[0]")
                    given.update(red.results(mine))
            row_outs = [v for v in k.outs if v in per_row]
            if row_outs:
                with k.buf.indent("if tid == 0:"):
                    cse = CSE(k.buf, "e", rcse)
                    ev = k.evaluator(lambda v: rspace, cse, given)
                    for v in row_outs:
                        k.store(v, rspace, ev.expr(v))
            k.buf.writeline("cuda.syncthreads()   # the shared slots are reused next row")
            k.buf.writeline("r += cuda.gridDim.x")
    return k.finish((max(1, min(rows, MAX_BLOCKS)),), (block,))


def _row_reciprocals(body, per_row) -> dict:
    """{quotient: (dividend, divisor)} for float divisions of a row element by a per-row value:
    the kernel computes 1/divisor once per row and multiplies (x * (1/s) is within 1.5 ulp of
    x / s)."""
    return {n.output: (n.inputs[0], n.inputs[1]) for n in body.nodes
            if n.op == Op.div and is_float(n.output.type.dtype) and n.inputs[1] in per_row
            and n.inputs[0] not in per_row and n.inputs[1].type.dtype == n.output.type.dtype}


class _RowPass:
    """One pass of a rowwise kernel over the elements of row r: scalar (j = tid, tid + block, ...)
    or in 128-bit groups (group j of the row, lanes j*lanes ... j*lanes + lanes - 1)."""

    def __init__(self, k, xshape, block, cached, red, elem_outs, level, recip):
        self.k, self.xshape, self.block, self.cached = k, xshape, block, cached
        self.red, self.elem_outs, self.level, self.recip = red, elem_outs, level, recip

    def _evaluator(self, xspace, cse, given, invs):
        ev = self.k.evaluator(lambda v: xspace, cse, given)
        for q, (x, d) in self.recip.items():    # x / s -> x * (1/s), 1/s computed per row
            if d in invs and q not in ev.memo:
                ev.memo[q] = cse.get(f"({ev.expr(x)} * {invs[d]})")
        return ev

    def _element(self, p, col, cse, given, mine, invs, lanes=None):
        """The pass's work at column `col`: cache fills, reductions, this level's outputs; returns
        {output: expression} (stored by the caller)."""
        k = self.k
        xspace = rows_space(self.xshape, "r", col, cse)
        # each thread rereads only the elements it cached: no syncthreads needed
        reread = {v: cse.get(f"{name}[{col}]") for v, name in self.cached.items() if p}
        ev = self._evaluator(xspace, cse, {**given, **(lanes or {}), **reread}, invs)
        for v, name in self.cached.items():
            if not p:
                k.buf.writeline(f"{name}[{col}] = {ev.expr(v)}")
        for n in mine:
            self.red.update(n, ev.expr(n.inputs[0]))
        return {v: ev.expr(v) for v in self.elem_outs if self.level[v] == p}

    def scalar(self, p, rcse, given, mine, invs):
        k = self.k
        k.buf.writeline("j = tid")
        with k.buf.indent(f"while j < {self.xshape[-1]}:"):
            cse = CSE(k.buf, "t", rcse)
            xspace = rows_space(self.xshape, "r", "j", cse)
            for v, e in self._element(p, "j", cse, given, mine, invs).items():
                k.store(v, xspace, e)
            k.buf.writeline(f"j += {self.block}")

    def vectors(self, p, rcse, given, mine, invs, vp):
        k, n = self.k, vp.lanes
        groups = self.xshape[-1] // n
        loads = VV.VectorPlan(n, tuple(v for v in vp.loads if not (p and v in self.cached)))
        k.buf.writeline("j = tid")
        with k.buf.indent(f"while j < {groups}:"):
            gcse = CSE(k.buf, "t", rcse)
            group = gcse.get(f"r * {groups} + j")
            lanes = VV.load_group(k.buf, k.arrays, loads, group)
            results = {}
            for lane in range(n):
                cse = CSE(k.buf, f"l{lane}_", gcse)
                col = cse.get(f"j * {n} + {lane}")
                mine_lane = self._element(p, col, cse, given, mine, invs,
                                          {v: names[lane] for v, names in lanes.items()})
                for v, e in mine_lane.items():
                    results.setdefault(v, []).append(e)
            VV.store_group(k.buf, {v: self.elem_outs[v] for v in results}, vp, group, results)
            k.buf.writeline(f"j += {self.block}")


def _row_cache(k, passes, L, rows) -> dict:
    """{input: shared array name} for the row-sized inputs a multi-pass rowwise kernel keeps in
    shared memory after its first pass reads them, when the row fits ROW_CACHE_BYTES."""
    if passes < 2:
        return {}
    row_inputs = [v for v in k.body.inputs if v.type.size == rows * L and not is_bool(v.type.dtype)]
    if not row_inputs or L * sum(v.type.dtype.itemsize for v in row_inputs) > ROW_CACHE_BYTES:
        return {}
    k.kind = "rowwise: row cached in shared memory"
    k.module_consts += [f"ROW = {L}  # elements of a cached row", ""]
    return {v: f"row{i}" for i, v in enumerate(row_inputs)}


# ----------------------------------------------------------------------------- matmul

def _rows_table(k, operand):
    """The module constant holding an im2col operand's row starts (MatmulOperand.rows: row r of
    the columns starts at ROWS[r] in its image), or None for an operand read as stored."""
    if operand.im2col is None:
        return None
    table = f"ROWS{len(k.module_consts)}"
    k.module_consts += [f"{table} = np.array({operand.rows}, dtype=np.int64)", ""]
    return table


def _operand_base(bspace, nest, operand) -> str:
    """Where batch element `bat` of a MatmulOperand starts: its offset plus the batch indices
    times its strides (MatmulNest.batch_strides)."""
    dims = [(d, s) for d, s in enumerate(nest.batch_strides(operand)) if s]
    at = bspace.dot([d for d, _ in dims], [s for _, s in dims]) if dims else "0"
    return f"({at} + {operand.offset})" if operand.offset else f"({at})"


def k_split(M, N, K, batch, dt) -> int:
    """How many shares of K a product's tiles are summed in (split-K): 1 when its tiles fill
    the SMs; else enough shares for SPLIT_K_BLOCKS blocks, each summing SPLIT_K_TILES K-tiles at
    least (its partial tile costs a store and a load per output), float products only (the
    partials are read back with atomics)."""
    rm, rn = TL.matmul_regs(M, N)
    T = TL.MM_THREADS
    tiles = -(-M // (T * rm)) * -(-N // (T * rn)) * max(1, math.prod(batch))
    if tiles >= SMS or np.dtype(dt) not in (np.dtype("float32"), np.dtype("float64")):
        return 1
    return max(1, min(-(-SPLIT_K_BLOCKS // tiles), -(-K // TL.BK) // SPLIT_K_TILES, MAX_K_SPLIT))


def gen_matmul(name, node) -> Fused:
    """o = a @ b (+ epilogue) in (16 rm, 16 rn) tiles (codegen/cuda/tiles.py: tensor cores for
    float32) over the MatmulNest's product, one batch element per grid.z, the epilogue applied
    to each accumulator before its only store. A product whose tiles leave SMs idle sums K in
    SPLIT shares (grid.z: batch element x share): each block stores its partial tile, and the
    last block of a tile (an atomic ticket) sums the partials in share order and applies the
    epilogue."""
    k = _FusedKernel(name, node, "matmul")
    nest = matmul_nest(k.body)
    mm, M, N, Kdim, batch = nest.node, nest.M, nest.N, nest.K, nest.batch
    D, dt = mm.output.type.shape, mm.output.type.dtype
    T = TL.MM_THREADS
    rm, rn = TL.matmul_regs(M, N)
    tiles = TL.tiles_for(dt, rm, rn)
    split = k_split(M, N, Kdim, batch, dt)
    k.kind = f"matmul: {tiles.kind}" + (f", K in {split} shares" if split > 1 else "")
    a, b = k.arrays[nest.a.value], k.arrays[nest.b.value]
    at, bt = nest.a.transposed, nest.b.transposed
    brows = _rows_table(k, nest.b)      # only B is an im2col (fusion_rules.im2col_operand_ok)
    k.module_consts += tiles.consts()
    grid = (max(1, -(-N // (T * rn))), max(1, -(-M // (T * rm))), max(1, math.prod(batch)))
    tile_count = math.prod(grid)
    if split > 1:       # a slot per share, tile, thread and output of the thread; a ticket per tile
        k.module_consts += [f"SPLIT = {split}  # shares of K per output tile", ""]
        k.workspace += [("parts", np.dtype(dt), split * tile_count * T * T * tiles.per_thread),
                        ("ticket", np.dtype("int32"), tile_count)]
    buf = k.buf
    with k.header():
        tiles.prologue(buf, NUMBA_TYPE[np.dtype(dt)], split > 1)
        if brows is not None:
            buf.writeline(f"rows_b = cuda.const.array_like({brows})")
        cse = CSE(buf, "b")
        bspace = flat_space(batch, "bat", cse)
        abase, bbase = (_operand_base(bspace, nest, x) for x in (nest.a, nest.b))

        def store(n, acc):
            ecse = CSE(buf, f"e{n}_", cse)
            space = Space(D, [functools.partial(bspace.index, d) for d in range(len(batch))]
                          + ["row", "col"], ecse)
            ev = k.evaluator(lambda v: space, ecse, {mm.output: acc})
            for v in nest.outputs:
                if nest.store and v is nest.store[0]:   # the product, at the store's strides
                    at = space.dot(range(len(D)), (*nest.store[1], nest.store[2], 1))
                    for o in k.outs[v]:
                        buf.writeline(f"{o}[{at}] = {acc}")
                else:
                    k.store(v, space, ev.expr(v))
        operands = ((a, abase, at, nest.a.ld),
                    (b, bbase, bt, nest.b.ld, None if brows is None else "rows_b"))
        zero = k.ctx.const(0, dt)
        if split == 1:
            tiles.main(buf, zero, *operands, (M, N, Kdim), store)
        else:
            _split_k(k, tiles, split, (M, N, Kdim), grid, operands, store, zero)
    return k.finish(grid[:2] + (grid[2] * split,), (T, T))


def _split_k(k, tiles, split, dims, grid, operands, store, zero):
    """Share `ks` of K summed into a partial tile (workspace `parts`); the last block of the
    tile (workspace `ticket`) sums the shares in order and stores through `store`."""
    M, N, K = dims
    buf = k.buf
    tile_count = math.prod(grid)
    chunk = -(-(-(-K // TL.BK)) // split) * TL.BK       # K per share: whole K-tiles
    per_tile = TL.MM_THREADS ** 2 * tiles.per_thread
    buf.writeline("last = cuda.shared.array(1, int32)")
    buf.writeline(f"tile = (bat * {grid[1]} + cuda.blockIdx.y) * {grid[0]} + cuda.blockIdx.x")

    def slot(share, n):
        return f"({share} * {tile_count} + tile) * {per_tile} + t * {tiles.per_thread} + {n}"

    def publish(n, acc):
        buf.writeline(f"parts[{slot('ks', n)}] = {acc}")
    tiles.main(buf, zero, *operands, dims, publish,
               (f"ks * {chunk}", f"min({K}, ks * {chunk} + {chunk})"))
    buf.writeline("cuda.threadfence()   # partials visible before the ticket")
    buf.writeline("cuda.syncthreads()")
    with buf.indent("if t == 0:"):
        buf.writeline("last[0] = 1 if cuda.atomic.add(ticket, tile, 1) == SPLIT - 1 else 0")
    buf.writeline("cuda.syncthreads()")

    def finish(n, _):
        buf.writeline(f"ksum = {zero}")
        with buf.indent("for kp in range(SPLIT):   # in share order: the same bits every run"):
            # an atomic read comes from L2, never a stale L1 line
            buf.writeline(f"ksum += cuda.atomic.add(parts, {slot('kp', n)}, {zero})")
        store(n, "ksum")
    with buf.indent("if last[0] == 1:   # every share of this tile has published"):
        tiles.outputs(buf, M, N, finish)
        with buf.indent("if t == 0:"):
            buf.writeline("ticket[tile] = 0   # ready for the next launch")


GENERATORS = {"elementwise": gen_elementwise, "reduce": gen_reduce, "rowwise": gen_rowwise,
              "matmul": gen_matmul}


# ----------------------------------------------------------------------------- coverage

def why_not(node) -> str | None:
    """None when GENERATORS[kind] writes kernel `node`, else why not: what the generators
    assume, checked on the body before any code is written (the kernel then runs op by op), or
    a kind they do not write (opaque kernels: op by op; control flow: a host loop). The CUDA
    entry of codegen/coverage.py."""
    kind = node.params["kind"]
    if kind not in GENERATORS:
        op = control_op(node)
        return (f"{op} holds sub-graphs (a host loop over their kernels)" if op is not None
                else f"{kind} kernel: eager per-op kernels")
    body = node.params["body"]
    arrays = set(body.inputs) | {n.output for n in array_constants(body)}
    reds = [n for n in body.nodes if n.op in REDUCE]
    args = [n for n in reds if exprs.REDUCER_KIND.get(n.op, (None, True))[1]]
    if args:
        return f"{args[0].op} runs as an eager kernel"
    return _WHY_NOT[kind](body, arrays, reds)


def _points(body, arrays, space, values, given=()):
    """Why the values (computed, then stored when outputs) cannot be had at a point of `space`."""
    stores = (broadcast_gap(space.shape, v.type.shape) for v in values if v in body.outputs)
    return gap(body, arrays, lambda v: space, values, given) or next(filter(None, stores), None)


def _elementwise_why_not(body, arrays, reds):
    shape = max((v.type.shape for v in body.outputs), key=math.prod)
    return _points(body, arrays, bare(shape), body.outputs)


def _reduce_why_not(body, arrays, reds):
    xshape, axes = reds[0].inputs[0].type.shape, tuple(sorted(reds[0].params["axes"]))
    if any(tuple(sorted(r.params["axes"])) != axes or r.inputs[0].type.shape != xshape
           for r in reds):
        return "reductions over different axes in one kernel"
    info = analyze(body.nodes, body.outputs)
    if info is None or info.kind != "reduce":
        return "a body that is not one reduction nest"
    nest = reduce_nest(body, info)
    if any(v not in nest.epilogue for v in body.outputs):
        return "a reduce kernel output computed before its reductions"
    shape = _ReduceShape(nest)
    return (_points(body, arrays, bare(xshape), [r.inputs[0] for r in reds]) or
            _points(body, arrays, bare(shape.rshape), body.outputs, {r.output for r in reds}))


def _rowwise_why_not(body, arrays, reds):
    xshape = reds[0].inputs[0].type.shape
    if any(r.inputs[0].type.shape != xshape or tuple(r.params["axes"]) != (len(xshape) - 1,)
           for r in reds):
        return "rowwise reductions not all over the last axis"
    _, per_row = row_pass_levels(body, reds)
    feeds = [v for n in body.nodes if n.output not in per_row for v in n.inputs if v in per_row]
    done = {r.output for r in reds}
    row_values = feeds + [v for v in body.outputs if v in per_row]
    elements = [r.inputs[0] for r in reds] + [v for v in body.outputs if v not in per_row]
    return (_points(body, arrays, bare(xshape[:-1]), row_values, done) or
            _points(body, arrays, bare(xshape), elements, done | set(feeds)))


def _matmul_why_not(body, arrays, reds):
    (mm,) = [n for n in body.nodes if n.op == Op.matmul]
    if not is_float(mm.output.type.dtype):
        return f"{mm.output.type.dtype} matmul runs as an eager kernel"
    stored = product_stores(body.nodes, mm.output)
    return _points(body, arrays, bare(mm.output.type.shape),
                   [v for v in body.outputs if v not in stored], {mm.output})


_WHY_NOT = {"elementwise": _elementwise_why_not, "reduce": _reduce_why_not,
            "rowwise": _rowwise_why_not, "matmul": _matmul_why_not}
