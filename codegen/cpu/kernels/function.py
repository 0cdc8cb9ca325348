"""The LLVM function a CPU kernel unit is built in (codegen/cpu/llvm_kernels.py builds units
with it): `i64 jg_kernel(i8 **argv)`, its argv slots, loops (unrolled, parallel-marked, or a range
body on the runtime's pool), and the values of a kernel body at one point of its loops
(LoopOffsets: operand offsets; Point: the memoized walk of the body through the op table of
llvm_exprs.py).
"""
from __future__ import annotations

import contextlib
import math
import re

import numpy as np
from llvmlite import ir

from ....ir import config
from ....ir.passes.fusion_rules import analyze_kernel
from ...kernel.costs import PARALLEL_MIN, element_cost
from ...kernel.evaluator import array_constants
from ...kernel.nest import aligned_shape
from ...kernel.space import c_strides, offset_terms
from ...kernel.walk import BodyWalk
from ..llvm_exprs import EXPR, I8, I64, const, counted_loop, ltype

SCRATCH_STACK = 1 << 16     # bytes of accumulator rows on the stack; more are malloc'd
FN = "jg_kernel"
POOL_ENTRY = "jg_parallel_for"    # runtime/thread_pool.py, resolved by name when a unit loads
GRAIN = PARALLEL_MIN // 8         # element-costs: the least work worth one chunk of a thread
UNROLL_TRIPS = 4                  # constant-trip loops this short are unrolled (Fn.loop)
ARGV = ir.PointerType(ir.PointerType(I8))


def _mem_type(dt):
    return I8 if np.dtype(dt).kind == "b" else ltype(dt)



class Fn:
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
        self.shifted = False        # an opaque slice/pad's offsets in argv slots (opaque.shifts)

    def _bind(self, argv):
        """Pointers to the arrays, loaded from `argv` in the function being built."""
        body = self.body
        self.argv, self._status = argv, None
        self.arrays = {}            # Value -> typed pointer it is read from
        self.outs = {}              # Value -> [typed pointers it is stored to]
        for k, v in enumerate(body.inputs):
            self.arrays[v] = self.argv_slot(v.type.dtype, ("in", k))
        for k, n in enumerate(array_constants(body, every=self.node.params["kind"] == "opaque")):
            self.arrays[n.output] = self.argv_slot(n.output.type.dtype, ("const", k))
        for k, v in enumerate(body.outputs):
            self.outs.setdefault(v, []).append(self.argv_slot(v.type.dtype, ("out", k)))

    def status(self):
        """The status pair [check number, offending index] (an argv slot of its own)."""
        if self._status is None:
            self._status = self.argv_slot(np.int64, ("status",))
        return self._status

    def at(self, dt):
        """The ("at", 0) slot of a shifted pad: its output where the input lands."""
        return self.argv_slot(dt, ("at", 0))

    def argv_slot(self, dt, role):
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
        pf = extern(self, POOL_ENTRY, ir.FunctionType(ir.VoidType(), [body.type, ARGV, I64, I64]))
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
                emit(unravel(self, shape, r) if len(shape) > 1 else [r][:len(shape)])
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


class LoopOffsets:
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
        for d, s in offset_terms(self.shape, shape):     # the rule of every target
            term = self.idx[d] if s == 1 else b.mul(self.idx[d], ir.Constant(I64, s), flags=("nuw", "nsw"))
            acc = term if acc is None else b.add(acc, term, flags=("nuw", "nsw"))
        return acc if acc is not None else ir.Constant(I64, 0)


class Point(BodyWalk):
    """Body values at one point (the walk of codegen/kernel/walk.py) as LLVM IR: loads at
    index-map-aligned offsets, constants, the op table of llvm_exprs.py."""

    def __init__(self, fn, space_of, shapes, given=None):
        super().__init__(fn.body, fn.arrays, given)
        self.fn, self.space_of, self.shapes = fn, space_of, shapes

    def load(self, v):
        fn = self.fn
        return fn.load(fn.arrays[v], self.space_of(v).offset(self.shapes[v]), v.type.dtype)

    def constant(self, node, v):
        return const(v.type.dtype, node.params["value"].array.reshape(-1)[0])

    def reshaped(self, node, v):
        return self.expr(node.inputs[0])        # index maps align x and v at every point

    def apply(self, node, args):
        return EXPR[node.op](self.fn.b, args, [x.type.dtype for x in node.inputs],
                             node.output.type.dtype)

    def store_all(self, values):
        """Every value first, then the stores (an output may be written over an input)."""
        pairs = [(v, self.expr(v)) for v in values]
        for v, e in pairs:
            for ptr in self.fn.outs.get(v, []):
                self.fn.store(ptr, self.space_of(v).offset(self.shapes[v]), e, v.type.dtype)


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


def unravel(fn, shape, q):
    b = fn.b
    out = []
    for d, s in enumerate(c_strides(shape)):
        e = b.udiv(q, ir.Constant(I64, s)) if s != 1 else q
        out.append(b.urem(e, ir.Constant(I64, shape[d])) if d > 0 else e)
    return out



def extern(fn, name, fnty):
    g = fn.module.globals.get(name)
    return g if g is not None else ir.Function(fn.module, fnty, name=name)
