"""The per-op scalar instruction table of the LLVM kernel backend.

`EXPR[op](b, args, in_dtypes, out_dtype) -> value` emits one element of `op`'s output with
llvmlite's IRBuilder `b`. Semantics are NumPy's, as the Python-syntax table
(codegen/kernel/exprs.py) gives them: NaN-propagating maximum/minimum, `!=` true for NaN, rint
rounding half to even, integer arithmetic wrapping in the output's width. `supported(op, in_dtypes,
out_dtype)` says whether the table covers an op at given dtypes (llvm_kernels.why_not's reason when
it does not).
"""
from __future__ import annotations

import contextlib

import numpy as np
from llvmlite import ir

from ...ir.ops import Op
from ...ir.primitives import RECORDS
from . import llvm_complex, llvm_divmod, llvm_int, llvm_lowp
from .llvm_math import fconst, intrinsic
from .llvm_math_table import FUNCTIONS

I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
F32, F64 = ir.FloatType(), ir.DoubleType()
LTYPE = {"float32": F32, "float64": F64, "int32": I32, "int64": I64, "bool": I1}
# the low-precision dtypes: loaded, stored and converted only (codegen/cpu/llvm_lowp.py)
NARROW = {"float16": ir.HalfType(), "bfloat16": ir.IntType(16), "int8": I8, "int16": ir.IntType(16),
          "uint8": I8, "uint16": ir.IntType(16), "uint32": I32, "uint64": I64}
LTYPE.update(NARROW)
LTYPE.update(llvm_complex.TYPES)     # {re, im} structs (codegen/cpu/llvm_complex.py)


def ltype(dt) -> ir.Type:
    return LTYPE[np.dtype(dt).name]


def _kind(dt) -> str:
    """'f' float, 'i' signed int, 'u' unsigned, 'b' bool, 'c' complex."""
    return np.dtype(dt).kind


def const(dt, value):
    if _kind(dt) == "c":
        return llvm_complex.const(dt, value)
    t = ltype(dt)
    if np.dtype(dt).name in NARROW and _kind(dt) != "f":     # bfloat16's bits, unsigned ints
        a = np.asarray(value).astype(dt)                      # as the signed int of their width
        return ir.Constant(t, int(a.view(f"i{a.dtype.itemsize}")))
    if _kind(dt) == "f":
        return ir.Constant(t, float(value))
    return ir.Constant(t, int(bool(value)) if _kind(dt) == "b" else int(value))


def _arith(fop, iop):
    def emit(b, a, dts, dt):
        return getattr(b, fop if _kind(dt) == "f" else iop)(a[0], a[1])
    return emit


def icmp(b, dt):
    """The integer comparison of dtype dt: unsigned for bools and unsigned ints."""
    return b.icmp_unsigned if _kind(dt) in "ub" else b.icmp_signed


def _cmp(sym):
    def emit(b, a, dts, dt):
        if _kind(dts[0]) == "f":
            return (b.fcmp_unordered if sym == "!=" else b.fcmp_ordered)(sym, a[0], a[1])
        return icmp(b, dts[0])(sym, a[0], a[1])
    return emit


def _extremum(sym):
    """NumPy's maximum/minimum: NaN wins for floats."""
    def emit(b, a, dts, dt):
        x, y = a
        if _kind(dt) == "f":
            take = b.or_(b.fcmp_ordered(sym, x, y), b.fcmp_unordered("uno", x, x))
        else:
            take = icmp(b, dt)(sym, x, y)
        return b.select(take, x, y)
    return emit


def _neg(b, a, dts, dt):
    return b.fneg(a[0]) if _kind(dt) == "f" else b.neg(a[0])


def _abs(b, a, dts, dt):
    x = a[0]
    if _kind(dt) == "f":
        return intrinsic(b, "llvm.fabs", x.type, x)
    if _kind(dt) == "u":
        return x
    return b.select(b.icmp_signed("<", x, ir.Constant(x.type, 0)), b.neg(x), x)


def _unary_intrinsic(name):
    return lambda b, a, dts, dt: intrinsic(b, name, a[0].type, a[0])


def _rsqrt(b, a, dts, dt):
    return b.fdiv(fconst(a[0].type, 1), intrinsic(b, "llvm.sqrt", a[0].type, a[0]))


