"""Elementwise functions with NumPy's names. Those of one primitive each are generated from the
primitives' records into ufuncs.py (re-exported here); these are the rest, but for the complex
parts (complex_parts.py). Float-only math promotes ints to float32."""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import default_float
from ..eager.dispatch import apply
from ..eager.own_storage import own_storage
from ..ir import Op
from ..runtime.device import device as as_device
from ._convert import (asarray, astype, device_of, full_like_shape, is_array, is_scalar, operands,
                       scalar)
from ._out import accepts_out
from .host_values import nonzero
from .ufunc_rules import not_integer
from .ufuncs import (add, ceil, equal, exp, floor, greater, greater_equal, less, log,
                     logical_and, logical_or, maximum, minimum, multiply, negative, not_equal,
                     power, sign, sin, sqrt, square, subtract)
from ..ir.types import kind_of

@accepts_out
def true_divide(x1, x2, /):
    """numpy.true_divide / numpy.divide (jax.numpy.div): elementwise x1 / x2, float results."""
    return apply(Op.div, operands(x1, x2, float_only=True))


divide = div = true_divide


def positive(x, /):
    """numpy.positive: numerical positive, element-wise."""
    return asarray(x)


def logical_not(x, /):
    """numpy.logical_not: compute the truth value of NOT x element-wise."""
    return apply(Op.logical_not, [astype(x, "bool")])


def invert(x, /):
    """~x: bitwise NOT of integers, logical NOT of bools (NumPy's invert)."""
    x = asarray(x)
    if kind_of(x.dtype) in "fc":
        raise not_integer("invert (~)", x)
    return apply(Op.logical_not if kind_of(x.dtype) == "b" else Op.bitwise_not, [x])


bitwise_not = bitwise_invert = invert

def round(a, decimals=0):  # noqa: A001
    """numpy.around: round an array to the given number of decimals."""
    a = asarray(a)
    if kind_of(a.dtype) == "c":
        parts = [round(apply(part, [a]), decimals) for part in (Op.real, Op.imag)]
        return apply(Op.complex, parts)
    if kind_of(a.dtype) != "f":
        return own_storage(a)                   # integers: NumPy's round is a copy
    if decimals == 0:
        return apply(Op.round, [a])
    s = 10.0 ** decimals
    return true_divide(apply(Op.round, [multiply(a, s)]), s)


around = round


def fix(x, /):
    """numpy.fix: round to nearest integer towards zero."""
    x = asarray(x)
    return where(greater_equal(x, 0), floor(x), ceil(x))


trunc = fix


def reciprocal(x, /):
    """numpy.reciprocal: return the reciprocal of the argument, element-wise."""
    return true_divide(1.0, x)


def isnan(x, /):
    """numpy.isnan: test element-wise for NaN and return result as a boolean array."""
    x = asarray(x)
    return apply(Op.isnan, [x]) if kind_of(x.dtype) in "fc" else _const_like(x, False)


def isinf(x, /):
    """numpy.isinf: test element-wise for positive or negative infinity."""
    x = asarray(x)
    return apply(Op.isinf, [x]) if kind_of(x.dtype) in "fc" else _const_like(x, False)


def isfinite(x, /):
    """numpy.isfinite: test element-wise for finiteness (not infinity and not Not a Number)."""
    x = asarray(x)
    if kind_of(x.dtype) not in "fc":
        return _const_like(x, True)
    return logical_not(logical_or(isnan(x), isinf(x)))


def _const_like(x, value):
    return full_like_shape(x.shape, value, "bool", as_device(x.device))


def where(condition, x=None, y=None, /):
    """numpy.where: return elements chosen from `x` or `y` depending on `condition`."""
    if x is None and y is None:
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
        x = maximum(x, a_min)
    if a_max is not None:
        x = minimum(x, a_max)
    return x


def exp2(x, /):
    """numpy.exp2: calculate `2**p` for all `p` in the input array."""
    return exp(multiply(x, math.log(2.0)))


def log2(x, /):
    """numpy.log2: base-2 logarithm of `x`."""
    return true_divide(log(x), math.log(2.0))


def log10(x, /):
    """numpy.log10: return the base 10 logarithm of the input array, element-wise."""
    return true_divide(log(x), math.log(10.0))


def hypot(x1, x2, /):
    """numpy.hypot: given the "legs" of a right triangle, return its hypotenuse."""
    a, b = operands(x1, x2, float_only=True)
    return sqrt(add(square(a), square(b)))


