"""The CPU's basic floordiv and mod (codegen/kernel/ops_protocol.py) as LLVM IR, with NumPy's semantics
(its npy_divmod); the integer edges (a divisor of 0 or -1) are the shared rule's
(codegen/kernel/exprs.py), which passes a divisor other than those:

- signed integers: the quotient rounds toward minus infinity and the remainder takes the
  divisor's sign (sdiv/srem, adjusted by selects, so the loop still vectorizes); unsigned ones:
  udiv/urem.
- floats: mod = fmod(x, y) (LLVM's frem) moved to the divisor's sign, the quotient (x - mod) / y
  floored and snapped to the nearest integer; y == 0 gives x / y and fmod's NaN; a zero result
  takes NumPy's sign (copysign(0, x / y) for the quotient, copysign(0, y) for the remainder).
"""
from __future__ import annotations

from llvmlite import ir

from .llvm_math import fconst, intrinsic


def _int_parts(b, x, d):
    """(quotient, remainder) with Python's floor semantics, d not 0 nor -1."""
    q, r = b.sdiv(x, d), b.srem(x, d)
    zero = ir.Constant(x.type, 0)
    adjust = b.and_(b.icmp_signed("!=", r, zero),
                    b.icmp_signed("!=", b.icmp_signed("<", r, zero), b.icmp_signed("<", d, zero)))
    return b.select(adjust, b.sub(q, ir.Constant(x.type, 1)), q), b.select(adjust, b.add(r, d), r)


def _float_parts(b, x, y):
    """npy_divmod: (floor quotient, remainder)."""
    ty = x.type
    zero = fconst(ty, 0)
    mod = b.frem(x, y)
    div = b.fdiv(b.fsub(x, mod), y)
    fix = b.and_(b.fcmp_unordered("!=", mod, zero),      # mod nonzero (or NaN: no harm)
                 b.icmp_unsigned("!=", b.fcmp_ordered("<", y, zero), b.fcmp_ordered("<", mod, zero)))
    mod = b.select(fix, b.fadd(mod, y), mod)
    div = b.select(fix, b.fsub(div, fconst(ty, 1)), div)
    mod = b.select(b.fcmp_ordered("==", mod, zero), intrinsic(b, "llvm.copysign", ty, zero, y), mod)
    floor = intrinsic(b, "llvm.floor", ty, div)
    floor = b.select(b.fcmp_ordered(">", b.fsub(div, floor), fconst(ty, 0.5)),
                     b.fadd(floor, fconst(ty, 1)), floor)
    quot = b.fdiv(x, y)
    floor = b.select(b.fcmp_ordered("==", div, zero), intrinsic(b, "llvm.copysign", ty, zero, quot),
                     floor)
    by0 = b.fcmp_ordered("==", y, zero)
    return b.select(by0, quot, floor), b.select(by0, b.frem(x, y), mod)


def floor_div(b, x, y, dt):
    return {"f": lambda: _float_parts(b, x, y)[0], "u": lambda: b.udiv(x, y),
            "i": lambda: _int_parts(b, x, y)[0]}[dt.kind]()


def mod(b, x, y, dt):
    return {"f": lambda: _float_parts(b, x, y)[1], "u": lambda: b.urem(x, y),
            "i": lambda: _int_parts(b, x, y)[1]}[dt.kind]()