def _sign(b, a, dts, dt):
    x = a[0]
    zero, one = ir.Constant(x.type, 0), ir.Constant(x.type, 1)
    if _kind(dt) == "f":
        pos = b.select(b.fcmp_ordered(">", x, zero), fconst(x.type, 1), x)    # 0, -0, nan stay
        return b.select(b.fcmp_ordered("<", x, zero), fconst(x.type, -1), pos)
    pos = icmp(b, dt)(">", x, zero)
    pos = b.select(pos, one, zero)
    if _kind(dt) == "u":
        return pos
    return b.select(b.icmp_signed("<", x, zero), ir.Constant(x.type, -1), pos)


def _convert(b, a, dts, dt):
    if np.dtype(dts[0]).name in NARROW or np.dtype(dt).name in NARROW:
        return llvm_lowp.convert(b, a[0], dts[0], dt, ltype)
    x, src, dst = a[0], _kind(dts[0]), _kind(dt)
    st, tt = ltype(dts[0]), ltype(dt)
    if st == tt:
        return x
    if dst == "b":
        return b.fcmp_unordered("!=", x, fconst(st, 0)) if src == "f" else \
            b.icmp_unsigned("!=", x, ir.Constant(st, 0))
    if src == "b":
        return b.uitofp(x, tt) if dst == "f" else b.zext(x, tt)
    if src == "f" and dst == "f":
        return b.fpext(x, tt) if tt == F64 else b.fptrunc(x, tt)
    if src == "f":
        return b.fptosi(x, tt)
    if dst == "f":
        return b.sitofp(x, tt)
    return b.sext(x, tt) if tt.width > st.width else b.trunc(x, tt)


def _isnan(b, a, dts, dt):
    return b.fcmp_unordered("uno", a[0], a[0]) if _kind(dts[0]) == "f" else ir.Constant(I1, 0)


def _isinf(b, a, dts, dt):
    if _kind(dts[0]) != "f":
        return ir.Constant(I1, 0)
    x = a[0]
    return b.fcmp_ordered("==", intrinsic(b, "llvm.fabs", x.type, x), fconst(x.type, float("inf")))


def _signbit(b, a, dts, dt):
    x = a[0]
    it = I32 if x.type == F32 else I64
    return b.icmp_signed("<", b.bitcast(x, it), ir.Constant(it, 0))


def _logical(op):
    return lambda b, a, dts, dt: getattr(b, op)(a[0], a[1])


def _math(name):
    return lambda b, a, dts, dt: FUNCTIONS[name, np.dtype(dt).name](b, *a)


_NUMERIC = {Op.add, Op.sub, Op.mul, Op.neg, Op.abs, Op.sign, Op.square}
_SAME_INPUTS = {Op.add, Op.sub, Op.mul, Op.div, Op.max, Op.min, Op.eq, Op.ne, Op.lt, Op.le, Op.gt,
                Op.ge, Op.logical_and, Op.logical_or, Op.logical_xor}
_FLOAT_ONLY = {Op.div, Op.sqrt, Op.rsqrt, Op.floor, Op.ceil, Op.round}
# the ops this backend computes with its own instructions (whatever their record's scalar form)
RULES = {
    Op.add: _arith("fadd", "add"), Op.sub: _arith("fsub", "sub"), Op.mul: _arith("fmul", "mul"),
    Op.div: lambda b, a, dts, dt: b.fdiv(a[0], a[1]),
    Op.neg: _neg, Op.abs: _abs, Op.sign: _sign,
    Op.square: lambda b, a, dts, dt: (b.fmul if _kind(dt) == "f" else b.mul)(a[0], a[0]),
    Op.sqrt: _unary_intrinsic("llvm.sqrt"), Op.rsqrt: _rsqrt,
    Op.floor: _unary_intrinsic("llvm.floor"), Op.ceil: _unary_intrinsic("llvm.ceil"),
    Op.round: _unary_intrinsic("llvm.roundeven"),
    Op.max: _extremum(">"), Op.min: _extremum("<"),
    Op.eq: _cmp("=="), Op.ne: _cmp("!="), Op.lt: _cmp("<"), Op.le: _cmp("<="),
    Op.gt: _cmp(">"), Op.ge: _cmp(">="),
    Op.select: lambda b, a, dts, dt: b.select(a[0], a[1], a[2]),
    Op.logical_and: _logical("and_"), Op.logical_or: _logical("or_"),
    Op.logical_xor: _logical("xor"),
    Op.logical_not: lambda b, a, dts, dt: b.xor(a[0], ir.Constant(I1, 1)),
    Op.isnan: _isnan, Op.isinf: _isinf, Op.signbit: _signbit,
    Op.convert: _convert,
    Op.stop_gradient: lambda b, a, dts, dt: a[0],
}
def _math_name(r) -> str:
    """The math function of a record: its vector_math, else the C function its scalar names."""
    return r.vector_math or (r.scalar[1] if r.scalar[:1] == ("math",) else "")


