"""Complex numbers' parts with NumPy's names: real, imag, conj, angle, the iscomplex family and
real_if_close (whose result dtype depends on the values, so it needs a reduction)."""
from __future__ import annotations

import math

import numpy as np

from ..errors import ConcretizationError
from ..eager.dispatch import apply
from ..trace.tracer import Tracer
from ..ir import Op
from ..ir.types import kind_of
from ._convert import asarray, operands
from .creation import zeros_like
from .reductions import any as any_
from .ufuncs import abs as absolute, equal, greater, multiply, not_equal


def real(x, /):
    """The real part (float32 of complex64); a real array is its own real part."""
    x = asarray(x)
    return apply(Op.real, [x]) if kind_of(x.dtype) == "c" else x


def imag(x, /):
    """The imaginary part (float32 of complex64); zeros of a real array's dtype and shape."""
    x = asarray(x)
    if kind_of(x.dtype) == "c":
        return apply(Op.imag, [x])
    return zeros_like(x)


def conj(x, /):
    """The complex conjugate; a real array is its own conjugate."""
    x = asarray(x)
    return apply(Op.conj, [x]) if kind_of(x.dtype) == "c" else x


conjugate = conj


def angle(z, deg=False):
    """The argument of complex numbers, arctan2(imag, real) (0 or pi for reals, as NumPy)."""
    (z,) = operands(z, float_only=True)
    a = apply(Op.atan2, [imag(z), real(z)])
    return multiply(a, 180.0 / math.pi) if deg else a


def iscomplexobj(x):
    """Whether x has a complex dtype (its values are not looked at)."""
    return np.dtype(getattr(x, "dtype", None) or np.asarray(x).dtype).kind == "c"


def isrealobj(x):
    """numpy.isrealobj: return True if x is a not complex type or an array of complex numbers."""
    return not iscomplexobj(x)


def iscomplex(x):
    """Elementwise: a nonzero imaginary part."""
    return not_equal(imag(x), 0)


def isreal(x):
    """Elementwise: a zero imaginary part."""
    return equal(imag(x), 0)


def real_if_close(a, tol=100):
    """NumPy's real_if_close: the real part when every imaginary part is below `tol` machine
    epsilons (tol > 1; an absolute bound when tol <= 1), else `a` unchanged. The result's dtype
    depends on the values, so under jit a complex input is a ConcretizationError."""
    x = asarray(a)
    if kind_of(x.dtype) != "c":
        return x
    part = imag(x)
    bound = tol * np.finfo(part.dtype).eps if tol > 1 else tol
    big = any_(greater(absolute(part), bound))
    if isinstance(big, Tracer) and big._concrete is None:
        raise ConcretizationError(
            f"real_if_close: whether the result is real depends on the values of a traced "
            f"{x._type} inside a jitted function; use jnp.real(x) (or keep x complex) there")
    return x if bool(big) else real(x)


# `from .complex_parts import *` exports this module's functions, not its imports
__all__ = [_n for _n, _v in list(globals().items()) if not _n.startswith("_") and callable(_v)
           and getattr(_v, "__module__", None) == __name__]
