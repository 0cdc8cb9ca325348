"""NumPy references of complex functions where NumPy's own results differ from the Array API
standard's special cases or lose precision: building a complex from parts, expm1, tanh."""
from __future__ import annotations

import numpy as np
from .types import kind_of


def complex_from_parts(re, im):
    """re + i im, part by part (re + 1j * im would turn an infinite im into NaN + inf j)."""
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, np.result_type(re.dtype, np.complex64))
    out.real, out.imag = re, im
    return out


def expm1(x):
    """NumPy's expm1; for complex x (which NumPy computes as exp(x) - 1, losing small x) the
    accurate form expm1(a) cos(b) - 2 sin(b/2)^2 + i e^a sin(b), exp's special values
    (infinities, NaN) shifted by -1 where a part is not finite, and +0 + 0j at +-0 + 0j."""
    if kind_of(x.dtype) != "c":
        return np.expm1(x)
    a, b = x.real, x.imag
    re = np.where((a == 0) & (b == 0), 0.0, np.expm1(a) * np.cos(b) - 2 * np.sin(b / 2) ** 2)
    fine = complex_from_parts(re, np.exp(a) * np.sin(b))
    edge = np.exp(x)
    edge = complex_from_parts(edge.real - 1, np.where(b == 0, b, edge.imag))
    return np.where(np.isfinite(a) & np.isfinite(b), fine, edge)


def tanh(x):
    """NumPy's tanh, with the standard's tanh(+-inf + i b) = +-1 + i copysign(0, b) for finite b
    (NumPy gives the zero the sign of sin(2b))."""
    out = np.tanh(x)
    if kind_of(x.dtype) != "c":
        return out
    a, b = x.real, x.imag
    edge = complex_from_parts(np.sign(a), np.copysign(np.zeros_like(b), b))
    return np.where(np.isinf(a) & np.isfinite(b), edge, out)
