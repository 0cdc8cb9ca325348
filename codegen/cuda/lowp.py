"""Converts to and from the low-precision dtypes in generated CUDA kernels.

As on the CPU (ir/lowp.py, codegen/cpu/llvm_lowp.py), float16 and bfloat16 compute in float32 and
the small ints in int32 / int64: the widen_lowp pass (compiled graphs) and jitgrad/cuda.py's
eager rule (the same ir.lowp table) leave the narrow dtypes to loads, stores and `convert`
nodes, and this module writes those converts so that they give the CPU's bits:

- float16 and bfloat16 live on the device as 16-bit words: a kernel's array of either is a
  uint16 array (codegen/cuda/source.NUMBA_TYPE; the launcher passes a uint16 view), and every
  conversion is integer arithmetic on float32 bits (codegen/cuda/bits.F2I / I2F), the same in
  numba's simulator and in the PTX for a GPU. float32 -> float16 rounds to nearest even with
  overflow to inf and subnormals (the one float32 add of 0.5 rounds those), NaN stays NaN with
  its top payload bits and the quiet bit set (x86's vcvtps2ph, which the CPU units use);
  float64 -> float16 is NumPy's single rounding (float32 rounded to odd first, as
  llvm_lowp.f64_to_f32_odd). float32 -> bfloat16 adds 0x7FFF plus the kept lsb, NaN becomes
  the quiet 0x7FC0 with its sign (ml_dtypes); anything else reaches bfloat16 through float32.
- int8/int16/uint8/uint16/uint32/uint64 are numba's own integer types: int -> int truncates or
  extends, floats become the small ints through int64 and a truncation (NumPy on x86: 300.0 as
  uint8 is 44) and uint64 as x86 makes them (below 2**63 through int64, so -1.0 is 2**64 - 1,
  where PTX would clamp to 0); uint64 computes natively.

Complex numbers stay on the CPU (jitgrad/cuda.py says so); every real dtype runs on cuda.
"""
from __future__ import annotations

import numpy as np

from ...ir.types import bfloat16, float16

HALF = frozenset({np.dtype(float16), np.dtype(bfloat16)})
F32, F64 = np.dtype("float32"), np.dtype("float64")
NARROW = HALF | {np.dtype(d) for d in ("int8", "int16", "uint8", "uint16", "uint32", "uint64")}


def half_bits(value, dtype) -> int:
    """The 16-bit word of `value` as a float16 / bfloat16 (NumPy's and ml_dtypes' rounding)."""
    return int(np.asarray(value).astype(dtype).view(np.uint16))


def _bits(x) -> str:
    """The int32 bits of the float32 expression x, as an int64 (sign-extended)."""
    return f"np.int64(F2I({x}))"


def _sign32(h) -> str:
    """A 16-bit word's sign bit moved to bit 31 of an int32 (as a negative int64 or 0)."""
    return f"(-(({h} >> 15) & 1) << 31)"


def f32_to_f16(ctx, x) -> str:
    a = f"({_bits(x)} & 0x7FFFFFFF)"
    sign = f"(({_bits(x)} >> 16) & 0x8000)"
    nan = f"(0x7E00 | (({a} >> 13) & 0x3FF))"
    # below 2**-14: 0.5 + |x| rounds |x| to a multiple of 2**-24 (the word), to nearest even
    sub = f"({_bits(f'I2F(np.int32({a})) + {ctx.const(0.5, F32)}')} - 0x3F000000)"
    normal = f"(({a} - 0x38000000 + 0xFFF + (({a} >> 13) & 1)) >> 13)"
    return (f"np.uint16({sign} | ({nan} if {a} > 0x7F800000 else (0x7C00 if {a} >= 0x477FF000 "
            f"else ({sub} if {a} < 0x38800000 else {normal}))))")


def f16_to_f32(ctx, w) -> str:
    h = f"np.int64({w})"
    e = f"({h} & 0x7C00)"
    sub = f"(np.float32({h} & 0x3FF) * {ctx.const(2.0 ** -24, F32)})"
    norm = f"I2F(np.int32({_sign32(h)} | ((({h} & 0x7FFF) + 0x1C000) << 13)))"
    special = f"I2F(np.int32({_sign32(h)} | 0x7F800000 | (({h} & 0x3FF) << 13)))"
    return (f"((-{sub} if ({h} & 0x8000) else {sub}) if {e} == 0 else "
            f"({special} if {e} == 0x7C00 else {norm}))")


def f32_to_bf16(ctx, x) -> str:
    u = f"({_bits(x)} & 0xFFFFFFFF)"
    rounded = f"(({u} + 0x7FFF + (({u} >> 16) & 1)) >> 16)"
    nan = f"((({u} >> 16) & 0x8000) | 0x7FC0)"
    return f"np.uint16({nan} if {x} != {x} else {rounded})"


def bf16_to_f32(ctx, w) -> str:
    h = f"np.int64({w})"
    return f"I2F(np.int32({_sign32(h)} | (({h} & 0x7FFF) << 16)))"


def f64_to_f32_odd(ctx, x) -> str:
    """float64 -> float32 rounded to odd: the nearest-even result moved one ulp toward x when
    inexact and even (so the second rounding, to float16, is exact)."""
    t = f"np.float32({x})"
    step = f"(1 if abs({x}) > np.float64(abs({t})) else -1)"
    moved = f"I2F(np.int32({_bits(t)} + {step}))"
    return (f"({moved} if ({t} == {t} and np.float64({t}) != {x} and ({_bits(t)} & 1) == 0) "
            f"else {t})")


def _to_f32(ctx, x, src) -> str:
    if src == F32:
        return x
    if src.kind == "b":
        return f"({ctx.const(1, F32)} if {x} else {ctx.const(0, F32)})"
    if src == np.dtype(bfloat16):
        return bf16_to_f32(ctx, x)
    if src == np.dtype(float16):
        return f16_to_f32(ctx, x)
    return f"np.float32({x})"


def involved(src, dst) -> bool:
    """Whether a convert from src to dst needs this module (either side narrow)."""
    return np.dtype(src) in NARROW or np.dtype(dst) in NARROW


def convert(ctx, x, src, dst) -> str:
    """The expression converting x (of dtype src, a word for the half floats) to dst."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src == dst:
        return x
    if dst in HALF:
        if dst == np.dtype(float16):
            f = f64_to_f32_odd(ctx, x) if src == F64 else _to_f32(ctx, x, src)
            return f32_to_f16(ctx, f)
        return f32_to_bf16(ctx, _to_f32(ctx, x, src))
    if src in HALF:
        x, src = _to_f32(ctx, x, src), F32
        if dst == F32:
            return x
    if dst.kind == "b":
        return f"({x} != 0)"
    if dst.kind == "f":
        return f"np.{dst.name}({x})"
    if src.kind == "f" and dst.itemsize < 8 and (dst.kind == "u" or dst.itemsize < 4):
        return f"np.{dst.name}(np.int64({x}))"      # NumPy on x86: through int64, wrapped
    if src.kind == "f" and dst.kind == "u":
        # x86's float -> uint64 below 2**63 is the int64 conversion's bits (-1.0 -> 2**64 - 1);
        # PTX's cvt.rzi.u64 would clamp a negative to 0
        return (f"(np.uint64({x}) if {x} >= {ctx.const(2.0 ** 63, src)} "
                f"else np.uint64(np.int64({x})))")
    return f"np.{dst.name}({x})"
