"""Float conversions written as LLVM IR integer arithmetic on the bits, shared by the CPU units
(codegen/cpu/llvm_lowp.py) and the CUDA converts' numba intrinsics (codegen/cuda/halfwords.py):
bfloat16 <-> float32 (ml_dtypes' rounding and NaN) and float64 -> float32 rounded to odd (the
first step of NumPy's single float64 -> float16 rounding).

Each takes llvmlite's IRBuilder `b` and a value; nothing here depends on a target."""
from __future__ import annotations

from llvmlite import ir

I16, I32 = ir.IntType(16), ir.IntType(32)
F32, F64 = ir.FloatType(), ir.DoubleType()


def bf16_to_f32(b, x):
    """The float32 whose high half is the bfloat16 word x (exact)."""
    return b.bitcast(b.shl(b.zext(x, I32), ir.Constant(I32, 16)), F32)


def f32_to_bf16(b, x):
    """float32 -> bfloat16 word, to nearest even; a NaN becomes the quiet 0x7FC0 with its sign."""
    bits = b.bitcast(x, I32)
    lsb = b.and_(b.lshr(bits, ir.Constant(I32, 16)), ir.Constant(I32, 1))
    rounded = b.lshr(b.add(bits, b.add(lsb, ir.Constant(I32, 0x7FFF))), ir.Constant(I32, 16))
    sign = b.and_(b.lshr(bits, ir.Constant(I32, 16)), ir.Constant(I32, 0x8000))
    nan = b.or_(sign, ir.Constant(I32, 0x7FC0))
    out = b.select(b.fcmp_unordered("uno", x, x), nan, rounded)
    return b.trunc(out, I16)


def intrinsic_fabs(b, x):
    """|x| by llvm.fabs."""
    fn = b.module.declare_intrinsic("llvm.fabs", [x.type])
    return b.call(fn, [x])


def f64_to_f32_odd(b, x, fabs=None):
    """float64 -> float32 rounded to odd: the nearest-even result, moved one ulp toward x when
    it is inexact and even. fabs(b, v): |v| (default llvm.fabs, which NVVM lacks)."""
    fabs = fabs or intrinsic_fabs
    t = b.fptrunc(x, F32)
    bits = b.bitcast(t, I32)
    inexact = b.fcmp_ordered("!=", b.fpext(t, F64), x)
    even = b.icmp_unsigned("==", b.and_(bits, ir.Constant(I32, 1)), ir.Constant(I32, 0))
    # |x| above |t|: one ulp away from zero (bits + 1), else toward it (bits - 1)
    away = b.fcmp_ordered(">", fabs(b, x), b.fpext(fabs(b, t), F64))
    step = b.select(away, ir.Constant(I32, 1), ir.Constant(I32, -1))
    moved = b.bitcast(b.add(bits, step), F32)
    return b.select(b.and_(inexact, even), moved, t)
