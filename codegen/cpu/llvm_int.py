"""Integer power as LLVM IR, the CPU's basic `pow` of ints (codegen/kernel/ops_protocol.py): x**e for
e >= 0, wrapping in the output's width, by square-and-multiply over every bit of the exponent,
unrolled (branch-free, so the loop vectorizes; exact modulo 2**bits as NumPy's repeated
multiplication). A negative exponent's value is the shared rule's (codegen/kernel/exprs.py)."""
from __future__ import annotations

from llvmlite import ir


def power(b, x, e, dt):
    acc, base = ir.Constant(x.type, 1), x
    for k in range(e.type.width - (dt.kind == "i")):     # a signed exponent's sign bit is 0
        bit = b.icmp_unsigned("!=", b.and_(e, ir.Constant(e.type, 1 << k)), ir.Constant(e.type, 0))
        acc = b.select(bit, b.mul(acc, base), acc)
        base = b.mul(base, base)
    return acc
