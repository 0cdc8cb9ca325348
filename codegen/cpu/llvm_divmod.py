"""floor_divide and remainder as LLVM IR, with NumPy's semantics (its npy_divmod):

- integers: x // 0 == x % 0 == 0 (unsigned ones: udiv/urem otherwise); x // -1 == -x (min // -1 wraps to min) and x % -1 == 0; the
  quotient rounds toward minus infinity and the remainder takes the divisor's sign. The hardware
  division only ever sees a divisor other than 0 and -1, where LLVM's sdiv/srem are defined;
  everything is a select, so the loop still vectorizes.
- floats: mod = fmod(x, y) (LLVM's frem) moved to the divisor's sign, the quotient (x - mod) / y
  floored and snapped to the nearest integer; y == 0 gives x / y and fmod's NaN; a zero result
  takes NumPy's sign (copysign(0, x / y) for the quotient, copysign(0, y) for the remainder).

`RULES[op](b, args, in_dtypes, out_dtype)`: the entries llvm_exprs.EXPR takes.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ...ir.ops import Op

from .llvm_math import fconst, intrinsic


def _safe_divisor(b, y):
    """(y with 0 and -1 replaced by 1, y == 0, y == -1)."""
    zero, minus1 = ir.Constant(y.type, 0), ir.Constant(y.type, -1)
    is0, is_m1 = b.icmp_signed("==", y, zero), b.icmp_signed("==", y, minus1)
    return b.select(b.or_(is0, is_m1), ir.Constant(y.type, 1), y), is0, is_m1


def _int_parts(b, x, y):
    """(quotient, remainder, y == 0, y == -1) with Python's floor semantics for y not 0, -1."""
    d, is0, is_m1 = _safe_divisor(b, y)
    q, r = b.sdiv(x, d), b.srem(x, d)
    zero = ir.Constant(x.type, 0)
    adjust = b.and_(b.icmp_signed("!=", r, zero),
                    b.icmp_signed("!=", b.icmp_signed("<", r, zero), b.icmp_signed("<", d, zero)))
    q = b.select(adjust, b.sub(q, ir.Constant(x.type, 1)), q)
    r = b.select(adjust, b.add(r, d), r)
    return q, r, is0, is_m1


def _unsigned(b, x, y, op):
    """x // y or x % y of unsigned ints (0 for y == 0)."""
    zero = ir.Constant(x.type, 0)
    is0 = b.icmp_unsigned("==", y, zero)
    d = b.select(is0, ir.Constant(x.type, 1), y)
    return b.select(is0, zero, getattr(b, op)(x, d))


def _int_floor_div(b, x, y):
    q, _, is0, is_m1 = _int_parts(b, x, y)
    zero = ir.Constant(x.type, 0)
    return b.select(is0, zero, b.select(is_m1, b.sub(zero, x), q))


def _int_mod(b, x, y):
    _, r, is0, is_m1 = _int_parts(b, x, y)
    return b.select(b.or_(is0, is_m1), ir.Constant(x.type, 0), r)


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


def _kind(dt):
    return np.dtype(dt).kind


def floor_div(b, a, dts, dt):
    return {"f": lambda: _float_parts(b, *a)[0], "u": lambda: _unsigned(b, *a, "udiv"),
            "i": lambda: _int_floor_div(b, *a)}[_kind(dt)]()


def mod(b, a, dts, dt):
    return {"f": lambda: _float_parts(b, *a)[1], "u": lambda: _unsigned(b, *a, "urem"),
            "i": lambda: _int_mod(b, *a)}[_kind(dt)]()


RULES = {Op.floor_div: floor_div, Op.mod: mod}
