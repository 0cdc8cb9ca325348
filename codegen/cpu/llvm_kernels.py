"""Kernel units as LLVM IR, built with llvmlite and compiled by codegen/cpu/llvm_jit.py.

The C ABI and argv roles of codegen/cpu/units.py: `i64 kernel(i8 **argv)`, argv holding the
body's inputs, its array constants, its outputs and (matmul) a scratch product, so the sequencer
cannot tell them apart. The loop structure is the kernel's nest (codegen/kernel/nest.py, shared
with the CUDA renderer), with the thresholds of codegen/kernel/costs.py:

- elementwise: the ElementwiseNest's collapsed shape, the unit-stride axis innermost;
- reduce: scalar accumulators when the reduced axes are innermost, else accumulator rows
  walked in memory order; long float sums in blocks of SUM_BLOCK;
- rowwise (softmax, layernorm): one walk of each row per dependent reduction level;
- matmul: the MatmulNest's GEMMs through BLAS gemm (scipy's Fortran BLAS, by symbol) or the
  unpacked kernels of llvm_small_gemm.py into the product, then the epilogue.

`why_not(node, hint)` says why these units do not build a kernel (an op or dtype the
instruction table lacks; since issue 26 every kernel the fusion pass forms is covered, and a
refusal is an internal error in codegen/cpu/units.py); `build` returns the module text and the
argv roles.
"""
from __future__ import annotations

import contextlib
import hashlib
import math
import os
import re

import numpy as np
from llvmlite import ir

from ...ir import config
from ...ir.ops import Op
from ...ir.passes import fusion_rules
from ...ir.passes.fusion_rules import analyze_kernel, matmul_operand, product_stores
from ...ir.passes.matmul_views import VIEW_OPS
from ...ir.primitives import REDUCE
from ..kernel.costs import PARALLEL_MIN, SUM_BLOCK, element_cost
from ..kernel.evaluator import array_constants
from ..kernel.exprs import REDUCER_KIND
from ..kernel.nest import aligned_shape, elementwise_nest, matmul_nest, reduce_nest, row_nest
from ..kernel.space import c_strides
from . import llvm_complex, llvm_heap, llvm_int_gemm, llvm_opaque, llvm_small_gemm
from .llvm_exprs import EXPR, I8, I64, LTYPE, const, counted_loop, icmp, ltype, supported
from .llvm_jit import blas_core, blas_symbol
from .llvm_math import intrinsic

SCRATCH_STACK = 1 << 16     # bytes of accumulator rows on the stack; more are malloc'd
_RELABEL = (Op.reshape, Op.broadcast_to)
_MATMUL_READS = (Op.matmul, Op.im2col, *VIEW_OPS)   # operands read in place
FN = "jg_kernel"
POOL_ENTRY = "jg_parallel_for"    # runtime/thread_pool.py, resolved by name when a unit loads
GRAIN = PARALLEL_MIN // 8         # element-costs: the least work worth one chunk of a thread
UNROLL_TRIPS = 4                  # constant-trip loops this short are unrolled (Fn.loop)
GEMM_MIN = 1 << 20                # multiply-adds (~20 us on one core): below, a GEMM stays on one
                                  # thread. The LSTM's 16x128x512 step product is on the pool since
                                  # its workers wait awake between kernels (LSTM step 3.9-4.1 ->
                                  # 3.4-3.6 ms); while they slept it paid more to wake them
GEMM_GRAIN = 1 << 17              # multiply-adds per chunk at least
GEMM_ROW_BLOCKS = 16              # a product's rows in at most this many blocks (fixed, as below)
GEMM_BLOCK_ROWS = 128             # rows per row block at least: each block re-packs the other
                                  # operand (MLP's 256x784x512 in 16 blocks of 16 rows: 80
                                  # GFLOP/s; in 2 of 128: ~2x faster, as OpenBLAS's own threads)
GEMM_BLOCKS = 256                 # or, in blocks for the small-matrix kernel, at most this many
                                  # (a ResNet conv's 32 images x [16,144]@[144,1088] in 96: 2.0 ->
                                  # 1.2-1.3 ms; capped at 64 they were packed, the columns re-packed
                                  # per image: ResNet step 41-44 -> 35 ms)
GEMM_BLOCK_MIN = 8                # rows (columns) per block at least
GEMM_SMALL = 100 ** 3             # OpenBLAS's small-matrix kernel takes m*n*k up to this (no
                                  # packing): GPT's [512,512]x[512,128] in 35 such row blocks
                                  # 0.65 ms, in 16 blocks of 32 rows 1.1 ms, in 8 of 64 0.9 ms
SMALL_KERNEL_CORES = ("SkylakeX", "Cooperlake", "SapphireRapids")  # OpenBLAS's cores that have
                                  # it: the others pack each thin block (Haswell on znver3: GPT's
                                  # [512,512]x[512,128] in 35 blocks 2.0 ms, in 4 packed 0.74 ms)
COLUMN_MIN = 16                   # columns per block of a parallel column reduction at least
REDUCE_BLOCKS = 32                # partial results of a parallel full reduction (fixed: the
                                  # result does not depend on the number of threads)
ARGV = ir.PointerType(ir.PointerType(I8))
GEMM_NAMES = {"float32": "sgemm", "float64": "dgemm", "complex64": "cgemm", "complex128": "zgemm"}


def _mem_type(dt):
    return I8 if np.dtype(dt).kind == "b" else ltype(dt)


# ----------------------------------------------------------------------------- what it takes

def why_not(node, product_hint=None):
    """None when this backend builds the kernel, else the reason it does not."""
    kind = node.params["kind"]
    body = node.params["body"]
    for v in (*body.inputs, *body.outputs):
        if np.dtype(v.type.dtype).name not in LTYPE:
            return f"dtype {v.type.dtype}"
    if kind == "opaque":
        return llvm_opaque.why_not(node)
    if kind not in GENERATORS:
        return f"{kind} kernels"
    for n in body.nodes:
        if n.op in (Op.constant, *_RELABEL) or (kind == "matmul" and n.op in _MATMUL_READS):
            continue
        if n.op in REDUCE:
            if n.op not in REDUCER_KIND:
                return f"op {n.op.name}"
            dt = np.dtype(n.inputs[0].type.dtype).name
            if np.dtype(dt).kind not in "fiu" and \
                    not (dt == "bool" and REDUCER_KIND[n.op][0] in ("max", "min")) and \
                    not (np.dtype(dt).kind == "c" and REDUCER_KIND[n.op][0] in ("sum", "prod")):
                return f"{n.op.name} over {n.inputs[0].type.dtype}"
            continue
        if not supported(n.op, [x.type.dtype for x in n.inputs], n.output.type.dtype):
            return f"op {n.op.name} on {', '.join(str(x.type.dtype) for x in n.inputs)}"
    if kind == "matmul":
        m = next(n for n in body.nodes if n.op == Op.matmul)
        if np.dtype(m.output.type.dtype).kind not in "fiuc":
            return f"a {m.output.type.dtype} matmul"
        producers = body.producers()
        if any(matmul_operand(producers, x) is None for x in m.inputs):
            return "a matmul operand computed in the kernel"
        if product_hint is None and m.output not in body.outputs and not product_stores(
                body.nodes, m.output):
            return "a matmul product without a buffer"
    return None


# ----------------------------------------------------------------------------- the function

