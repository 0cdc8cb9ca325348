"""Scalar accumulators of a kernel's reductions as LLVM IR: identity, combine step (NaN-propagating
max/min, integer keys for select-fed float extremes, branch-free window extremes), argmax/argmin's
winner and the accumulator dtype (integer sums and products widened to 64 bits)."""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ....ir.ops import Op
from ...kernel import reducers
from ...kernel.reducers import REDUCER_KIND
from .. import llvm_complex
from ..llvm_exprs import EXPR, I64, LlvmOps, const, ltype
from ..llvm_math import intrinsic


class Accs:
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
        return reducers.accumulator_dtype(REDUCER_KIND[n.op][0], n.inputs[0].type.dtype)

    def ty(self, n):
        if n in self.keyed:
            return ir.IntType(_FLOAT_BITS[ltype(self.dtype(n))])
        return ltype(self.dtype(n))

    def init_value(self, n):
        kind, dt = REDUCER_KIND[n.op][0], self.dtype(n)
        if n in self.keyed:         # the key of -inf (max) or +inf (min)
            return _key(self.fn.b, const(dt, -np.inf if kind == "max" else np.inf), kind)
        return reducers.identity(LlvmOps(self.fn.b), kind, dt)

    def init(self, slots=None):
        for n in self.nodes:
            if slots is None or n in slots:
                self.fn.b.store(self.init_value(n), (slots or self.slot)[n])
            if slots is None and n in self.arg:
                self.fn.b.store(ir.Constant(I64, 0), self.arg[n])

    def combine(self, n, acc, v, widened=False):
        b, kind, dt = self.fn.b, REDUCER_KIND[n.op][0], self.dtype(n)
        if dt != np.dtype(n.inputs[0].type.dtype) and not widened:
            v = (b.sext if np.dtype(n.inputs[0].type.dtype).kind == "i" else b.zext)(v, ltype(dt))
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
        return reducers.combine(LlvmOps(b), kind, acc, v, dt)

    def better(self, n, v, best):
        """Whether v replaces the winner of argmax/argmin: strictly better, or the first NaN."""
        return reducers.better(LlvmOps(self.fn.b), REDUCER_KIND[n.op][0], v, best, self.dtype(n))

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
