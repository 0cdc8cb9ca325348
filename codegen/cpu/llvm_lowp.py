"""Converts to and from the low-precision dtypes in LLVM units.

After the widen_lowp pass (ir/passes/widen_lowp.py) the narrow dtypes appear in kernels only as
loads, stores and converts; this module emits the converts with NumPy's (and ml_dtypes')
results bit for bit:
- float16 is LLVM's `half` (fpext/fptrunc: vcvtph2ps/vcvtps2ph with F16C). float64 -> float16
  is NumPy's single correctly rounded step: float64 -> float32 rounded to odd, then to half
  (round-to-odd keeps the second rounding exact; LLVM would call __truncdfhf2, which a JIT
  unit cannot link).
- bfloat16 is held as its i16 bits: widening is a shift into a float32's high half; narrowing
  rounds a float32 to nearest even with the bias trick, NaN to the quiet 0x7fc0 (sign kept) as
  ml_dtypes does. Anything else reaches bfloat16 through float32, as ml_dtypes casts.
- int8/int16/uint8/uint16/uint32: sign- or zero-extended by their signedness, truncated to
  narrow; floats become them through int64 and a truncation (NumPy's casts on x86: 300.0 as
  uint8 is 44, -1.0 is 255).
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ...ir.types import float16, is_bfloat16, kind_of
from ..kernel.float_bits import bf16_to_f32, f32_to_bf16, f64_to_f32_odd

I64 = ir.IntType(64)
F16, F32, F64 = ir.HalfType(), ir.FloatType(), ir.DoubleType()


def to_f32(b, x, src):
    """Any scalar of dtype `src` as float32 (exact for the narrow floats)."""
    src = np.dtype(src)
    if is_bfloat16(src):
        return bf16_to_f32(b, x)
    if src == float16:
        return b.fpext(x, F32)
    k = src.kind
    if k == "b":
        return b.uitofp(x, F32)
    if k == "u":
        return b.uitofp(x, F32)
    if k == "i":
        return b.sitofp(x, F32)
    return b.fptrunc(x, F32) if x.type == F64 else x


def from_f32(b, x, dst):
    dst = np.dtype(dst)
    return f32_to_bf16(b, x) if is_bfloat16(dst) else b.fptrunc(x, F16)


def convert(b, x, src, dst, ltype):
    """x of dtype `src` as dtype `dst` where either is a low-precision dtype; `ltype` maps a
    dtype to its LLVM register type."""
    src, dst = np.dtype(src), np.dtype(dst)
    ks, kd = kind_of(src), kind_of(dst)
    if src == dst:
        return x
    if dst == float16 or is_bfloat16(dst):
        if dst == float16 and src.name == "float64":
            return b.fptrunc(f64_to_f32_odd(b, x), F16)
        return from_f32(b, to_f32(b, x, src), dst)
    if src == float16 or is_bfloat16(src):
        f = to_f32(b, x, src)
        if kd == "f":
            return b.fpext(f, F64) if dst.name == "float64" else f
        x, src, ks = f, np.dtype("float32"), "f"
    tt = ltype(dst)
    if kd == "b":
        return b.fcmp_unordered("!=", x, ir.Constant(x.type, 0.0)) if ks == "f" else \
            b.icmp_unsigned("!=", x, ir.Constant(x.type, 0))
    if ks == "f":
        if kd == "f":
            return b.fpext(x, tt) if tt == F64 else b.fptrunc(x, tt)
        if dst.itemsize < 8 and (kd == "u" or dst.itemsize < 4):
            return b.trunc(b.fptosi(x, I64), tt)      # NumPy on x86: through int64, wrapped
        return (b.fptoui if kd == "u" else b.fptosi)(x, tt)
    if kd == "f":
        return (b.uitofp if ks in "ub" else b.sitofp)(x, tt)
    if tt.width > x.type.width:
        return (b.zext if ks in "ub" else b.sext)(x, tt)
    return b.trunc(x, tt) if tt.width < x.type.width else x
