"""jitgrad.numpy's functions of one primitive each, generated from the primitives' records
(ir/primitives/) by `python -m jitgrad.numpy._generate`. Do not edit: change the record (its
`numpy`, `numpy_kind` and `doc`) or the rules in jitgrad/numpy/ufunc_rules.py, and regenerate."""
from __future__ import annotations

from ..ir.ops import Op
from ._out import accepts_out
from .ufunc_rules import (binary, binary_function, compare, compare_function, float_unary,
                          float_unary_function, integer_binary, logical, numeric_unary,
                          numeric_unary_function, rounding, rounding_function)


@float_unary_function(Op.acos)
def arccos(x, /):
    """Inverse cosine, elementwise: numpy.arccos (also jnp.acos).

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.acos, x)


acos = arccos


@float_unary_function(Op.acosh)
def arccosh(x, /):
    """Inverse hyperbolic cosine, elementwise: numpy.arccosh (also jnp.acosh).

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.acosh, x)


acosh = arccosh


@float_unary_function(Op.asin)
def arcsin(x, /):
    """Inverse sine, elementwise: numpy.arcsin (also jnp.asin).

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.asin, x)


asin = arcsin


@float_unary_function(Op.asinh)
def arcsinh(x, /):
    """Inverse hyperbolic sine, elementwise: numpy.arcsinh (also jnp.asinh).

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.asinh, x)


asinh = arcsinh


@float_unary_function(Op.atan)
def arctan(x, /):
    """Inverse tangent, elementwise: numpy.arctan (also jnp.atan).

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.atan, x)


atan = arctan


@float_unary_function(Op.atanh)
def arctanh(x, /):
    """Inverse hyperbolic tangent, elementwise: numpy.arctanh (also jnp.atanh).

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.atanh, x)


atanh = arctanh


@float_unary_function(Op.cos)
def cos(x, /):
    """Cosine, elementwise: numpy.cos.

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.cos, x)


@float_unary_function(Op.cosh)
def cosh(x, /):
    """Hyperbolic cosine, elementwise: numpy.cosh.

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.cosh, x)


@float_unary_function(Op.exp)
def exp(x, /):
    """e ** x, elementwise: numpy.exp.

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.exp, x)


@float_unary_function(Op.expm1)
def expm1(x, /):
    """e ** x - 1, accurate near 0, elementwise: numpy.expm1.

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.expm1, x)


@float_unary_function(Op.log)
def log(x, /):
    """Natural logarithm, elementwise: numpy.log.

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.log, x)


@float_unary_function(Op.log1p)
def log1p(x, /):
    """Log(1 + x), accurate near 0, elementwise: numpy.log1p.

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.log1p, x)


@float_unary_function(Op.rsqrt)
def rsqrt(x, /):
    """1 / sqrt(x) (jax.lax.rsqrt; NumPy has none), elementwise: numpy.rsqrt.

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.rsqrt, x)


@float_unary_function(Op.sin)
def sin(x, /):
    """Sine, elementwise: numpy.sin.

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.sin, x)


@float_unary_function(Op.sinh)
def sinh(x, /):
    """Hyperbolic sine, elementwise: numpy.sinh.

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.sinh, x)


@float_unary_function(Op.sqrt)
def sqrt(x, /):
    """Square root, elementwise: numpy.sqrt.

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.sqrt, x)


