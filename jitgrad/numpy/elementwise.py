"""Elementwise functions with NumPy's names. Float-only math promotes ints to float32."""
from __future__ import annotations

import math

import numpy as np

from ..core import Tracer, apply, user_source_info
from ..ir import Op
from ._convert import asarray, astype, device_of, is_array, is_scalar, operands, scalar
from ..tensor import Tensor
from ._out import accepts_out

# name -> primitive, for unary functions computed in floating point
_FLOAT_UNARY = {
    "exp": Op.exp, "log": Op.log, "log1p": Op.log1p, "expm1": Op.expm1, "sqrt": Op.sqrt,
    "rsqrt": Op.rsqrt, "sin": Op.sin, "cos": Op.cos, "tan": Op.tan, "tanh": Op.tanh,
    "arcsin": Op.asin, "arccos": Op.acos, "arctan": Op.atan, "sinh": Op.sinh, "cosh": Op.cosh,
    "arcsinh": Op.asinh, "arccosh": Op.acosh, "arctanh": Op.atanh,
}
# name -> primitive, for unary functions that keep integer dtypes (floor of an int is itself)
_NUMERIC_UNARY = {"negative": Op.neg, "abs": Op.abs, "sign": Op.sign, "square": Op.square}
_ROUNDING = {"floor": Op.floor, "ceil": Op.ceil, "rint": Op.round}
_BINARY = {"add": Op.add, "subtract": Op.sub, "multiply": Op.mul, "maximum": Op.max,
           "minimum": Op.min, "floor_divide": Op.floor_div, "mod": Op.mod, "power": Op.pow}
_COMPARE = {"equal": Op.eq, "not_equal": Op.ne, "less": Op.lt, "less_equal": Op.le,
            "greater": Op.gt, "greater_equal": Op.ge}
_LOGICAL = {"logical_and": Op.logical_and, "logical_or": Op.logical_or,
            "logical_xor": Op.logical_xor}


def _float_unary(op):
    def fn(x, /):
        (x,) = operands(x, float_only=True)
        return apply(op, [x])
    return fn


# Bool arithmetic as in NumPy: add/multiply/maximum/minimum are logical; the rest compute in
# NumPy's int8, which jitgrad widens to int32; negative, sign and subtract are errors.
_BOOL_LOGICAL = {Op.add: Op.logical_or, Op.max: Op.logical_or, Op.mul: Op.logical_and,
                 Op.min: Op.logical_and}
_BOOL_ERRORS = {Op.neg: "negative, the `-` operator, is not supported, use the `~` operator or "
                        "the logical_not function instead",
                Op.sign: "sign is not supported; cast to an integer or float dtype first",
                Op.sub: "subtract, the `-` operator, is not supported, use the bitwise_xor, the "
                        "`^` operator, or the logical_xor function instead"}


def _bool_error(op):
    return TypeError(f"numpy boolean {_BOOL_ERRORS[op]}")


def _numeric_unary(op):
    def fn(x, /):
        x = asarray(x)
        if x.dtype.kind == "b":
            if op in _BOOL_ERRORS:
                raise _bool_error(op)
            if op is Op.abs:
                return x
            x = astype(x, "int32")
        return apply(op, [x])
    return fn


def _rounding(op):
    def fn(x, /):
        x = asarray(x)
        if x.dtype.kind == "c" and op is Op.round:    # the real and imaginary parts, as NumPy
            return apply(Op.complex, [apply(op, [real(x)]), apply(op, [imag(x)])])
        return apply(op, [x]) if x.dtype.kind in "fc" else x      # complex floor: an error
    return fn


def _binary(op):
    def fn(x1, x2, /):
        a, b = operands(x1, x2)
        if a.dtype.kind == "b":
            if op in _BOOL_ERRORS:
                raise _bool_error(op)
            if op in _BOOL_LOGICAL:
                return apply(_BOOL_LOGICAL[op], [a, b])
            a, b = operands(a, b, dtype="int32")
        if op is Op.pow and a.dtype.kind in "iu":
            b = _nonnegative_exponent(b)
        return apply(op, [a, b])
    return fn


def _nonnegative_exponent(b):
    """An integer exponent, asserted >= 0 on every path as NumPy raises eagerly: checked now
    when its value is known, else by a checked take in the compiled code (indexing.checked)."""
    from ..ir.errors import negative_power
    if isinstance(b, Tensor) and b.device.type != "meta":
        if (b._data < 0).any():
            raise negative_power("power", b._data[b._data < 0].flat[0], user_source_info())
        return b
    if not isinstance(b, Tracer):
        return b
    from .indexing import checked
    zero = checked(where(less(b, 0), b, 0), 1, "power:power")
    return add(b, zero)


def _compare(op):
    def fn(x1, x2, /):
        return apply(op, operands(x1, x2))
    return fn


def _logical(op):
    def fn(x1, x2, /):
        return apply(op, [astype(x1, "bool"), astype(x2, "bool")])
    return fn


