"""Converts between float32 and the 16-bit words of float16 / bfloat16 in generated CUDA kernels,
one call each (codegen/cuda/lowp.py writes them):

    F32_TO_F16(x) -> uint16     to nearest even, overflow to inf, subnormals; a NaN keeps its
                                sign and top payload bits with the quiet bit set (x86's
                                vcvtps2ph, which the CPU units use)
    F16_TO_F32(w) -> float32    exact
    F32_TO_BF16(x) -> uint16    to nearest even (0x7FFF plus the kept lsb), a NaN becomes the
                                quiet 0x7FC0 with its sign (ml_dtypes)
    BF16_TO_F32(w) -> float32   exact
    F64_TO_F32_ODD(x) -> float32   rounded to odd (NumPy's single float64 -> float16 rounding is
                                F32_TO_F16 of it)

For a GPU (and compile_ptx) they are numba intrinsics whose LLVM IR is integer arithmetic on the
float32 bits: bfloat16 and round-to-odd are the IR the CPU units use too (codegen/kernel/float_bits.py; |x|
by clearing the sign bit, as NVVM has no llvm.fabs), and float16, which the CPU units convert
with LLVM's `half`, is written here in bits (PTX's cvt would make every NaN the canonical 0x7FFF). tests/codegen/cuda/test_cuda_halfwords.py runs this IR on the CPU
against the simulator's versions over every float16 word and float32's special values. Under
the simulator (NUMBA_ENABLE_CUDASIM=1) they are the same arithmetic on Python ints.

Why calls and not inline expressions (which these were): numba's compiler time grows faster than
linearly with a function's size, and one float16 convert written out is about forty operations
and four branches. A fused float16 matmul whose epilogue converts each of 16 accumulators five
times took 90 s to compile (8.5 s in float32); one call per convert keeps a kernel's size that
of its float32 twin.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ...runtime.cuda_device import simulator_enabled
from ..kernel import float_bits

__all__ = ["F32_TO_F16", "F16_TO_F32", "F32_TO_BF16", "BF16_TO_F32", "F64_TO_F32_ODD"]


def _bits(x) -> int:
    return int(np.float32(x).view(np.uint32))


def _float(bits: int):
    return np.uint32(bits & 0xFFFFFFFF).view(np.float32)


def sim_f32_to_f16(x):
    b = _bits(x)
    a, sign = b & 0x7FFFFFFF, (b >> 16) & 0x8000
    if a > 0x7F800000:                                  # NaN
        return np.uint16(sign | 0x7E00 | ((a >> 13) & 0x3FF))
    if a >= 0x477FF000:                                 # rounds past 65504
        return np.uint16(sign | 0x7C00)
    if a < 0x38800000:      # below 2**-14: 0.5 + |x| rounds |x| to a multiple of 2**-24
        return np.uint16(sign | (_bits(_float(a) + np.float32(0.5)) - 0x3F000000))
    return np.uint16(sign | ((a - 0x38000000 + 0xFFF + ((a >> 13) & 1)) >> 13))


def sim_f16_to_f32(w):
    h = int(w) & 0xFFFF
    sign, e, m = (h & 0x8000) << 16, h & 0x7C00, h & 0x3FF
    if e == 0:
        sub = np.float32(m) * np.float32(2.0 ** -24)
        return -sub if sign else sub
    if e == 0x7C00:
        return _float(sign | 0x7F800000 | (m << 13))
    return _float(sign | (((h & 0x7FFF) + 0x1C000) << 13))


def sim_f32_to_bf16(x):
    u = _bits(x)
    if np.isnan(np.float32(x)):
        return np.uint16(((u >> 16) & 0x8000) | 0x7FC0)
    return np.uint16(((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF)


def sim_bf16_to_f32(w):
    return _float((int(w) & 0xFFFF) << 16)


def sim_f64_to_f32_odd(x):
    x = np.float64(x)
    with np.errstate(over="ignore"):
        t = np.float32(x)
    if t == t and np.float64(t) != x and _bits(t) & 1 == 0:
        return _float(_bits(t) + (1 if abs(x) > abs(np.float64(t)) else -1))
    return t


# ------------------------------------------------------------------------------------ LLVM IR

def ir_f32_to_f16(b, x):
    """float32 x -> its float16 word (i16): sim_f32_to_f16 in LLVM IR."""
    i32, c = ir.IntType(32), (lambda v: ir.Constant(ir.IntType(32), v))
    bits = b.bitcast(x, i32)
    a = b.and_(bits, c(0x7FFFFFFF))
    sign = b.and_(b.lshr(bits, c(16)), c(0x8000))
    nan = b.or_(c(0x7E00), b.and_(b.lshr(a, c(13)), c(0x3FF)))
    sub = b.sub(b.bitcast(b.fadd(b.bitcast(a, x.type), ir.Constant(x.type, 0.5)), i32),
                c(0x3F000000))
    normal = b.lshr(b.add(b.sub(a, c(0x38000000 - 0xFFF)), b.and_(b.lshr(a, c(13)), c(1))), c(13))
    ugt = lambda v: b.icmp_unsigned(">", a, c(v))        # noqa: E731
    word = b.select(ugt(0x7F800000), nan,
                    b.select(ugt(0x477FEFFF), c(0x7C00),
                             b.select(b.icmp_unsigned("<", a, c(0x38800000)), sub, normal)))
    return b.trunc(b.or_(sign, word), ir.IntType(16))


def ir_f16_to_f32(b, w):
    """A float16 word (i16) -> float32: sim_f16_to_f32 in LLVM IR."""
    i32, f32 = ir.IntType(32), ir.FloatType()
    c = lambda v: ir.Constant(i32, v)       # noqa: E731
    h = b.zext(w, i32)
    e, m = b.and_(h, c(0x7C00)), b.and_(h, c(0x3FF))
    sign = b.shl(b.and_(h, c(0x8000)), c(16))
    sub = b.fmul(b.uitofp(m, f32), ir.Constant(f32, 2.0 ** -24))
    neg = b.fsub(ir.Constant(f32, -0.0), sub)     # no fneg: NVVM reads LLVM 7 IR
    sub = b.select(b.icmp_unsigned("!=", sign, c(0)), neg, sub)
    special = b.bitcast(b.or_(b.or_(sign, c(0x7F800000)), b.shl(m, c(13))), f32)
    norm = b.bitcast(b.or_(sign, b.shl(b.add(b.and_(h, c(0x7FFF)), c(0x1C000)), c(13))), f32)
    return b.select(b.icmp_unsigned("==", e, c(0)), sub,
                    b.select(b.icmp_unsigned("==", e, c(0x7C00)), special, norm))


def ir_fabs(b, x):
    """|x| by clearing the sign bit (NVVM has no llvm.fabs)."""
    width = 64 if x.type == ir.DoubleType() else 32
    bits = b.bitcast(x, ir.IntType(width))
    return b.bitcast(b.and_(bits, ir.Constant(ir.IntType(width), (1 << (width - 1)) - 1)), x.type)


def ir_f64_to_f32_odd(b, x):
    return float_bits.f64_to_f32_odd(b, x, fabs=ir_fabs)


def _ir_builders():
    """name -> (argument type, result type, builder(b, x) -> value), numba types."""
    from numba import types     # lazy: numba-cuda's types, only off the simulator

    f32, f64, u16 = types.float32, types.float64, types.uint16
    return {"F32_TO_F16": (f32, u16, ir_f32_to_f16),
            "F16_TO_F32": (u16, f32, ir_f16_to_f32),
            "F32_TO_BF16": (f32, u16, float_bits.f32_to_bf16),
            "BF16_TO_F32": (u16, f32, float_bits.bf16_to_f32),
            "F64_TO_F32_ODD": (f64, f32, ir_f64_to_f32_odd)}


def _intrinsics():
    from numba.cuda.extending import intrinsic      # lazy: numba-cuda, only off the simulator

    def make(name, arg_type, result_type, build):
        def typer(typingctx, x):
            def codegen(context, builder, sig, args):
                return build(builder, context.cast(builder, args[0], sig.args[0], arg_type))
            return result_type(x), codegen
        typer.__name__ = name            # numba keys an intrinsic's typing by its name
        return intrinsic(typer)
    return {name: make(name, *spec) for name, spec in _ir_builders().items()}


if simulator_enabled():
    F32_TO_F16, F16_TO_F32 = sim_f32_to_f16, sim_f16_to_f32
    F32_TO_BF16, BF16_TO_F32, F64_TO_F32_ODD = sim_f32_to_bf16, sim_bf16_to_f32, sim_f64_to_f32_odd
else:
    _BUILT = _intrinsics()
    F32_TO_F16, F16_TO_F32, F32_TO_BF16, BF16_TO_F32, F64_TO_F32_ODD = (_BUILT[n] for n in __all__)