# ops computed by the llvm_math_table port of their record's math function
_MATH = {op: _math_name(r) for op, r in RECORDS.items()
         if (_math_name(r), "float32") in FUNCTIONS and op not in RULES}
# ops on integers (bools too, for the bitwise ones), and floor_div/mod on any real type: the
# operand kinds each takes; pow on floats stays the math port's
KINDS = {Op.bitwise_and: "iub", Op.bitwise_or: "iub", Op.bitwise_xor: "iub", Op.bitwise_not: "iub",
         Op.shift_left: "iu", Op.shift_right: "iu", Op.pow: "iu", Op.floor_div: "iuf", Op.mod: "iuf"}
INTEGER = {**llvm_int.RULES, **llvm_divmod.RULES}


def _by_kind(float_rule, int_rule):
    return lambda b, a, dts, dt: (float_rule if _kind(dt) == "f" else int_rule)(b, a, dts, dt)


EXPR = {**RULES, **{op: _math(name) for op, name in _MATH.items()}}
EXPR.update({op: _by_kind(EXPR[op], rule) if op in EXPR else rule for op, rule in INTEGER.items()})


def _or_complex(real_rule, complex_rule):
    """complex_rule where a dtype of the op is complex (llvm_complex.RULES), else real_rule."""
    def emit(b, a, dts, dt):
        if any(_kind(d) == "c" for d in (*dts, dt)):
            return complex_rule(b, a, dts, dt)
        return real_rule(b, a, dts, dt)
    return emit if real_rule is not None else complex_rule


COMPLEX = {**llvm_complex.RULES,
           Op.convert: lambda b, a, dts, dt: llvm_complex.convert(b, a, dts, dt, _convert)}
EXPR.update({op: _or_complex(EXPR.get(op), rule) for op, rule in COMPLEX.items()})


def supported(op, in_dtypes, out_dtype) -> bool:
    if op not in EXPR:
        return False
    names = [np.dtype(d).name for d in (*in_dtypes, out_dtype)]
    if any(n not in LTYPE for n in names):
        return False
    if any(_kind(n) == "c" for n in names):
        return llvm_complex.supported(op, in_dtypes, out_dtype)
    if op != Op.convert and any(n in NARROW and _kind(n) not in "iu" for n in names):
        return False        # half floats: widen_lowp leaves them only in converts
    if op in KINDS and (op not in _MATH or _kind(out_dtype) != "f"):
        return all(_kind(d) in KINDS[op] for d in (*in_dtypes, out_dtype)) and len(set(names)) == 1
    if op in _MATH:
        return (_MATH[op], names[-1]) in FUNCTIONS and len(set(names)) == 1
    if op in _FLOAT_ONLY:
        return all(_kind(d) == "f" for d in (*in_dtypes, out_dtype))
    if op == Op.signbit:        # of a float, a bool
        return all(_kind(d) == "f" for d in in_dtypes)
    if op in _NUMERIC and any(n == "bool" for n in names):
        return False
    if op in _SAME_INPUTS and len(set(names[:-1])) != 1:
        return False
    return True


@contextlib.contextmanager
def counted_loop(b, n, start=0):
    """for i in range(start, n) in the function b is building: yields i (an i64 value); b is
    positioned after the loop when the block ends."""
    n = n if isinstance(n, ir.Value) else ir.Constant(I64, n)
    start = start if isinstance(start, ir.Value) else ir.Constant(I64, start)
    pre = b.block
    head, body, done = (b.function.append_basic_block(s) for s in ("head", "body", "done"))
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64)
    i.add_incoming(start, pre)
    b.cbranch(b.icmp_signed("<", i, n), body, done)
    b.position_at_end(body)
    yield i
    i.add_incoming(b.add(i, ir.Constant(I64, 1), flags=("nuw", "nsw")), b.block)
    b.branch(head)
    b.position_at_end(done)