@float_unary_function(Op.tan)
def tan(x, /):
    """Tangent, elementwise: numpy.tan.

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.tan, x)


@float_unary_function(Op.tanh)
def tanh(x, /):
    """Hyperbolic tangent, elementwise: numpy.tanh.

    Integer and bool inputs compute in the default float dtype (float32; float64 with
    enable_x64), where NumPy gives float64.
    """
    return float_unary(Op.tanh, x)


@numeric_unary_function(Op.abs)
def abs(x, /):
    """|x| (a complex input gives its real modulus), elementwise: numpy.abs (also jnp.absolute).

    Keeps integer dtypes. Bools as NumPy: abs returns them, square computes in int32 (NumPy:
    int8), negative and sign raise TypeError.
    """
    return numeric_unary(Op.abs, x)


absolute = abs


@numeric_unary_function(Op.neg)
def negative(x, /):
    """-x, elementwise: numpy.negative (also jnp.neg).

    Keeps integer dtypes. Bools as NumPy: abs returns them, square computes in int32 (NumPy:
    int8), negative and sign raise TypeError.
    """
    return numeric_unary(Op.neg, x)


neg = negative


@numeric_unary_function(Op.sign)
def sign(x, /):
    """-1, 0 or 1 by the sign of x (NaN stays NaN), elementwise: numpy.sign.

    Keeps integer dtypes. Bools as NumPy: abs returns them, square computes in int32 (NumPy:
    int8), negative and sign raise TypeError.
    """
    return numeric_unary(Op.sign, x)


@numeric_unary_function(Op.square)
def square(x, /):
    """x * x, elementwise: numpy.square.

    Keeps integer dtypes. Bools as NumPy: abs returns them, square computes in int32 (NumPy:
    int8), negative and sign raise TypeError.
    """
    return numeric_unary(Op.square, x)


@rounding_function(Op.ceil)
def ceil(x, /):
    """The smallest integer >= x, elementwise: numpy.ceil.

    Integer inputs are returned as they are, as NumPy; a complex input rounds its real and
    imaginary parts.
    """
    return rounding(Op.ceil, x)


@rounding_function(Op.floor)
def floor(x, /):
    """The largest integer <= x, elementwise: numpy.floor.

    Integer inputs are returned as they are, as NumPy; a complex input rounds its real and
    imaginary parts.
    """
    return rounding(Op.floor, x)


@rounding_function(Op.round)
def rint(x, /):
    """The nearest integer, halves to even, elementwise: numpy.rint (also jnp.round_).

    Integer inputs are returned as they are, as NumPy; a complex input rounds its real and
    imaginary parts.
    """
    return rounding(Op.round, x)


round_ = rint


@binary_function(Op.add)
def add(x1, x2, /):
    """x1 + x2, elementwise: numpy.add.

    JAX's promotion of the two operands (Python scalars are weak, as in JAX). Bool
    add/multiply/maximum/minimum are logical, other bool arithmetic computes in int32 (NumPy:
    int8), bool subtract raises TypeError; an integer to a negative integer power raises
    ValueError on every path, as NumPy.
    """
    return binary(Op.add, x1, x2)


@binary_function(Op.floor_div)
def floor_divide(x1, x2, /):
    """Floor(x1 / x2), elementwise: numpy.floor_divide.

    JAX's promotion of the two operands (Python scalars are weak, as in JAX). Bool
    add/multiply/maximum/minimum are logical, other bool arithmetic computes in int32 (NumPy:
    int8), bool subtract raises TypeError; an integer to a negative integer power raises
    ValueError on every path, as NumPy.
    """
    return binary(Op.floor_div, x1, x2)


@binary_function(Op.max)
def maximum(x1, x2, /):
    """The larger of x1 and x2 (NaN wins, as NumPy's maximum), elementwise: numpy.maximum (also jnp.fmax).

    JAX's promotion of the two operands (Python scalars are weak, as in JAX). Bool
    add/multiply/maximum/minimum are logical, other bool arithmetic computes in int32 (NumPy:
    int8), bool subtract raises TypeError; an integer to a negative integer power raises
    ValueError on every path, as NumPy.
    """
    return binary(Op.max, x1, x2)


fmax = maximum


@binary_function(Op.min)
def minimum(x1, x2, /):
    """The smaller of x1 and x2 (NaN wins, as NumPy's minimum), elementwise: numpy.minimum (also jnp.fmin).

    JAX's promotion of the two operands (Python scalars are weak, as in JAX). Bool
    add/multiply/maximum/minimum are logical, other bool arithmetic computes in int32 (NumPy:
    int8), bool subtract raises TypeError; an integer to a negative integer power raises
    ValueError on every path, as NumPy.
    """
    return binary(Op.min, x1, x2)


fmin = minimum


@binary_function(Op.mod)
def mod(x1, x2, /):
    """x1 - x2 * floor(x1 / x2), the sign of x2 (Python's %), elementwise: numpy.mod (also jnp.remainder).

    JAX's promotion of the two operands (Python scalars are weak, as in JAX). Bool
    add/multiply/maximum/minimum are logical, other bool arithmetic computes in int32 (NumPy:
    int8), bool subtract raises TypeError; an integer to a negative integer power raises
    ValueError on every path, as NumPy.
    """
    return binary(Op.mod, x1, x2)


remainder = mod


@binary_function(Op.mul)
def multiply(x1, x2, /):
    """x1 * x2, elementwise: numpy.multiply.

    JAX's promotion of the two operands (Python scalars are weak, as in JAX). Bool
    add/multiply/maximum/minimum are logical, other bool arithmetic computes in int32 (NumPy:
    int8), bool subtract raises TypeError; an integer to a negative integer power raises
    ValueError on every path, as NumPy.
    """
    return binary(Op.mul, x1, x2)


@binary_function(Op.pow)
def power(x1, x2, /):
    """x1 ** x2, elementwise: numpy.power (also jnp.pow).

    JAX's promotion of the two operands (Python scalars are weak, as in JAX). Bool
    add/multiply/maximum/minimum are logical, other bool arithmetic computes in int32 (NumPy:
    int8), bool subtract raises TypeError; an integer to a negative integer power raises
    ValueError on every path, as NumPy.
    """
    return binary(Op.pow, x1, x2)


pow = power


@binary_function(Op.sub)
def subtract(x1, x2, /):
    """x1 - x2, elementwise: numpy.subtract.

    JAX's promotion of the two operands (Python scalars are weak, as in JAX). Bool
    add/multiply/maximum/minimum are logical, other bool arithmetic computes in int32 (NumPy:
    int8), bool subtract raises TypeError; an integer to a negative integer power raises
    ValueError on every path, as NumPy.
    """
    return binary(Op.sub, x1, x2)


@compare_function(Op.eq)
def equal(x1, x2, /):
    """x1 == x2, elementwise: numpy.equal.

    JAX's promotion of the two operands; the result is bool.
    """
    return compare(Op.eq, x1, x2)


@compare_function(Op.gt)
def greater(x1, x2, /):
    """x1 > x2, elementwise: numpy.greater.

    JAX's promotion of the two operands; the result is bool.
    """
    return compare(Op.gt, x1, x2)


@compare_function(Op.ge)
def greater_equal(x1, x2, /):
    """x1 >= x2, elementwise: numpy.greater_equal.

    JAX's promotion of the two operands; the result is bool.
    """
    return compare(Op.ge, x1, x2)


@compare_function(Op.lt)
def less(x1, x2, /):
    """x1 < x2, elementwise: numpy.less.

    JAX's promotion of the two operands; the result is bool.
    """
    return compare(Op.lt, x1, x2)


@compare_function(Op.le)
def less_equal(x1, x2, /):
    """x1 <= x2, elementwise: numpy.less_equal.

    JAX's promotion of the two operands; the result is bool.
    """
    return compare(Op.le, x1, x2)


@compare_function(Op.ne)
def not_equal(x1, x2, /):
    """x1 != x2 (true where NaN), elementwise: numpy.not_equal.

    JAX's promotion of the two operands; the result is bool.
    """
    return compare(Op.ne, x1, x2)


@accepts_out
def logical_and(x1, x2, /):
    """x1 and x2, elementwise: numpy.logical_and.

    Both operands are taken as bools; the result is bool.
    """
    return logical(Op.logical_and, x1, x2)


@accepts_out
def logical_or(x1, x2, /):
    """x1 or x2, elementwise: numpy.logical_or.

    Both operands are taken as bools; the result is bool.
    """
    return logical(Op.logical_or, x1, x2)


@accepts_out
def logical_xor(x1, x2, /):
    """x1 xor x2, elementwise: numpy.logical_xor.

    Both operands are taken as bools; the result is bool.
    """
    return logical(Op.logical_xor, x1, x2)


@accepts_out
def bitwise_and(x1, x2, /):
    """x1 & x2, elementwise: numpy.bitwise_and.

    Integer and bool inputs only (floats raise TypeError, as NumPy); on bools and/or/xor are
    logical, shifts compute in int32 (NumPy: int8).
    """
    return integer_binary(Op.bitwise_and, 'bitwise_and', x1, x2)


@accepts_out
def bitwise_or(x1, x2, /):
    """x1 | x2, elementwise: numpy.bitwise_or.

    Integer and bool inputs only (floats raise TypeError, as NumPy); on bools and/or/xor are
    logical, shifts compute in int32 (NumPy: int8).
    """
    return integer_binary(Op.bitwise_or, 'bitwise_or', x1, x2)


@accepts_out
def bitwise_xor(x1, x2, /):
    """x1 ^ x2, elementwise: numpy.bitwise_xor.

    Integer and bool inputs only (floats raise TypeError, as NumPy); on bools and/or/xor are
    logical, shifts compute in int32 (NumPy: int8).
    """
    return integer_binary(Op.bitwise_xor, 'bitwise_xor', x1, x2)


@accepts_out
def left_shift(x1, x2, /):
    """x1 << x2 (0 for a count outside [0, bits), as NumPy), elementwise: numpy.left_shift (also jnp.bitwise_left_shift).

    Integer and bool inputs only (floats raise TypeError, as NumPy); on bools and/or/xor are
    logical, shifts compute in int32 (NumPy: int8).
    """
    return integer_binary(Op.shift_left, 'left_shift', x1, x2)


bitwise_left_shift = left_shift


@accepts_out
def right_shift(x1, x2, /):
    """x1 >> x2, arithmetic (0 or -1 for a count outside [0, bits), as NumPy), elementwise: numpy.right_shift (also jnp.bitwise_right_shift).

    Integer and bool inputs only (floats raise TypeError, as NumPy); on bools and/or/xor are
    logical, shifts compute in int32 (NumPy: int8).
    """
    return integer_binary(Op.shift_right, 'right_shift', x1, x2)


bitwise_right_shift = right_shift


__all__ = [
    "abs",
    "absolute",
    "acos",
    "acosh",
    "add",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctanh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "ceil",
    "cos",
    "cosh",
    "equal",
    "exp",
    "expm1",
    "floor",
    "floor_divide",
    "fmax",
    "fmin",
    "greater",
    "greater_equal",
    "left_shift",
    "less",
    "less_equal",
    "log",
    "log1p",
    "logical_and",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "neg",
    "negative",
    "not_equal",
    "pow",
    "power",
    "remainder",
    "right_shift",
    "rint",
    "round_",
    "rsqrt",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "subtract",
    "tan",
    "tanh",
]
