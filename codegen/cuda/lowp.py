"""Converts to and from the low-precision dtypes in generated CUDA kernels.

As on the CPU (ir/lowp.py, codegen/cpu/llvm_lowp.py), float16 and bfloat16 compute in float32 and
the small ints in int32 / int64: the widen_lowp pass (compiled graphs) and jitgrad/cuda.py's
eager rule (the same ir.lowp table) leave the narrow dtypes to loads, stores and `convert`
nodes, and this module writes those converts so that they give the CPU's bits:

- float16 and bfloat16 live on the device as 16-bit words: a kernel's array of either is a
  uint16 array (codegen/cuda/source.NUMBA_TYPE; the launcher passes a uint16 view), and every
  conversion is one call of codegen/cuda/halfwords.py (integer arithmetic on float32 bits, the
  same results in numba's simulator and in the PTX for a GPU): float32 -> float16 rounds to
  nearest even with overflow to inf and subnormals, NaN stays NaN with its top payload bits and
  the quiet bit set (x86's vcvtps2ph, which the CPU units use); float64 -> float16 is NumPy's
  single rounding (float32 rounded to odd first, as llvm_lowp.f64_to_f32_odd). float32 ->
  bfloat16 rounds to nearest even, NaN becomes the quiet 0x7FC0 with its sign (ml_dtypes);
  anything else reaches either through float32.
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


def _to_f32(ctx, x, src) -> str:
    if src == F32:
        return x
    if src.kind == "b":
        return f"({ctx.const(1, F32)} if {x} else {ctx.const(0, F32)})"
    if src in HALF:
        return f"{'BF16' if src == np.dtype(bfloat16) else 'F16'}_TO_F32({x})"
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
            f = f"F64_TO_F32_ODD({x})" if src == F64 else _to_f32(ctx, x, src)
            return f"F32_TO_F16({f})"
        return f"F32_TO_BF16({_to_f32(ctx, x, src)})"
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
