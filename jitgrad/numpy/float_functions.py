"""NumPy's floating-point and integer helpers as composites: frexp, ldexp, modf, nextafter,
spacing, fmod, divmod, gcd and lcm (jax.numpy's names and results)."""
from __future__ import annotations

import numpy as np

from ..dtypes import default_float
from ..ir.types import kind_of
from ._convert import asarray, astype, operands
from .elementwise import (copysign, fix, isinf, isnan, log2, logical_not, true_divide,
                          where)
from .ufuncs import (abs, add, equal, floor, floor_divide, greater_equal,  # noqa: A004
                     less, logical_and, logical_or, mod, multiply, not_equal, sign, subtract)


def _float(x):
    x = asarray(x)
    return x if kind_of(x.dtype) == "f" else astype(x, default_float())


def _finfo(dtype):
    return np.finfo(np.float32 if np.dtype(str(dtype)).itemsize < 4 else np.dtype(str(dtype)))


def _pow2(e, dtype):
    """2**e exactly for integer e, as a product of the powers 2**(+-2**k) its bits select
    (exp2 rounds); |e| below 2**(nexp - 1) (half the exponent range: see _scaled)."""
    bits = 9 if np.dtype(str(dtype)).itemsize == 8 else 6
    a, neg = abs(e), less(e, 0)
    out = None
    for k in range(bits + 1):
        bit = equal(mod(floor_divide(a, 2 ** k), 2), 1)
        down, up = (asarray(c, dtype=dtype) for c in (0.5 ** (2 ** k), 2.0 ** (2 ** k)))
        f = where(bit, where(neg, down, up), asarray(1, dtype=dtype))
        out = f if out is None else multiply(out, f)
    return out


def _scaled(x, e):
    """x * 2**e for integer e anywhere in the exponent range, in two exact factors."""
    half = floor_divide(e, 2)
    return multiply(multiply(x, _pow2(half, x.dtype)), _pow2(subtract(e, half), x.dtype))


def frexp(x, /):
    """numpy.frexp: (mantissa, exponent) with x = mantissa * 2**exponent, |mantissa| in
    [0.5, 1); zero, inf and nan give (x, 0). The exponent is int32 as in JAX."""
    x = _float(x)
    special = logical_or(equal(x, 0), logical_or(isinf(x), isnan(x)))
    safe = where(special, 1, abs(x))
    e = add(floor(log2(safe)), 1)
    # log2 may round across a power of two: one correction step each way
    e = astype(e, "int32")
    m = _scaled(safe, -e)
    e = where(greater_equal(m, 1), add(e, 1), where(less(m, 0.5), subtract(e, 1), e))
    m = multiply(_scaled(safe, -e), sign(x))
    return where(special, x, m), where(special, 0, e)


def ldexp(x1, x2, /):
    """numpy.ldexp: x1 * 2**x2 (in two factors, so a large x2 with a small x1 stays finite)."""
    x1 = _float(x1)
    e = asarray(x2)
    if kind_of(e.dtype) not in "iub":
        raise TypeError(f"ldexp: x2 must be an integer array, got {e.dtype}")
    return _scaled(x1, e)


def modf(x, /, out=None):
    """numpy.modf: (fractional part, integral part), both with x's sign."""
    x = _float(x)
    whole = fix(x)
    return where(isinf(x), copysign(0.0, x), subtract(x, whole)), whole


def _ulp(x, toward_larger):
    """The distance from finite x to its neighbour away from zero (toward_larger) or toward it."""
    fi = _finfo(x.dtype)
    _, e = frexp(x)
    e = where(less(e, fi.minexp + 1), fi.minexp + 1, e)      # subnormals: the smallest step
    m, _ = frexp(abs(x))
    step = _scaled(where(True, 1.0, x), subtract(e, fi.nmant + 1))
    at_power = logical_and(equal(m, 0.5), logical_and(not_equal(x, 0),
                                                       greater_equal(e, fi.minexp + 2)))
    return where(logical_and(at_power, logical_not(toward_larger)), multiply(step, 0.5), step)


def nextafter(x1, x2, /):
    """numpy.nextafter: the next representable float after x1 toward x2."""
    x, y = operands(x1, x2, float_only=True)
    fi = _finfo(x.dtype)
    tiny = float(fi.smallest_subnormal)
    away = logical_or(equal(sign(x), sign(subtract(y, x))), equal(x, 0))
    ulp = _ulp(where(isinf(x), 1, x), away)
    moved = add(x, multiply(sign(subtract(y, x)), ulp))
    moved = where(equal(moved, 0), copysign(0.0, x), moved)       # -tiny toward 0 is -0.0
    moved = where(equal(x, 0), multiply(sign(y), tiny), moved)
    moved = where(isinf(x), multiply(sign(x), float(fi.max)), moved)
    moved = where(logical_or(isnan(x), isnan(y)), add(x, y), moved)
    return where(equal(x, y), y, moved)


def spacing(x, /):
    """numpy.spacing: the distance from x to the next float away from zero (negative for
    negative x); NaN for inf and NaN."""
    x = _float(x)
    far = copysign(float("inf"), x)
    step = where(equal(x, 0), float(_finfo(x.dtype).smallest_subnormal),
                 subtract(nextafter(x, far), x))      # NumPy: spacing(-0.0) is positive
    return where(isinf(x), float("nan"), step)


def fmod(x1, x2, /):
    """numpy.fmod: the remainder of truncated division, with the sign of x1 (C's fmod)."""
    a, b = operands(x1, x2)
    r = mod(a, b)
    wrong = logical_and(not_equal(r, 0), not_equal(less(r, 0), less(a, 0)))
    return where(wrong, subtract(r, b), r)


def divmod(x1, x2, /):  # noqa: A001
    """numpy.divmod: (floor_divide(x1, x2), mod(x1, x2))."""
    return floor_divide(x1, x2), mod(x1, x2)


def _euclid_steps(dtype):
    """Enough Euclid steps for any pair of this integer width (consecutive Fibonacci numbers are
    the slowest pair: F(n) ~ phi**n, so about 1.44 steps per bit)."""
    return int(np.dtype(str(dtype)).itemsize * 8 * 1.45) + 2


def gcd(x1, x2, /):
    """numpy.gcd: the greatest common divisor of integers, by a fixed number of Euclid steps
    (a finished pair stays put), so it traces and fuses as one elementwise chain."""
    a, b = operands(x1, x2)
    if kind_of(a.dtype) not in "iub":
        raise TypeError(f"gcd: expected integer arrays, got {a.dtype}")
    a, b = abs(a), abs(b)
    for _ in range(_euclid_steps(a.dtype)):
        nz = not_equal(b, 0)
        a, b = where(nz, b, a), where(nz, mod(a, where(nz, b, 1)), 0)
    return a


def lcm(x1, x2, /):
    """numpy.lcm: the least common multiple of integers (0 where either is 0)."""
    a, b = operands(x1, x2)
    g = gcd(a, b)
    zero = equal(g, 0)
    return where(zero, 0, abs(multiply(floor_divide(a, where(zero, 1, g)), b)))
