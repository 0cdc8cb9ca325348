"""The CPU's handler of the ops protocol (LlvmOps: codegen/kernel/ops_protocol.py) and the per-op scalar
table of the LLVM kernel backend, rendered from the shared rules (codegen/kernel/exprs.py).

`EXPR[op](b, args, in_dtypes, out_dtype) -> value` emits one element of `op`'s output with
llvmlite's IRBuilder `b`, with the shared rules' NumPy semantics; complex dtypes take
llvm_complex's rules. `why_not(op, in_dtypes, out_dtype)` says why the table does not cover an op
at given dtypes (None when it does): the checking handler's answer (codegen/kernel/check.py) over
the dtypes each basic op of LlvmOps computes; `supported` is its yes or no.
"""
from __future__ import annotations

import contextlib

import numpy as np
from llvmlite import ir

from ...ir.ops import Op
from ..kernel import check
from ..kernel import exprs as kernel_exprs
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


def icmp(b, dt):
    """The integer comparison of dtype dt: unsigned for bools and unsigned ints."""
    return b.icmp_unsigned if _kind(dt) in "ub" else b.icmp_signed


def _by_kind(float_op, int_op):
    return lambda b, x, y, dt: getattr(b, float_op if dt.kind == "f" else int_op)(x, y)


def _shr(b, x, n, dt):
    return (b.lshr if dt.kind in "ub" else b.ashr)(x, n)


_BINARY = {"add": _by_kind("fadd", "add"), "sub": _by_kind("fsub", "sub"),
           "mul": _by_kind("fmul", "mul"), "div": lambda b, x, y, dt: b.fdiv(x, y),
           "and": lambda b, x, y, dt: b.and_(x, y), "or": lambda b, x, y, dt: b.or_(x, y),
           "xor": lambda b, x, y, dt: b.xor(x, y), "shl": lambda b, x, n, dt: b.shl(x, n),
           "shr": _shr, "copysign": lambda b, x, y, dt: intrinsic(b, "llvm.copysign", x.type, x, y),
           "floordiv": llvm_divmod.floor_div, "mod": llvm_divmod.mod,
           "pow": lambda b, x, e, dt: FUNCTIONS["pow", dt.name](b, x, e) if dt.kind == "f"
           else llvm_int.power(b, x, e, dt)}
_UNARY = {"neg": lambda b, x, dt: b.fneg(x) if dt.kind == "f" else b.neg(x),
          "not": lambda b, x, dt: b.xor(x, ir.Constant(I1, 1)),
          "invert": lambda b, x, dt: b.xor(x, ir.Constant(x.type, -1)),
          **{name: (lambda f: lambda b, x, dt: intrinsic(b, f, x.type, x))(f"llvm.{f}")
             for name, f in (("floor", "floor"), ("ceil", "ceil"), ("rint", "roundeven"),
                             ("fabs", "fabs"))}}


class LlvmOps:
    """The CPU's handler of the ops protocol (codegen/kernel/ops_protocol.py): llvmlite IRBuilder calls."""

    def __init__(self, b):
        self.b = b

    def const(self, value, dtype):
        return const(dtype, value)

    def binary(self, name, x, y, dtype):
        return _BINARY[name](self.b, x, y, np.dtype(dtype))

    def unary(self, name, x, dtype):
        return _UNARY[name](self.b, x, np.dtype(dtype))

    def compare(self, pred, x, y, dtype):
        if _kind(dtype) == "f":
            return (self.b.fcmp_unordered if pred == "!=" else self.b.fcmp_ordered)(pred, x, y)
        return icmp(self.b, dtype)(pred, x, y)

    def select(self, c, x, y):
        return self.b.select(c, x, y)

    def convert(self, x, src, dst):
        return _convert(self.b, [x], [src], dst)

    def math(self, name, dtype, *xs):
        if name == "sqrt":          # an instruction (vsqrtps)
            return intrinsic(self.b, "llvm.sqrt", xs[0].type, xs[0])
        return FUNCTIONS[name, np.dtype(dtype).name](self.b, *xs)

    @staticmethod
    def has_math(name, dtype) -> bool:
        return name == "sqrt" or (name, np.dtype(dtype).name) in FUNCTIONS


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


def _rendered(rule):
    """A shared rule (codegen/kernel/exprs.py) as an EXPR entry: rule(b, args, in_dtypes, dt)."""
    def emit(b, a, dts, dt):
        return rule(LlvmOps(b), a, [np.dtype(d) for d in dts], np.dtype(dt))
    return emit


RULES = kernel_exprs.table("llvm")
# the dtype kinds each basic op of LlvmOps computes with NumPy's meaning (f float, i signed,
# u unsigned, b bool: i1 arithmetic would wrap, where NumPy's bool + is or); half floats only
# convert (widen_lowp leaves them nothing else), math functions are llvm_math_table's
CHECK = check.CheckOps(
    kinds={"add": "iuf", "sub": "iuf", "mul": "iuf", "div": "f", "and": "iub", "or": "iub",
           "xor": "iub", "shl": "iu", "shr": "iu", "copysign": "f", "floordiv": "iuf",
           "mod": "iuf", "pow": "iu", "neg": "iuf", "not": "b", "invert": "iu", "floor": "f",
           "ceil": "f", "rint": "f", "fabs": "f", "compare": "iubf"},
    dtypes=set(LTYPE) - set(llvm_complex.TYPES) - {"float16", "bfloat16"},
    stored=set(LTYPE) - set(llvm_complex.TYPES),
    has_math=lambda name, dt: _kind(dt) == "f" and LlvmOps.has_math(name, dt))
EXPR = {op: _rendered(rule) for op, rule in RULES.items()}


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


def why_not(op, in_dtypes, out_dtype) -> str | None:
    """None when EXPR computes `op` at these dtypes, else why not: the checking handler's answer
    for the shared rule (codegen/kernel/check.py), llvm_complex's for complex dtypes."""
    if op not in EXPR:
        return "it has no scalar rule"
    names = [np.dtype(d).name for d in (*in_dtypes, out_dtype)]
    if any(n not in LTYPE for n in names):
        return f"no {next(n for n in names if n not in LTYPE)} values"
    if any(n in llvm_complex.TYPES for n in names) or op not in RULES:
        return None if llvm_complex.supported(op, in_dtypes, out_dtype) else \
            f"llvm_complex has no {op.value} of {', '.join(names)}"
    if op is not Op.convert and any(n in ("float16", "bfloat16") for n in names):
        return "half floats only convert here (widen_lowp widens the rest)"
    return check.gap(RULES[op], CHECK, in_dtypes, out_dtype)


def supported(op, in_dtypes, out_dtype) -> bool:
    return why_not(op, in_dtypes, out_dtype) is None


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