_g = globals()
for _table, _make in ((_FLOAT_UNARY, _float_unary), (_NUMERIC_UNARY, _numeric_unary),
                      (_ROUNDING, _rounding), (_BINARY, _binary), (_COMPARE, _compare),
                      (_LOGICAL, _logical)):
    for _name, _op in _table.items():
        _fn = _make(_op)
        _fn.__name__ = _name
        _g[_name] = accepts_out(_fn)

arcsin, arccos, arctan = _g["arcsin"], _g["arccos"], _g["arctan"]
asin, acos, atan = arcsin, arccos, arctan
asinh, acosh, atanh = _g["arcsinh"], _g["arccosh"], _g["arctanh"]
absolute = _g["abs"]
remainder = _g["mod"]
pow = _g["power"]  # noqa: A001
neg = _g["negative"]
fmax, fmin = _g["maximum"], _g["minimum"]
round_ = _g["rint"]


@accepts_out
def true_divide(x1, x2, /):
    return apply(Op.div, operands(x1, x2, float_only=True))


divide = div = true_divide


def positive(x, /):
    return asarray(x)


def logical_not(x, /):
    return apply(Op.logical_not, [astype(x, "bool")])


def _not_integer(name, *xs):
    return TypeError(f"{name} is supported on integer and bool tensors, got "
                     + " and ".join(x.dtype.name for x in xs))


def invert(x, /):
    """~x: bitwise NOT of integers, logical NOT of bools (NumPy's invert)."""
    x = asarray(x)
    if x.dtype.kind in "fc":
        raise _not_integer("invert (~)", x)
    return apply(Op.logical_not if x.dtype.kind == "b" else Op.bitwise_not, [x])


bitwise_not = bitwise_invert = invert

# name -> (primitive on integers, primitive on bools or None: bools compute in int32 as NumPy's int8)
_INTEGER_BINARY = {"bitwise_and": (Op.bitwise_and, Op.logical_and),
                   "bitwise_or": (Op.bitwise_or, Op.logical_or),
                   "bitwise_xor": (Op.bitwise_xor, Op.logical_xor),
                   "left_shift": (Op.shift_left, None), "right_shift": (Op.shift_right, None)}


def _integer_binary(name, op, on_bool):
    def fn(x1, x2, /):
        a, b = operands(x1, x2)
        if a.dtype.kind in "fc":
            raise _not_integer(name, a, b)
        if a.dtype.kind == "b":
            if on_bool is not None:
                return apply(on_bool, [a, b])
            a, b = operands(a, b, dtype="int32")
        return apply(op, [a, b])
    fn.__name__ = name
    return fn


for _name, (_op, _on_bool) in _INTEGER_BINARY.items():
    _g[_name] = accepts_out(_integer_binary(_name, _op, _on_bool))
bitwise_left_shift, bitwise_right_shift = _g["left_shift"], _g["right_shift"]


def round(a, decimals=0):  # noqa: A001
    a = asarray(a)
    if a.dtype.kind == "c":
        return apply(Op.complex, [round(real(a), decimals), round(imag(a), decimals)])
    if a.dtype.kind != "f":
        return a
    if decimals == 0:
        return apply(Op.round, [a])
    s = 10.0 ** decimals
    return true_divide(apply(Op.round, [multiply(a, s)]), s)  # noqa: F821


around = round


def fix(x, /):
    x = asarray(x)
    return where(greater_equal(x, 0), floor(x), ceil(x))  # noqa: F821


trunc = fix


def reciprocal(x, /):
    return true_divide(1.0, x)


def isnan(x, /):
    x = asarray(x)
    return apply(Op.isnan, [x]) if x.dtype.kind in "fc" else _const_like(x, False)


def isinf(x, /):
    x = asarray(x)
    return apply(Op.isinf, [x]) if x.dtype.kind in "fc" else _const_like(x, False)


def isfinite(x, /):
    x = asarray(x)
    if x.dtype.kind not in "fc":
        return _const_like(x, True)
    return logical_not(logical_or(isnan(x), isinf(x)))  # noqa: F821


def _const_like(x, value):
    from .creation import full
    return full(x.shape, value, dtype="bool", device=x.device)


def where(condition, x=None, y=None, /):
    if x is None and y is None:
        from .indexing import nonzero
        return nonzero(condition)
    dev = device_of(condition, x, y)
    c, x, y = (v if is_array(v) or is_scalar(v) else asarray(v, device=dev)
               for v in (condition, x, y))
    a, b = operands(x, y)
    return apply(Op.select, [astype(c, "bool"), a, b])


@accepts_out
def clip(x, /, min=None, max=None, *, a_min=None, a_max=None):  # noqa: A002
    """The standard's clip(x, min, max); NumPy's a_min/a_max keywords are aliases."""
    a_min = min if min is not None else a_min
    a_max = max if max is not None else a_max
    x = asarray(x)
    if a_min is not None:
        x = maximum(x, a_min)  # noqa: F821
    if a_max is not None:
        x = minimum(x, a_max)  # noqa: F821
    return x


def exp2(x, /):
    return exp(multiply(x, math.log(2.0)))  # noqa: F821


def log2(x, /):
    return true_divide(log(x), math.log(2.0))  # noqa: F821