class _Fn:
    def __init__(self, node, product_hint):
        self.node = node
        self.body = body = node.params["body"]
        self.info = analyze_kernel(node)
        self.module = ir.Module(name="jg_llvm")
        self.fn = ir.Function(self.module, ir.FunctionType(I64, [ARGV]), name=FN)
        self.b = ir.IRBuilder(self.fn.append_basic_block("entry"))
        self.roles = []
        self.consts = [n.params["value"] for n in
                       array_constants(body, every=node.params["kind"] == "opaque")]
        self._bind(self.fn.args[0])
        self.product_hint = product_hint
        self.blas = None            # fn name -> (gemm symbol, integer bits); None: llvm_jit's
        self.parallel = False       # whether kernels may use the runtime's pool
        self.form = None            # parallel_form, when parallel
        self.range = None           # (begin, end) of the outermost loop, in a range body
        self.range_n = None         # that loop's full extent (known once the body is built)
        self.shifted = False        # an opaque slice/pad's offsets in argv slots (llvm_opaque.shifts)

    def _bind(self, argv):
        """Pointers to the arrays, loaded from `argv` in the function being built."""
        body = self.body
        self.argv, self._status = argv, None
        self.arrays = {}            # Value -> typed pointer it is read from
        self.outs = {}              # Value -> [typed pointers it is stored to]
        for k, v in enumerate(body.inputs):
            self.arrays[v] = self._arg(v.type.dtype, ("in", k))
        for k, n in enumerate(array_constants(body, every=self.node.params["kind"] == "opaque")):
            self.arrays[n.output] = self._arg(n.output.type.dtype, ("const", k))
        for k, v in enumerate(body.outputs):
            self.outs.setdefault(v, []).append(self._arg(v.type.dtype, ("out", k)))

    def status(self):
        """The status pair [check number, offending index] (an argv slot of its own)."""
        if self._status is None:
            self._status = self._arg(np.int64, ("status",))
        return self._status

    def at(self, dt):
        """The ("at", 0) slot of a shifted pad: its output where the input lands."""
        return self._arg(dt, ("at", 0))

    def _arg(self, dt, role):
        b = self.b
        if role not in self.roles:
            self.roles.append(role)
        p = b.load(b.gep(self.argv, [ir.Constant(I64, self.roles.index(role))]))
        return b.bitcast(p, ir.PointerType(_mem_type(dt)))

    # -- a parallel kernel: its loop over [begin, end) as a function of its own

    def range_body(self, extras=()):
        """Build from here `void jg_kernel_range(i8 **ctx, i64 begin, i64 end)` (ctx[0]: argv,
        ctx[1:]: the pointers `extras` of the kernel function, as the same types): returns what
        end_range_body needs and the extras as seen in the body."""
        saved = (self.fn, self.b, self.argv, self.arrays, self.outs, self._status)
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [ARGV, I64, I64]),
                         name=f"{FN}_range{len(self.module.functions)}")
        fn.linkage = "internal"
        ctx = self.alloca(ir.PointerType(I8), 1 + len(extras))
        for k, p in enumerate([self.argv, *extras]):
            self.b.store(self.b.bitcast(p, ir.PointerType(I8)), self.b.gep(ctx, [ir.Constant(I64, k)]))
        self.fn, self.b = fn, ir.IRBuilder(fn.append_basic_block("entry"))
        loaded = [self.b.load(self.b.gep(fn.args[0], [ir.Constant(I64, k)]))
                  for k in range(1 + len(extras))]
        self._bind(self.b.bitcast(loaded[0], ARGV))
        self.range, self.range_n = tuple(fn.args[1:]), None
        mine = [self.b.bitcast(v, p.type) for v, p in zip(loaded[1:], extras)]
        return (saved, fn, ctx), mine

    def end_range_body(self, state, grain_work, work=None):
        """Close the range body and call it through the runtime's pool over its range (`work`:
        of the whole range, in the units of grain_work; default: element-costs)."""
        saved, body, ctx = state
        self.b.ret_void()
        (self.fn, self.b, self.argv, self.arrays, self.outs, self._status) = saved
        self.range = None
        if not self.range_n:
            return
        work = work or math.prod(self.info.domain) * element_cost(self.body.nodes)
        grain = max(1, -(-self.range_n * grain_work // max(work, 1)))
        pf = _extern(self, POOL_ENTRY, ir.FunctionType(ir.VoidType(), [body.type, ARGV, I64, I64]))
        self.b.call(pf, [body, ctx, ir.Constant(I64, self.range_n), ir.Constant(I64, grain)])

    def outer_nest(self, shape, emit, flat=False):
        """nest(shape, emit), but in a range body the outermost loop covers [begin, end) of
        axis 0 (flat: of the flattened shape, its indices unravelled)."""
        if self.range is None:
            return self.nest(shape, emit)
        begin, end = self.range
        shape = tuple(shape)
        if flat or not shape:
            self.range_n = math.prod(shape)
            with self.loop(end, begin) as r:
                emit(_unravel(self, shape, r) if len(shape) > 1 else [r][:len(shape)])
            return
        self.range_n = shape[0]
        with self.loop(end, begin) as i0:
            self.nest(shape[1:], lambda idx: emit([i0, *idx]))

    # -- loops and memory

    @contextlib.contextmanager
    def loop(self, n, start=0):
        """for i in range(start, n): yields i (an i64 value). A loop of at most UNROLL_TRIPS
        constant trips is unrolled whole (its latch asks LLVM, whose pipeline here unrolls only
        loops that ask): max pooling's 2x2 windows as 2-trip loops ran its backward's
        eq+convert+reduce_sum at 780 us, unrolled 190."""
        with counted_loop(self.b, n, start) as i:
            yield i
        if isinstance(n, int) and isinstance(start, int) and n - start <= UNROLL_TRIPS:
            _, latch = i.incomings[-1]
            m = self.module
            _loop_property(m, latch.terminator,
                           m.add_metadata([ir.MetaDataString(m, "llvm.loop.unroll.full")]))

    def nest(self, shape, emit):
        """Nested loops over `shape`; emit(indices) writes the innermost body."""
        with contextlib.ExitStack() as stack:
            idx = [stack.enter_context(self.loop(e)) for e in shape]
            emit(idx)

    def alloca(self, ty, n=None):
        with self.b.goto_entry_block():
            return self.b.alloca(ty, size=None if n is None else ir.Constant(I64, n))

    def load(self, ptr, off, dt):
        v = self.b.load(self.b.gep(ptr, [off], inbounds=True))
        return self.b.icmp_unsigned("!=", v, ir.Constant(I8, 0)) if np.dtype(dt).kind == "b" else v

    def store(self, ptr, off, value, dt):
        if np.dtype(dt).kind == "b":
            value = self.b.zext(value, I8)
        self.b.store(value, self.b.gep(ptr, [off], inbounds=True))

    def finish(self) -> str:
        self.b.ret(self.b.load(self._status) if self._status is not None else ir.Constant(I64, 0))
        return _vector_width(_distinct_loop_metadata(str(self.module)))

    def may_run_in_place(self) -> bool:
        """Whether the memory plan may store an output of this kernel in place of an input (an
        input of an output's size) and every value is a float or a bool: the loops
        parallel_loops marks. Bools too: ReLU's in-place `where(x <= 0, 0, x)` with its mask,
        unmarked, ran LLVM's scalar version at 2.3 ms against 0.1 ms, 20% of the CNN step.
        Not integers: marked, a loop over integers computing a loop-invariant power (32
        squarings of a broadcast operand) hung LLVM's optimizer."""
        body = self.body
        sizes = {v.type.size for v in body.outputs}
        return (any(v.type.size in sizes for v in body.inputs)
                and all(np.dtype(v.type.dtype).kind in "fb"
                        for n in body.nodes for v in (*n.inputs, *n.outputs)))

    @contextlib.contextmanager
    def parallel_loops(self):
        """The loops built inside have independent iterations, which their latches say
        (llvm.loop.parallel_accesses over one access group holding their loads and stores).
        The memory plan stores an elementwise kernel's output in place of an input it reads at
        the same index: LLVM's runtime overlap check then failed and sent the loop to its
        scalar version (an in-place update of 1M floats: 1467 us against 190)."""
        fn, first = self.fn, len(self.fn.blocks)
        yield
        if not self.may_run_in_place():
            return
        m = self.module
        group = m.add_metadata([ir.MetaDataString(m, _GROUP)])
        accesses = m.add_metadata([ir.MetaDataString(m, "llvm.loop.parallel_accesses"), group])
        blocks = fn.blocks[first:]
        heads = {blk: k for k, blk in enumerate(blocks) if blk.name.startswith("head")}
        for k, blk in enumerate(blocks):
            for ins in blk.instructions:
                if isinstance(ins, (ir.LoadInstr, ir.StoreInstr)):
                    ins.set_metadata("llvm.access.group", group)
                elif isinstance(ins, ir.Branch) and heads.get(ins.operands[0], k) < k:
                    # a latch (the back edge to its loop's head), each loop its own id; not
                    # the edge into an inner loop (a loop id there hung LLVM's optimizer)
                    _loop_property(m, ins, accesses)

    # -- index-map-aligned shapes

    def shape_in(self, v, drop=()):
        return aligned_shape(self.info, v, drop)

    def reduced(self, v):
        return any(a in self.info.reduce_axes for a in self.info.maps[v])


class _Space:
    """Loop indices over `shape`; offset(s) is where an aligned operand of shape s is read."""

    def __init__(self, fn, shape, idx, flat=None):
        self.fn, self.shape, self.idx = fn, tuple(shape), list(idx)
        self.size = math.prod(self.shape)
        self._memo = {}
        if flat is not None:
            self._memo[self.shape, fn.b.block] = flat

    def offset(self, shape):
        """Memoized per basic block: an offset computed inside a loop body is not visible after
        the loop (LLVM's GVN and LICM share what can be shared)."""
        shape = tuple(shape)
        if math.prod(shape) == self.size and self.size != 1:
            shape = self.shape
        key = (shape, self.fn.b.block)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = self._dot(shape)
        return hit

    def _dot(self, shape):
        b = self.fn.b
        if len(shape) != len(self.shape):
            raise AssertionError(f"llvm codegen: operand shape {shape} vs space {self.shape}")
        acc = None
        for d, (e, s) in enumerate(zip(shape, c_strides(shape))):
            if e == 1:
                continue
            term = self.idx[d] if s == 1 else b.mul(self.idx[d], ir.Constant(I64, s), flags=("nuw", "nsw"))
            acc = term if acc is None else b.add(acc, term, flags=("nuw", "nsw"))
        return acc if acc is not None else ir.Constant(I64, 0)


class _Point:
    """Body values at one point: loads at index-map-aligned offsets, constants, the op table."""

    def __init__(self, fn, space_of, shapes, given=None):
        self.fn, self.space_of, self.shapes = fn, space_of, shapes
        self.memo = dict(given or {})
        self.producers = fn.body.producers()

    def expr(self, v):
        hit = self.memo.get(v)
        if hit is not None:
            return hit
        fn, node = self.fn, self.producers.get(v)
        if node is None or v in fn.arrays:
            e = fn.load(fn.arrays[v], self.space_of(v).offset(self.shapes[v]), v.type.dtype)
        elif node.op == Op.constant:
            lit = node.params["value"]
            e = const(v.type.dtype, lit.array.reshape(-1)[0])
        elif node.op in _RELABEL:
            e = self.expr(node.inputs[0])
        else:
            args = [self.expr(x) for x in node.inputs]
            e = EXPR[node.op](fn.b, args, [x.type.dtype for x in node.inputs], v.type.dtype)
        self.memo[v] = e
        return e

    def store_all(self, values):
        """Every value first, then the stores (an output may be written over an input)."""
        pairs = [(v, self.expr(v)) for v in values]
        for v, e in pairs:
            for ptr in self.fn.outs.get(v, []):
                self.fn.store(ptr, self.space_of(v).offset(self.shapes[v]), e, v.type.dtype)


# ----------------------------------------------------------------------------- elementwise

# llvmlite writes no distinct (self-referencing) metadata: these markers are rewritten as text
_GROUP, _LOOP = "jg.access.group", "jg.loop"
_MD_GROUP = re.compile(r'^(!\d+) = !{ !"' + re.escape(_GROUP) + r'" }$', re.M)
_MD_LOOP = re.compile(r'^(!\d+) = !{ !"' + re.escape(_LOOP) + r'\d+", (.*) }$', re.M)


def _loop_property(m, latch, prop):
    """Add the metadata node `prop` to the loop id on the branch `latch` (one id per loop)."""
    had = latch.metadata.get("llvm.loop")
    props = [*(had.operands[1:] if had is not None else ()), prop]
    latch.set_metadata("llvm.loop", m.add_metadata(
        [ir.MetaDataString(m, f"{_LOOP}{len(m.metadata)}"), *props]))


def _distinct_loop_metadata(text: str) -> str:
    """An access group is a distinct node without operands; a loop's own node refers to
    itself."""
    text = _MD_GROUP.sub(r"\1 = distinct !{}", text)
    return _MD_LOOP.sub(r"\1 = distinct !{\1, \2}", text)


_DEFINE = re.compile(r"(?m)^(define [^\n]*\))$")


def _vector_width(text: str) -> str:
    """Each function of the unit asks LLVM's loop vectorizer for vectors of the option
    cpu_vector_width's bits (an attribute llvmlite's IR builder does not take, so in the text)."""
    width = config.read("cpu_vector_width")
    return _DEFINE.sub(rf'\1 "prefer-vector-width"="{width}"', text) if width else text


def _elementwise(fn, nest):
    """The ElementwiseNest's loops over its collapsed shape, storing its outputs."""
    def emit(idx):
        space = _Space(fn, nest.shape, idx)
        _Point(fn, lambda v: space, nest.shapes).store_all(nest.outputs)
    with fn.parallel_loops():
        if nest.size:
            fn.outer_nest(nest.shape, emit)


def _elementwise_rows(fn, outs, lo, hi):
    """Store `outs` over rows [lo, hi) of the kernel's domain (its axes but the last
    flattened), the last axis the inner loop: a matmul's epilogue after a row block."""
    D = fn.info.domain
    lead = D[:-1]
    shapes = {v: fn.shape_in(v) for v in fn.info.maps if v in fn.arrays or v in fn.outs}
    with fn.parallel_loops(), fn.loop(hi, lo) as r:
        head = _unravel(fn, lead, r) if len(lead) > 1 else [r]
        with fn.loop(D[-1]) as j:
            space = _Space(fn, D, [*head, j])
            _Point(fn, lambda v: space, shapes).store_all(outs)


def gen_elementwise(fn):
    _elementwise(fn, elementwise_nest(fn.body, fn.info))


# ----------------------------------------------------------------------------- reductions

class _Accs:
    """Scalar accumulators (allocas) of the reductions of a body; argmax/argmin also keep the
    index of their winner."""

    def __init__(self, fn, nodes, window=False, keyed=False):
        self.fn, self.nodes = fn, nodes
        # keyed: float max/min accumulate integer keys (_key) where a select feeds them: LLVM
        # vectorizes that, and not llvm.maximum of where(mask, x, -inf) (attention's masked
        # softmax stayed a scalar loop, 12 instructions an element); elsewhere llvm.maximum,
        # vectorized, is the faster (a 4096x1024 row max 0.52-0.63 ms against 0.61-0.65 keyed)
        self.keyed = {n for n in nodes if keyed and not window
                      and REDUCER_KIND[n.op][0] in ("max", "min") and not REDUCER_KIND[n.op][1]
                      and ltype(self.dtype(n)) in _FLOAT_BITS and _select_fed(fn.body, n)}
        self.slot = {n: fn.alloca(self.ty(n)) for n in nodes}
        self.arg = {n: fn.alloca(I64) for n in nodes if REDUCER_KIND[n.op][1]}
        self.window = window    # every reduced loop unrolled (Fn.loop): straight-line scalars

    def dtype(self, n):
        dt = np.dtype(n.inputs[0].type.dtype)
        if dt.kind in "iu" and REDUCER_KIND[n.op][0] in ("sum", "prod"):
            return np.dtype("int64" if dt.kind == "i" else "uint64")
        return dt

    def ty(self, n):
        if n in self.keyed:
            return ir.IntType(_FLOAT_BITS[ltype(self.dtype(n))])
        return ltype(self.dtype(n))

    def init_value(self, n):
        kind, dt = REDUCER_KIND[n.op][0], self.dtype(n)
        if n in self.keyed:         # the key of -inf (max) or +inf (min)
            return _key(self.fn.b, const(dt, -np.inf if kind == "max" else np.inf), kind)
        if kind in ("sum", "prod"):
            return const(dt, 0 if kind == "sum" else 1)
        if dt.kind == "f":
            return const(dt, -np.inf if kind == "max" else np.inf)
        if dt.kind == "b":          # any / all
            return const(dt, kind == "min")
        info = np.iinfo(dt)
        return const(dt, info.min if kind == "max" else info.max)

    def init(self, slots=None):
        for n in self.nodes:
            if slots is None or n in slots:
                self.fn.b.store(self.init_value(n), (slots or self.slot)[n])
            if slots is None and n in self.arg:
                self.fn.b.store(ir.Constant(I64, 0), self.arg[n])

    def combine(self, n, acc, v, widened=False):
        b, kind, dt = self.fn.b, REDUCER_KIND[n.op][0], self.dtype(n)
        if dt != np.dtype(n.inputs[0].type.dtype) and not widened:
            v = (b.zext if dt.kind == "u" else b.sext)(v, ltype(dt))
        if dt.kind == "c":
            return llvm_complex.combine(b, kind, acc, v)
        if kind == "sum":
            return b.fadd(acc, v, flags=("reassoc",)) if dt.kind == "f" else b.add(acc, v)
        if kind == "prod":
            return b.fmul(acc, v, flags=("reassoc",)) if dt.kind == "f" else b.mul(acc, v)
        if n in self.keyed:
            return intrinsic(b, "llvm.smax" if kind == "max" else "llvm.smin", acc.type, acc,
                             _key(b, v, kind))
        if dt.kind == "f" and self.window and acc.type in _FLOAT_BITS:
            return _window_extreme(b, kind, acc, v)
        if dt.kind == "f":      # NaN-propagating, and a reduction LLVM vectorizes
            return intrinsic(b, "llvm.maximum" if kind == "max" else "llvm.minimum", acc.type, acc, v)
        return EXPR[Op.max if kind == "max" else Op.min](b, [v, acc], [dt, dt], dt)

    def better(self, n, v, best):
        """Whether v replaces the winner of argmax/argmin: strictly better, or the first NaN."""
        b, sym = self.fn.b, ">" if REDUCER_KIND[n.op][0] == "max" else "<"
        if self.dtype(n).kind != "f":
            return icmp(b, self.dtype(n))(sym, v, best)
        first_nan = b.and_(b.fcmp_unordered("uno", v, v), b.fcmp_ordered("ord", best, best))
        return b.or_(b.fcmp_ordered(sym, v, best), first_nan)

    def update(self, n, v, slot=None, index=None, arg=None, widened=False):
        """The accumulator at `slot` (and, for argmax/argmin, the index at `arg`) absorbs element
        v found at position `index` of the reduced axis."""
        b = self.fn.b
        slot = slot or self.slot[n]
        if n not in self.arg:
            b.store(self.combine(n, b.load(slot), v, widened), slot)
            return
        arg = arg or self.arg[n]
        acc = b.load(slot)
        take = self.better(n, v, acc)
        b.store(b.select(take, v, acc), slot)
        b.store(b.select(take, index if index is not None else ir.Constant(I64, 0), b.load(arg)), arg)

    def value(self, n, v):
        """An accumulated value (or winner's index) as the op's output dtype."""
        have = np.dtype("int64") if n in self.arg else self.dtype(n)
        if n in self.keyed:
            v = self.fn.b.bitcast(_flip(self.fn.b, v), ltype(have))
        want = np.dtype(n.output.type.dtype)
        return v if want == have else EXPR[Op.convert](self.fn.b, [v], [have], want)

    def results(self):
        """Reduction output -> its value."""
        return {n.output: self.value(n, self.fn.b.load(self.arg.get(n, self.slot[n])))
                for n in self.nodes}


_FLOAT_BITS = {ir.FloatType(): 32, ir.DoubleType(): 64}


def _select_fed(body, red) -> bool:
    """Whether a select in the kernel body computes (part of) what reduction `red` reads."""
    producer = body.producers()
    todo, seen = [red.inputs[0]], set()
    while todo:
        n = producer.get(todo.pop())
        if n is None or n in seen:
            continue
        if n.op == Op.select:
            return True
        seen.add(n)
        todo.extend(n.inputs)
    return False


def _flip(b, bits):
    """Negative floats' bits but the sign flipped: the map between a float's bits and its key,
    its own inverse (the sign bit is kept)."""
    w = bits.type.width
    return b.xor(bits, b.and_(b.ashr(bits, ir.Constant(bits.type, w - 1)),
                              ir.Constant(bits.type, (1 << (w - 1)) - 1)))


def _key(b, v, kind):
    """A signed integer ordered as IEEE maximum/minimum order floats (-0 below +0), NaN made
    the key that wins (a positive quiet NaN above +inf for max, a negative one below -inf for
    min): max/min of keys, mapped back, is llvm.maximum/minimum of the floats, in any order."""
    w = _FLOAT_BITS[v.type]
    ity = ir.IntType(w)
    nan = np.array(np.nan if kind == "max" else -np.nan, f"f{w // 8}").view(f"i{w // 8}")
    bits = b.select(b.fcmp_unordered("uno", v, v), ir.Constant(ity, int(nan)),
                    b.bitcast(v, ity))
    return _flip(b, bits)


def _window_extreme(b, kind, acc, v):
    """llvm.maximum / llvm.minimum (NaN wins; +0 > -0) without branches, for scalar code: x86's
    scalar lowering of the intrinsic branches on a sign bit, a misprediction on half of random
    inputs (max pooling's 2x2 windows: 1.0 ms for 100k outputs, 12 ns each)."""
    ity = ir.IntType(_FLOAT_BITS[acc.type])
    r = b.select(b.fcmp_ordered(">" if kind == "max" else "<", acc, v), acc, v)
    ai, vi = b.bitcast(acc, ity), b.bitcast(v, ity)
    tie = b.bitcast((b.and_ if kind == "max" else b.or_)(ai, vi), acc.type)  # +-0: sign bits
    r = b.select(b.fcmp_ordered("==", acc, v), tie, r)
    return b.select(b.fcmp_unordered("uno", acc, v), b.fadd(acc, v), r)


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
    accs = _Accs(fn, reds, window=nest.layout != "columns" and bool(inner)
                 and max(inner) <= UNROLL_TRIPS, keyed=nest.layout != "columns")
    if nest.layout == "columns":
        return _reduce_outer(fn, accs, D, axes, kept, rshape, pre, post, shapes, part)
    sums = [n for n in reds if REDUCER_KIND[n.op][0] in ("sum", "prod")]

    def kept_body(kidx):
        rspace = _Space(fn, rshape, kidx)
        accs.init()

        def point(ridx, slots=None):
            at = dict(zip(kept, kidx))
            at.update(zip(axes, ridx))
            xspace = _Space(fn, D, [at[d] for d in range(len(D))])
            p = _Point(fn, lambda v: xspace if fn.reduced(v) else rspace, shapes)
            for n in reds:
                accs.update(n, p.expr(n.inputs[0]), (slots or {}).get(n),
                            ridx[-1] if ridx else None)
            p.store_all(pre)

        if sums and inner and inner[-1] > SUM_BLOCK:
            _blocked(fn, accs, sums, inner, point)
        else:
            fn.nest(inner, point)
        p = _Point(fn, lambda v: rspace, part, accs.results())
        p.store_all(post)

    fn.outer_nest(rshape, kept_body, flat=True)


def _blocked(fn, accs, sums, inner, point):
    """The innermost reduced loop in blocks of SUM_BLOCK, each summed on its own first: float32
    rounding error grows with the block size and count, not with the length."""
    b, n = fn.b, inner[-1]
    blocks = {r: fn.alloca(accs.ty(r)) for r in sums}

    def outer(oidx):
        with fn.loop(-(-n // SUM_BLOCK)) as blk:
            accs.init(blocks)
            lo = b.mul(blk, ir.Constant(I64, SUM_BLOCK))
            hi = b.add(lo, ir.Constant(I64, SUM_BLOCK))
            hi = b.select(b.icmp_signed("<", hi, ir.Constant(I64, n)), hi, ir.Constant(I64, n))
            with fn.loop(hi, lo) as j:
                point(oidx + [j], blocks)
            for r in sums:
                accs.update(r, b.load(blocks[r]))
    fn.nest(inner[:-1], outer)


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
    final = _Accs(fn, reds)
    rows = [fn.alloca(final.ty(n), P) for n in reds]
    args = [fn.alloca(I64, P) for n in reds if n in final.arg]
    state, mine = fn.range_body(rows + args)
    prow, parg = dict(zip(reds, mine)), dict(zip([n for n in reds if n in final.arg], mine[len(reds):]))
    accs = _Accs(fn, reds)
    zeros = [ir.Constant(I64, 0)] * len(kept)
    fn.range_n = P

    def point(ridx, slots=None):
        at = dict(zip(kept, zeros))
        at.update(zip(axes, ridx))
        xspace = _Space(fn, D, [at[d] for d in range(len(D))])
        rspace = _Space(fn, rshape, zeros)
        p = _Point(fn, lambda v: xspace if fn.reduced(v) else rspace, shapes)
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
    rspace = _Space(fn, rshape, zeros)
    _Point(fn, lambda v: rspace, part, final.results()).store_all(post)


def _reduce_outer(fn, accs, D, axes, kept, rshape, pre, post, shapes, part):
    """Last axis kept (a column sum): walk the input in memory order into accumulator rows."""
    b = fn.b
    rsize = math.prod(rshape)
    rows = {n: _scratch(fn, accs.dtype(n), rsize) for n in accs.nodes}
    args = {n: _scratch(fn, np.int64, rsize) for n in accs.arg}
    with fn.loop(rsize) as r:
        for n in accs.nodes:
            b.store(accs.init_value(n), b.gep(rows[n][0], [r], inbounds=True))
        for n in args:
            b.store(ir.Constant(I64, 0), b.gep(args[n][0], [r], inbounds=True))
    (axis,) = axes if len(axes) == 1 else (None,)

    def point(idx, rows_at, args_at):
        b = fn.b
        xspace = _Space(fn, D, idx)
        rspace = _Space(fn, rshape, [idx[d] for d in kept])
        p = _Point(fn, lambda v: xspace if fn.reduced(v) else rspace, shapes)
        r = rspace.offset(rshape)
        for n in accs.nodes:
            arg = b.gep(args_at[n], [r], inbounds=True) if n in args_at else None
            accs.update(n, p.expr(n.inputs[0]), b.gep(rows_at[n], [r], inbounds=True),
                        idx[axis] if axis is not None else None, arg)
        p.store_all(pre)
    if fn.form != "columns":
        fn.nest(D, lambda idx: point(idx, {n: v[0] for n, v in rows.items()},
                                     {n: v[0] for n, v in args.items()}))
    else:           # blocks of the last (kept) axis on the pool: each column's order unchanged
        state, mine = fn.range_body([rows[n][0] for n in rows] + [args[n][0] for n in args])
        rows_at, args_at = dict(zip(rows, mine)), dict(zip(args, mine[len(rows):]))
        L, blocks = D[-1], min(D[-1] // COLUMN_MIN, REDUCE_BLOCKS)
        fn.range_n = blocks
        begin, end = fn.range
        with fn.loop(end, begin) as cb:
            fb = fn.b
            c0 = fb.udiv(fb.mul(cb, ir.Constant(I64, L)), ir.Constant(I64, blocks))
            c1 = fb.udiv(fb.mul(fb.add(cb, ir.Constant(I64, 1)), ir.Constant(I64, L)),
                         ir.Constant(I64, blocks))

            def columns(idx):
                with fn.loop(c1, c0) as j:
                    point([*idx, j], rows_at, args_at)
            fn.nest(D[:-1], columns)
        fn.end_range_body(state, GRAIN)
    with fn.loop(rsize) as r:
        given = {n.output: accs.value(n, b.load(b.gep((args if n in args else rows)[n][0], [r],
                                                          inbounds=True)))
                 for n in accs.nodes}
        rspace = _Space(fn, rshape, _unravel(fn, rshape, r), flat=r)
        _Point(fn, lambda v: rspace, part, given).store_all(post)
    for ptr, heap in [*rows.values(), *args.values()]:
        if heap:
            free = _extern(fn, "free", ir.FunctionType(ir.VoidType(), [ir.PointerType(I8)]))
            b.call(free, [b.bitcast(ptr, ir.PointerType(I8))])


def _scratch(fn, dt, n):
    """(pointer, on the heap?) to n elements: on the stack up to SCRATCH_STACK, else malloc'd."""
    ty = ltype(dt)
    if n * np.dtype(dt).itemsize <= SCRATCH_STACK:
        return fn.alloca(ty, max(n, 1)), False
    malloc = _extern(fn, "malloc", ir.FunctionType(ir.PointerType(I8), [I64]))
    raw = fn.b.call(malloc, [ir.Constant(I64, n * np.dtype(dt).itemsize)])
    return fn.b.bitcast(raw, ir.PointerType(ty)), True


def _extern(fn, name, fnty):
    g = fn.module.globals.get(name)
    return g if g is not None else ir.Function(fn.module, fnty, name=name)


# ----------------------------------------------------------------------------- rowwise

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
    accs = _Accs(fn, reds, keyed=True)
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
        rspace = _Space(fn, rshape, ridx)
        given = {}
        for p, (mine, stores) in enumerate(work):
            if not mine and not stores:
                continue
            with fn.loop(L) as j:
                xspace = _Space(fn, D, list(ridx) + [j])
                read = {v: fn.load(rows_of[v], j, v.type.dtype)
                        for v, (at, later) in kept.items() if p in later}
                pt = _Point(fn, lambda v: xspace if fn.reduced(v) else rspace, shapes,
                            {**given, **read})
                for n in mine:
                    accs.update(n, pt.expr(n.inputs[0]), index=j)
                pt.store_all(stores)
                for v, (at, _) in kept.items():
                    if at == p:
                        fn.store(rows_of[v], j, pt.expr(v), v.type.dtype)
            res = accs.results()
            given.update({n.output: res[n.output] for n in mine})
        _Point(fn, lambda v: rspace, part, given).store_all([v for v in outs if v in per_row])

    fn.outer_nest(rshape, row, flat=True)


def _kept_rows(nest, work, per_row, L) -> dict:
    """nest.reused values (softmax's exp(x - max): summed in one pass, divided in the next),
    each kept in a row of scratch on the stack and read back instead of computed again; {} when
    the rows would not fit in SCRATCH_STACK."""
    kept = nest.reused(work, per_row)
    size = sum(L * np.dtype(v.type.dtype).itemsize for v in kept)
    return kept if size <= SCRATCH_STACK else {}


# ----------------------------------------------------------------------------- matmul

def _product(fn, nest):
    """(where the product is written, the outputs that are the product) in the function built:
    the output it is stored transposed into (MatmulNest.store), the first output that is the
    product, where the memory plan put it, or scratch."""
    pv = nest.product
    dest = fn.outs.get(pv, [])
    hint = fn.product_hint
    if nest.store is not None:
        prod = fn.outs[nest.store[0]][0]
    elif dest:
        prod = dest[0]
    elif hint[0] == "output":
        prod = fn.outs[hint[1]][0]
    else:
        prod = fn._arg(pv.type.dtype, ("prod",))
    fn.arrays[pv] = prod
    return prod, dest


def gen_matmul(fn):
    body = fn.body
    nest = matmul_nest(body)
    pv = nest.product
    flops = pv.type.size * nest.K
    copy = _transposed_copy(fn, nest)
    rest = list(nest.epilogue)
    fused = False
    if fn.parallel and flops >= GEMM_MIN:       # row blocks of the product on the pool
        state, seen = fn.range_body([copy] if copy is not None else ())
        # the epilogue of each row block, while the block is in cache
        after = (lambda lo, hi: _elementwise_rows(fn, rest, lo, hi)) \
            if rest and len(fn.outs.get(pv, ())) <= 1 else None
        fused = _gemm(fn, nest, _product(fn, nest)[0], *seen, after=after)
        fn.end_range_body(state, GEMM_GRAIN, flops)
    prod, dest = _product(fn, nest)
    if not (fn.parallel and flops >= GEMM_MIN):
        _gemm(fn, nest, prod, copy)
    if copy is not None:
        llvm_heap.free(fn, copy)
    b, n = fn.b, pv.type.size
    for extra in dest[1:]:
        with fn.loop(n) as i:
            b.store(b.load(b.gep(prod, [i])), b.gep(extra, [i]))
    if fused or not rest:
        return
    epilogue = elementwise_nest(body, fn.info, rest, product=pv)
    if fn.parallel and n * element_cost(body.nodes) >= PARALLEL_MIN:
        state, _ = fn.range_body()
        _product(fn, nest)
        _elementwise(fn, epilogue)
        fn.end_range_body(state, GRAIN)
    else:
        _elementwise(fn, epilogue)


def _transposed_copy(fn, nest):
    """For `x @ W.T` with a shallow K (the dot form's horizontal sums would cost as much as its
    products), W transposed into heap scratch here, once per call (llvm_small_gemm.
    transposed_first), for the broadcast form to read; else None. Not in native libraries
    (fn.blas set), which keep the dot form."""
    if fn.blas is not None or not _copies_b(nest):
        return None
    bv, dt = nest.b.value, nest.product.type.dtype
    N, ld = nest.N, nest.b.ld
    b = fn.b
    copy = llvm_heap.malloc(fn, ltype(dt), N * nest.K * np.dtype(dt).itemsize)
    src = b.gep(fn.arrays[bv], [ir.Constant(I64, nest.b.offset)])
    with fn.loop(nest.K) as p:      # copy[p, j] = W[j, p]
        row = b.gep(copy, [b.mul(p, ir.Constant(I64, N))])
        with fn.loop(N) as j:
            b.store(b.load(b.gep(src, [b.add(b.mul(j, ir.Constant(I64, ld)), p)])), b.gep(row, [j]))
    return copy


def _copies_b(nest) -> bool:
    """Whether the JIT's kernel transposes B first (_transposed_copy): llvm_small_gemm.
    transposed_first of a product whose B is one stored matrix, not an im2col."""
    M, N, K, _ = nest.gemm
    return (nest.b.im2col is None and math.prod(nest.b.shape[:-2]) == 1
            and llvm_small_gemm.transposed_first(M, N, K, nest.a.transposed, nest.b.transposed,
                                                 nest.product.type.dtype))


def _gemm(fn, nest, prod, copy=None, after=None):
    """The MatmulNest's GEMMs into `prod` (`copy`: B transposed in scratch by _transposed_copy).
    In a range body split into row blocks, `after(lo, hi)` runs after each block with its rows
    [lo, hi) of the product (all its axes but the last flattened); returns whether it did
    (column blocks: never)."""
    b = fn.b
    M, N, K, batch = nest.gemm
    pshape, dt = nest.product.type.shape, nest.product.type.dtype
    if math.prod(pshape) == 0:
        return False
    if K == 0:
        with fn.loop(math.prod(pshape)) as i:
            b.store(const(dt, 0), b.gep(prod, [i]))
        return False
    a, ta = nest.a.value, nest.a.transposed
    bv, tb, cols = nest.b.value, nest.b.transposed, nest.b.im2col
    if copy is not None:
        tb = False
    form = llvm_small_gemm.use_for(M, N, K, ta, tb, dt, cols is not None)
    table = _rows_table(fn, nest.b.rows) if cols else None
    lda, ldb = nest.a.ld, (N if copy is not None else nest.b.ld)
    ldc = nest.store[2] if nest.store else N
    call = (_small_call if form else _blas_call)(fn, form, M, N, K, ta, tb, dt, lda, ldb, ldc,
                                                 table)
    bsize = math.prod(batch)
    c64 = lambda v: ir.Constant(I64, v)      # noqa: E731
    barr = fn.arrays[bv] if copy is None else copy
    boff = nest.b.offset if copy is None else 0

    def one(q, r0=None, j0=None, extent=None):
        """The product of batch element q (its `extent` rows from r0 on, or its `extent` columns
        from j0 on)."""
        idx = [q] if len(batch) <= 1 else _unravel(fn, batch, q)
        a0 = _batch_offset(fn, idx, nest.a.offset, nest.batch_strides(nest.a))
        b0 = _batch_offset(fn, idx, boff, nest.batch_strides(nest.b) if copy is None else ())
        c0 = (_batch_offset(fn, idx, 0, nest.store[1] if batch else ()) if nest.store
              else b.mul(q, c64(M * N)))
        rows, cols = c64(M), c64(N)
        if r0 is not None:          # rows r0.. of A (columns when A is stored transposed)
            a0 = b.add(a0, r0 if ta else b.mul(r0, c64(lda)))
            c0 = b.add(c0, b.mul(r0, c64(ldc)))
            rows = extent
        shift = None
        if j0 is not None:          # columns j0.. of B (rows when B is stored transposed)
            if tb and table is not None:    # rows of the columns: their starts from j0 on
                shift = j0
            else:
                b0 = b.add(b0, b.mul(j0, c64(ldb)) if tb else j0)
            c0 = b.add(c0, j0)
            cols = extent
        call(b.gep(fn.arrays[a], [a0]), b.gep(barr, [b0]), b.gep(prod, [c0]), rows, cols, shift)
    if fn.range is None:
        with fn.loop(bsize) as q:
            one(q)
        return False
    # a range body: unit u is block u % RB of batch element u // RB (gemm_blocks). The split
    # depends on the shapes alone: the same bits on any pool.
    count, rb, grain = (llvm_small_gemm.blocks(form, M, N, bsize, _small_gemm_units(form, M))
                        if form else
                        (*gemm_blocks(M, N, K, bsize, small=not tb and blas_small_kernel()), 1))
    ext = M if count == "n" else N
    fn.range_n = bsize * rb
    begin, end = fn.range

    def bound(r):       # block r starts here: a multiple of `grain` (the last one ends at ext)
        at = b.mul(b.udiv(b.mul(r, c64(ext // grain)), c64(rb)), c64(grain))
        return b.select(b.icmp_unsigned("==", r, c64(rb)), c64(ext), at)
    with fn.loop(end, begin) as u:
        q, r = b.udiv(u, c64(rb)), b.urem(u, c64(rb))
        r0, r1 = bound(r), bound(b.add(r, c64(1)))
        if count == "n":
            one(q, r0, None, b.sub(r1, r0))
            if after is not None:       # rows r0..r1 of batch element q
                base = b.mul(q, c64(M))
                after(b.add(base, r0), b.add(base, r1))
        else:
            one(q, None, r0, b.sub(r1, r0))
    return after is not None and count == "n"


def _batch_offset(fn, idx, offset, strides):
    """offset + sum(idx * strides) over the batch indices (MatmulNest.batch_strides; no
    strides: the offset alone)."""
    b, acc = fn.b, ir.Constant(I64, offset)
    for i, s in zip(idx, strides):
        if s:
            acc = b.add(acc, b.mul(i, ir.Constant(I64, s)))
    return acc


def _small_gemm_units(form, M) -> int:
    """How many blocks at most an llvm_small_gemm product of M rows is cut into: where the form
    packs B's panels (llvm_small_gemm.packs), two per thread of the pool (GEMM_ROW_BLOCKS at
    most), as every block packs its own panels and re-reads the operand it does not split; on
    two threads the MLP's products ran at 230-250 GFLOP/s in 8 blocks (its [512,512] weight
    gradient 205-241), at 249-263 in 4 (253-267), interleaved in one process, and the MLP step
    4.7-4.9 -> 4.3-4.5 ms, GPT's 24.4-25.1 -> 23.6-24.2 (alternating processes). Two a thread
    still lets one take over the other's second when the machine is busy. Unpacked forms keep
    GEMM_ROW_BLOCKS. The split never changes the bits (each element's sum runs over p in one
    order); units are cached under it (code_options)."""
    return _packed_blocks() if llvm_small_gemm.packs(form, M) else GEMM_ROW_BLOCKS


def _packed_blocks() -> int:
    return max(2, min(GEMM_ROW_BLOCKS, 2 * config.read("num_threads")))


def code_options(kind) -> str:
    """The options the generated code of a `kind` kernel reads, which its unit is cached under
    too (codegen/cpu/units.py): the vectorizer's width, and a product's packed blocks (which
    follow the thread count: other kinds keep their units when it changes)."""
    width = f"vector width {config.read('cpu_vector_width')}"
    return f"{width}, packed blocks {_packed_blocks()}" if kind == "matmul" else width


def _rows_table(fn, starts):
    """A pointer to the constant table `starts` (MatmulOperand.rows: where each row of an
    im2col's columns starts in its image), a global of the unit."""
    ty = ir.ArrayType(I64, len(starts))
    g = ir.GlobalVariable(fn.module, ty, name=f"jg_rows{len(fn.module.global_values)}")
    g.linkage, g.global_constant = "internal", True
    g.initializer = ir.Constant(ty, starts)
    return fn.b.gep(g, [ir.Constant(I64, 0), ir.Constant(I64, 0)])


def _small_call(fn, form, M, N, K, ta, tb, dt, lda, ldb, ldc, table=None):
    """call(A, B, C, rows, cols, shift) through llvm_small_gemm's row-major functions (lda,
    ldb, ldc: the stored matrices' row strides; `table`: B's row starts, moved on by `shift`
    rows when given)."""
    b = fn.b
    f = _extern(fn, llvm_small_gemm.name(form, dt), llvm_small_gemm.function_type(form, dt))
    c64 = lambda v: ir.Constant(I64, v)      # noqa: E731

    def rows_of_b(shift):
        if table is None:
            return c64(ldb)
        return table if shift is None else b.gep(table, [shift])
    if form.startswith("bcast"):    # A[i, p] at A + i*sai + p*sap; B's rows (length N) contiguous,
        sai, sap = (1, lda) if ta else (lda, 1)     # or (bcast_t) its columns (length K)
        return lambda pa, pb, pc, rows, cols, shift: b.call(
            f, [rows, cols, c64(K), pa, c64(sai), c64(sap), pb, rows_of_b(shift), pc, c64(ldc)])
    return lambda pa, pb, pc, rows, cols, shift: b.call(
        f, [rows, cols, c64(K), pa, c64(lda), pb, rows_of_b(shift), pc, c64(ldc)])


def _blas_call(fn, form, M, N, K, ta, tb, dt, lda, ldb, ldc, table=None):
    """call(A, B, C, rows, cols) through the Fortran BLAS gemm (column-major: row-major C = A B
    is C^T = B^T A^T, so gemm(B, A) with N, M swapped)."""
    b = fn.b
    symbol = fn.blas or blas_symbol
    name, bits = llvm_int_gemm.symbol(fn, dt) if np.dtype(dt).kind in "iu" else \
        symbol(GEMM_NAMES[np.dtype(dt).name])
    INT, ty = ir.IntType(bits), ltype(dt)
    pty = ir.PointerType(ty)
    ipt, cpt = ir.PointerType(INT), ir.PointerType(I8)
    gemm = _extern(fn, name, ir.FunctionType(ir.VoidType(), [cpt, cpt, ipt, ipt, ipt, pty, pty, ipt,
                                                             pty, ipt, pty, pty, ipt]))

    def cell(t, v):
        p = fn.alloca(t)
        b.store(v, p)
        return p

    def integer(v):
        return cell(INT, ir.Constant(INT, v))
    transa, transb = (cell(I8, ir.Constant(I8, ord("T" if t else "N"))) for t in (tb, ta))
    alpha, beta = cell(ty, const(dt, 1)), cell(ty, const(dt, 0))
    pm, pn, pk, plda, pldb, pldc = (integer(v) for v in (N, M, K, ldb, lda, ldc))

    def call(pa, pb, pc, rows, cols, shift=None):
        for extent, whole, at in ((cols, N, pm), (rows, M, pn)):    # a block's extent
            if not (isinstance(extent, ir.Constant) and extent.constant == whole):
                b.store(b.trunc(extent, INT) if bits < 64 else extent, at)
        b.call(gemm, [transa, transb, pm, pn, pk, alpha, pb, plda, pa, pldb, beta, pc, pldc])
    return call


def gemm_blocks(M, N, K, bsize, small=True):
    """How a product (of each of bsize batch elements) is split over the pool: ("n", blocks of
    rows) or ("m", blocks of columns; BLAS's m and n, column-major). Blocks small enough for
    OpenBLAS's small-matrix kernel (m*n*k <= GEMM_SMALL: no operand packed) when at most
    GEMM_BLOCKS of them cover the batch, along the side that needs fewer; else at most
    GEMM_ROW_BLOCKS row blocks of GEMM_BLOCK_ROWS rows or more: a block re-packs the other
    operand, so few of them; column blocks as wide where the rows make fewer than two blocks
    and the columns more (a weight gradient [128,512] of GPT: 64 GFLOP/s on one thread).
    small=False (the right operand stored transposed, `x @ W.T`: the small kernel runs it 2-4x
    slower than untransposed, packed blocks run both alike; or a BLAS without that kernel):
    only the packed blocks."""
    cap = -(-GEMM_BLOCKS // bsize)
    want = -(-GEMM_ROW_BLOCKS // bsize)     # units to share among the threads
    best = None
    for count, ext, other in (("n", M, N), ("m", N, M)) if small else ():
        most = GEMM_SMALL // max(other * K, 1)  # rows (columns) per block in the small kernel
        if most >= min(ext, GEMM_BLOCK_MIN):
            blocks = max(-(-ext // most), min(ext // GEMM_BLOCK_MIN, want), 1)
            if blocks <= cap and (best is None or blocks < best[1]):
                best = (count, blocks)
    if best:
        return best
    rows, cols = M // GEMM_BLOCK_ROWS, N // GEMM_BLOCK_ROWS
    if rows < 2 and cols > max(rows, 1):
        return "m", min(cols, want)
    return "n", max(1, min(rows, want))


def blas_small_kernel() -> bool:
    """Whether the BLAS runs products of m*n*k <= GEMM_SMALL without packing (gemm_blocks'
    thin blocks pay only there)."""
    return blas_core() in SMALL_KERNEL_CORES


def gemm_calls(node) -> int:
    """How many BLAS gemm calls one run of the matmul kernel `node` makes (row blocks on the
    pool aside): one per batch element of the product, one in all when the rows merge
    (MatmulNest.rows_merge)."""
    nest = matmul_nest(node.params["body"])
    return 1 if nest.rows_merge else math.prod(nest.batch)


def small_gemm(node):
    """(form, dtype) of the llvm_small_gemm function the matmul kernel `node` calls, or None."""
    nest = matmul_nest(node.params["body"])
    dt = np.dtype(nest.product.type.dtype)
    if _copies_b(nest):     # the JIT's kernel: B transposed first, then bcast
        return "bcast", dt.name
    M, N, K, _ = nest.gemm
    form = llvm_small_gemm.use_for(M, N, K, nest.a.transposed, nest.b.transposed, dt,
                                   nest.b.im2col is not None)
    return (form, dt.name) if form else None


def _unravel(fn, shape, q):
    b = fn.b
    out = []
    for d, s in enumerate(c_strides(shape)):
        e = b.udiv(q, ir.Constant(I64, s)) if s != 1 else q
        out.append(b.urem(e, ir.Constant(I64, shape[d])) if d > 0 else e)
    return out


GENERATORS = {"elementwise": gen_elementwise, "reduce": gen_reduce, "rowwise": gen_rowwise,
              "matmul": gen_matmul, "opaque": llvm_opaque.gen_opaque}


def parallel_form(node):
    """How the kernel runs on the runtime's thread pool: "range" (its outermost loop split into
    chunks), "blocks" (a full reduction in REDUCE_BLOCKS partial results), "columns" (a
    reduction keeping its last axis, in blocks of columns), or None (serial: too little work,
    or a kind that stays on one thread)."""
    kind = node.params["kind"]
    if kind not in ("elementwise", "reduce", "rowwise", "opaque"):
        return None
    info = analyze_kernel(node)
    D = info.domain
    if math.prod(D) * element_cost(node.params["body"].nodes) < PARALLEL_MIN:
        return None
    if kind == "opaque":            # im2col / col2im: image by image
        return "range" if llvm_opaque.images(node) >= 2 else None
    if kind == "elementwise":
        return "range"
    if kind == "rowwise":
        return "range" if math.prod(D[:-1]) >= 2 else None
    nest = reduce_nest(node.params["body"], info)
    if nest.layout == "columns":
        return "columns" if D[-1] >= 2 * COLUMN_MIN else None
    if nest.layout == "rows":
        return "range" if nest.rows >= 2 else None
    return "blocks" if nest.axes and D[nest.axes[0]] >= 2 else None


def build(node, product_hint=None, blas=None, parallel=False, shifted=False):
    """(module IR text, argv roles, array constants, product type, bounds check) of `node`.
    blas: fn name -> (symbol, integer bits) of the gemm to call (default llvm_jit.blas_symbol).
    parallel: split the work over runtime/thread_pool.py where parallel_form says so (a unit
    then calls jg_parallel_for; a native library builds without it). shifted: an opaque slice
    or pad whose offsets come in its argv slots (llvm_opaque.shifts), not in its code."""
    fn = _Fn(node, product_hint)
    fn.blas = blas
    fn.parallel = parallel
    fn.shifted = shifted
    form = fn.form = parallel_form(node) if parallel else None
    if form == "range":
        state, _ = fn.range_body()
        GENERATORS[node.params["kind"]](fn)
        fn.end_range_body(state, GRAIN)
    elif form == "blocks":
        gen_reduce_blocks(fn)
    elif form == "columns":
        gen_reduce(fn)
    else:
        GENERATORS[node.params["kind"]](fn)
    sig = signature(node, product_hint, shifted)
    if fn.roles != sig[0]:
        raise AssertionError(f"llvm codegen: argv {fn.roles} != signature {sig[0]}")
    return (fn.finish(), *sig)


def signature(node, product_hint=None, shifted=False):
    """(argv roles, array constants, product type, bounds check) of the unit of `node`, without
    building it (a unit loaded from the disk cache is not built): inputs, array constants,
    outputs, then a scratch product (matmul) or the status pair (take, scatter_add)."""
    body, kind = node.params["body"], node.params["kind"]
    consts = [n.params["value"] for n in array_constants(body, every=kind == "opaque")]
    roles = ([("in", k) for k in range(len(body.inputs))] +
             [("const", k) for k in range(len(consts))] +
             [("out", k) for k in range(len(body.outputs))])
    product_type = check = None
    if kind == "matmul":
        m = next(n for n in body.nodes if n.op == Op.matmul)
        if m.output not in body.outputs and product_hint[0] != "output":
            roles.append(("prod",))
            product_type = m.output.type
    elif kind == "opaque":
        check = llvm_opaque.check_of(node)
        if check is not None:
            roles.append(("status",))
        if shifted and ("at", 0) in llvm_opaque.shifts(node):
            roles.append(("at", 0))
    return roles, consts, product_type, check


_VERSION: list = []


def generator_sources() -> list:
    """The source files the generated code depends on: these modules, the math constants, every
    module of the shared kernel description codegen/kernel/ (nest.py was once left out, so a
    changed nest reused stale units), and the fusion rules' index maps they read."""
    here = os.path.dirname(__file__)                   # codegen/cpu
    kernel = os.path.join(os.path.dirname(here), "kernel")
    llvm = sorted(f for f in os.listdir(here) if f.startswith("llvm_") and f.endswith(".py"))
    return [os.path.join(here, f) for f in (*llvm, "math_constants.py")] + \
        [os.path.join(kernel, f) for f in sorted(os.listdir(kernel)) if f.endswith(".py")] + \
        [fusion_rules.__file__]


def generator_version() -> str:
    """A hash of generator_sources(): a unit cached on disk by its kernel's canonical text is
    valid only for the code that built it."""
    if not _VERSION:
        h = hashlib.sha256()
        for path in generator_sources():
            with open(path, "rb") as f:
                h.update(f.read())
        _VERSION.append(h.hexdigest()[:16])
    return _VERSION[0]
