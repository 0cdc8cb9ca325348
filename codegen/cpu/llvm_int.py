"""Integer ops as LLVM IR, with NumPy's semantics: bitwise and/or/xor/not (bools too), shifts
and integer powers, all wrapping in the output's width.

- shifts: a count outside [0, bits) gives 0 (left), or 0 / -1 by the sign of x (right,
  arithmetic; unsigned ints: logical, 0), as NumPy's npy_lshift/npy_rshift; LLVM leaves such shifts undefined, so the
  count is clamped to a defined one and the edge chosen by a select.
- power: square-and-multiply over every bit of the exponent, unrolled (branch-free, so the loop
  vectorizes; exact modulo 2**bits as NumPy's repeated multiplication). A negative exponent
  never reaches a kernel (jnp.power checks it: ir.errors.negative_power); it gives 1 // x**-e.

`RULES[op](b, args, in_dtypes, out_dtype)`: the entries llvm_exprs.EXPR takes.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ...ir.ops import Op


def _bits(x) -> int:
    return x.type.width


def _shift(left: bool):
    def emit(b, a, dts, dt):
        x, n = a
        bits = _bits(x)
        ok = b.icmp_unsigned("<", n, ir.Constant(n.type, bits))     # also false for n < 0
        count = b.select(ok, n, ir.Constant(n.type, 0))
        if left:
            return b.select(ok, b.shl(x, count), ir.Constant(x.type, 0))
        if np.dtype(dt).kind == "u":                                  # logical: 0 beyond
            return b.select(ok, b.lshr(x, count), ir.Constant(x.type, 0))
        beyond = b.ashr(x, ir.Constant(x.type, bits - 1))            # 0 or -1, by x's sign
        return b.select(ok, b.ashr(x, count), beyond)
    return emit


def _pow(b, a, dts, dt):
    x, e = a
    one, zero = ir.Constant(x.type, 1), ir.Constant(x.type, 0)
    acc, base = one, x
    for k in range(_bits(e) - 1):               # the sign bit: handled below
        bit = b.icmp_unsigned("!=", b.and_(e, ir.Constant(e.type, 1 << k)), ir.Constant(e.type, 0))
        acc = b.select(bit, b.mul(acc, base), acc)
        base = b.mul(base, base)
    # e < 0: 1 // x**-e, that is 1 for x == 1, +-1 for x == -1 (by e's parity), else 0
    odd = b.trunc(e, ir.IntType(1))
    minus1 = ir.Constant(x.type, -1)
    neg = b.select(b.icmp_signed("==", x, one), one,
                   b.select(b.icmp_signed("==", x, minus1), b.select(odd, minus1, one), zero))
    if np.dtype(dt).kind == "u":
        return acc
    return b.select(b.icmp_signed("<", e, ir.Constant(e.type, 0)), neg, acc)


def _bitwise(name):
    return lambda b, a, dts, dt: getattr(b, name)(a[0], a[1])


def _not(b, a, dts, dt):
    return b.xor(a[0], ir.Constant(a[0].type, -1 if _bits(a[0]) > 1 else 1))


RULES = {Op.bitwise_and: _bitwise("and_"), Op.bitwise_or: _bitwise("or_"),
         Op.bitwise_xor: _bitwise("xor"), Op.bitwise_not: _not,
         Op.shift_left: _shift(True), Op.shift_right: _shift(False), Op.pow: _pow}
