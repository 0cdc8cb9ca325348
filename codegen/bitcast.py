"""LLVM operations numba does not expose, for mathlib: bit casts and fmuladd.

numba has no scalar `view`; the casts emit one LLVM `bitcast`, which costs
nothing and vectorizes (a register is reinterpreted in place). mathlib uses
them to split a float into exponent and mantissa and to build powers of two.
The int -> float casts take any integer type and keep its low bits, because
numba widens int32 arithmetic to int64.

`fmuladd` is LLVM's "a * b + c, fused where that is fast": one FMA instruction
per polynomial term. numba's fastmath={"contract"} would do the same, but an
inline="always" function is compiled with its caller's flags, not its own.
"""

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


def _fit_width(builder, value, from_type, width):
    """An LLVM integer of `width` bits holding the low bits of `value`."""
    if from_type.bitwidth > width:
        return builder.trunc(value, ir.IntType(width))
    if from_type.bitwidth < width:
        extend = builder.sext if from_type.signed else builder.zext
        return extend(value, ir.IntType(width))
    return value


@intrinsic
def f32_to_bits(typingctx, x):
    """The IEEE bits of a float32, as an int32."""
    if x != types.float32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return types.int32(x), codegen


@intrinsic
def f64_to_bits(typingctx, x):
    """The IEEE bits of a float64, as an int64."""
    if x != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(x), codegen


@intrinsic
def bits_to_f32(typingctx, bits):
    """The float32 whose IEEE bits are the low 32 bits of an integer."""
    if not isinstance(bits, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(_fit_width(builder, args[0], bits, 32), ir.FloatType())

    return types.float32(bits), codegen


@intrinsic
def bits_to_f64(typingctx, bits):
    """The float64 whose IEEE bits are the low 64 bits of an integer."""
    if not isinstance(bits, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(_fit_width(builder, args[0], bits, 64), ir.DoubleType())

    return types.float64(bits), codegen


@intrinsic
def fmuladd(typingctx, a, b, c):
    """a * b + c, as one fused multiply-add where the CPU has one."""
    if not (isinstance(a, types.Float) and a == b == c):
        return None

    def codegen(context, builder, signature, args):
        ftype = args[0].type
        fn = builder.module.declare_intrinsic("llvm.fmuladd", [ftype], ir.FunctionType(ftype, [ftype] * 3))
        return builder.call(fn, args)

    return a(a, b, c), codegen