def log10(x, /):
    return true_divide(log(x), math.log(10.0))  # noqa: F821


def hypot(x1, x2, /):
    a, b = operands(x1, x2, float_only=True)
    return sqrt(add(square(a), square(b)))  # noqa: F821


def arctan2(x1, x2, /):
    return apply(Op.atan2, operands(x1, x2, float_only=True))


atan2 = arctan2


def logaddexp(x1, x2, /):
    a, b = operands(x1, x2, float_only=True)
    m = maximum(a, b)  # noqa: F821
    # where both are -inf, m - m would be nan: use 0 there
    safe = where(isinf(m), scalar(0.0, m.dtype, m.device), m)
    return add(safe, log(add(exp(subtract(a, safe)), exp(subtract(b, safe)))))  # noqa: F821


def logaddexp2(x1, x2, /):
    a, b = operands(x1, x2, float_only=True)
    ln2 = math.log(2.0)
    return true_divide(logaddexp(multiply(a, ln2), multiply(b, ln2)), ln2)  # noqa: F821


def cbrt(x, /):
    (x,) = operands(x, float_only=True)
    return multiply(sign(x), power(abs(x), 1.0 / 3.0))  # noqa: F821


def deg2rad(x, /):
    return multiply(asarray(x) if not np.isscalar(x) else x, math.pi / 180.0)  # noqa: F821


def rad2deg(x, /):
    return multiply(x, 180.0 / math.pi)  # noqa: F821


radians, degrees = deg2rad, rad2deg


def sinc(x, /):
    (x,) = operands(x, float_only=True)
    px = multiply(x, math.pi)  # noqa: F821
    safe = where(equal(x, 0), scalar(1.0, x.dtype, x.device), px)  # noqa: F821
    return where(equal(x, 0), scalar(1.0, x.dtype, x.device), true_divide(sin(safe), safe))  # noqa: F821


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    x = asarray(x)
    if x.dtype.kind != "f":
        return x
    fi = np.finfo(x.dtype)
    x = where(isnan(x), nan, x)
    x = where(logical_and(isinf(x), greater(x, 0)), fi.max if posinf is None else posinf, x)  # noqa: F821
    return where(logical_and(isinf(x), less(x, 0)), fi.min if neginf is None else neginf, x)  # noqa: F821


def copysign(x1, x2, /):
    a, b = operands(x1, x2, float_only=True)
    return where(apply(Op.signbit, [b]), negative(abs(a)), abs(a))  # noqa: F821


def signbit(x, /):
    """True where the sign bit is set: -0.0 and -nan included."""
    x = asarray(x)
    if x.dtype.kind != "f":
        return less(x, 0)  # noqa: F821
    return apply(Op.signbit, [x])


def heaviside(x1, x2, /):
    a, b = operands(x1, x2)
    return where(less(a, 0), 0, where(greater(a, 0), 1, b)).astype(a.dtype)  # noqa: F821


def float_power(x1, x2, /):
    return power(astype(x1, "float64"), astype(x2, "float64") if not np.isscalar(x2) else x2)  # noqa: F821


def erf(x, /):
    (x,) = operands(x, float_only=True)
    return apply(Op.erf, [x])


def fabs(x, /):
    """Absolute value computed in floating point (ints become the default float dtype)."""
    (x,) = operands(x, float_only=True)
    return apply(Op.abs, [x])


def real(x, /):
    """The real part (float32 of complex64); a real array is its own real part."""
    x = asarray(x)
    return apply(Op.real, [x]) if x.dtype.kind == "c" else x


def imag(x, /):
    """The imaginary part (float32 of complex64); zeros of a real array's dtype and shape."""
    x = asarray(x)
    if x.dtype.kind == "c":
        return apply(Op.imag, [x])
    from .creation import zeros_like
    return zeros_like(x)


def conj(x, /):
    """The complex conjugate; a real array is its own conjugate."""
    x = asarray(x)
    return apply(Op.conj, [x]) if x.dtype.kind == "c" else x


conjugate = conj


def angle(z, deg=False):
    """The argument of complex numbers, arctan2(imag, real) (0 or pi for reals, as NumPy)."""
    (z,) = operands(z, float_only=True)
    a = apply(Op.atan2, [imag(z), real(z)])
    return multiply(a, 180.0 / math.pi) if deg else a  # noqa: F821


def iscomplexobj(x):
    """Whether x has a complex dtype (its values are not looked at)."""
    return np.dtype(getattr(x, "dtype", None) or np.asarray(x).dtype).kind == "c"


def isrealobj(x):
    return not iscomplexobj(x)


def iscomplex(x):
    """Elementwise: a nonzero imaginary part."""
    return not_equal(imag(x), 0)  # noqa: F821


def isreal(x):
    """Elementwise: a zero imaginary part."""
    return equal(imag(x), 0)  # noqa: F821


# `from .elementwise import *` exports this module's functions, not its imports (asarray, np, ...)
__all__ = [_n for _n, _v in list(globals().items()) if not _n.startswith("_") and callable(_v)
           and getattr(_v, "__module__", None) == __name__]