def arctan2(x1, x2, /):
    """numpy.arctan2: element-wise arc tangent of ``x1/x2`` choosing the quadrant correctly."""
    return apply(Op.atan2, operands(x1, x2, float_only=True))


atan2 = arctan2


def logaddexp(x1, x2, /):
    """numpy.logaddexp: logarithm of the sum of exponentiations of the inputs."""
    a, b = operands(x1, x2, float_only=True)
    m = maximum(a, b)
    # where both are -inf, m - m would be nan: use 0 there
    safe = where(isinf(m), scalar(0.0, m.dtype, m.device), m)
    return add(safe, log(add(exp(subtract(a, safe)), exp(subtract(b, safe)))))


def logaddexp2(x1, x2, /):
    """numpy.logaddexp2: logarithm of the sum of exponentiations of the inputs in base-2."""
    a, b = operands(x1, x2, float_only=True)
    ln2 = math.log(2.0)
    return true_divide(logaddexp(multiply(a, ln2), multiply(b, ln2)), ln2)


def cbrt(x, /):
    """numpy.cbrt: return the cube-root of an array, element-wise."""
    (x,) = operands(x, float_only=True)
    return multiply(sign(x), power(abs(x), 1.0 / 3.0))


def deg2rad(x, /):
    """numpy.deg2rad: convert angles from degrees to radians."""
    return multiply(asarray(x) if not np.isscalar(x) else x, math.pi / 180.0)


def rad2deg(x, /):
    """numpy.degrees: convert angles from radians to degrees."""
    return multiply(x, 180.0 / math.pi)


radians, degrees = deg2rad, rad2deg


def sinc(x, /):
    """numpy.sinc: return the normalized sinc function."""
    (x,) = operands(x, float_only=True)
    px = multiply(x, math.pi)
    safe = where(equal(x, 0), scalar(1.0, x.dtype, x.device), px)
    return where(equal(x, 0), scalar(1.0, x.dtype, x.device), true_divide(sin(safe), safe))


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """numpy.nan_to_num: replace NaN with zero and infinity with large finite numbers (default
    behaviour) or with the numbers defined by the user using the `nan`, `posinf` and/or `neginf`
    keywords."""
    x = asarray(x)
    if kind_of(x.dtype) != "f":
        return own_storage(x)                   # NumPy's nan_to_num(copy=True): a copy
    fi = np.finfo(x.dtype)
    x = where(isnan(x), nan, x)
    x = where(logical_and(isinf(x), greater(x, 0)), fi.max if posinf is None else posinf, x)
    return where(logical_and(isinf(x), less(x, 0)), fi.min if neginf is None else neginf, x)


def copysign(x1, x2, /):
    """numpy.copysign: change the sign of x1 to that of x2, element-wise."""
    a, b = operands(x1, x2, float_only=True)
    return where(apply(Op.signbit, [b]), negative(abs(a)), abs(a))


def signbit(x, /):
    """True where the sign bit is set: -0.0 and -nan included."""
    x = asarray(x)
    if kind_of(x.dtype) != "f":
        return less(x, 0)
    return apply(Op.signbit, [x])


def heaviside(x1, x2, /):
    """numpy.heaviside: compute the Heaviside step function."""
    a, b = operands(x1, x2)
    return where(less(a, 0), 0, where(greater(a, 0), 1, b)).astype(a.dtype)


def float_power(x1, x2, /):
    """numpy.float_power / jax.numpy.float_power: power computed in the widest float in use: the
    inputs' float64, else the default float (float32; float64 with enable_x64), as in JAX."""
    floats = [x.dtype for x in (x1, x2) if getattr(x, "dtype", np.dtype(int)).kind == "f"]
    dt = np.result_type(default_float(), *floats)
    return power(astype(x1, dt), astype(x2, dt) if not np.isscalar(x2) else x2)


def erf(x, /):
    """scipy.special.erf / jax.scipy.special.erf: the error function, elementwise."""
    (x,) = operands(x, float_only=True)
    return apply(Op.erf, [x])


def fabs(x, /):
    """Absolute value computed in floating point (ints become the default float dtype)."""
    (x,) = operands(x, float_only=True)
    return apply(Op.abs, [x])


# `from .elementwise import *` exports this module's functions, not its imports (asarray, np, ...)
__all__ = [_n for _n, _v in list(globals().items()) if not _n.startswith("_") and callable(_v)
           and getattr(_v, "__module__", None) == __name__]
