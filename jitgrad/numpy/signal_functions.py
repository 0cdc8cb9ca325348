"""One-dimensional signal functions with NumPy's names: convolve, correlate (a gather of the
sliding windows and a weighted sum), interp, unwrap and trapezoid, all composites."""
from __future__ import annotations

import math

from ._convert import asarray, operands
from .complex_parts import conj
from .differences import diff
from .elementwise import clip, true_divide, where
from .indexing import take
from .reductions import argsort, cumsum, sum  # noqa: A004
from .searching import searchsorted
from .shape import concatenate, flip, moveaxis, pad, slice_axis
from .spaced import arange
from .ufuncs import (abs, add, equal, greater, less, logical_and, mod, multiply,  # noqa: A004
                     subtract)


def _full_convolution(a, v):
    """sum_j a[k - j] v[j] for k in [0, n + m - 1): windows of a zero-padded a."""
    n, m = a.shape[0], v.shape[0]
    padded = pad(a, (m - 1, m - 1))
    windows = take(padded, add(arange(n + m - 1)[:, None], arange(m)[None, :]))
    return sum(multiply(windows, flip(v)), axis=1)


def _windowed(a, v, mode, name):
    a, v = operands(a, v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"{name}: a and v must be 1-d, got shapes {a.shape} and {v.shape}")
    n, m = a.shape[0], v.shape[0]
    if n == 0 or m == 0:
        raise ValueError(f"{name}: a and v must be non-empty, got lengths {n} and {m}")
    full = _full_convolution(a, v)
    long, short = max(n, m), min(n, m)
    starts = {"full": (0, n + m - 1), "same": ((short - 1) // 2, (short - 1) // 2 + long),
              "valid": (short - 1, long)}
    if mode not in starts:
        raise ValueError(f"{name}: mode must be 'full', 'same' or 'valid', got {mode!r}")
    lo, hi = starts[mode]
    return full[lo:hi]


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """numpy.convolve: the discrete linear convolution of two 1-d arrays."""
    return _windowed(a, v, mode, "convolve")


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """numpy.correlate: sum_n a[n + k] conj(v[n]), a convolution with v reversed."""
    a, v = operands(a, v)
    if asarray(v).ndim == 1 and v.shape[0] > a.shape[0]:     # NumPy swaps and reverses
        return conj(flip(_windowed(v, conj(flip(a)), mode, "correlate")))
    return _windowed(a, conj(flip(v)) if v.ndim == 1 else v, mode, "correlate")


def interp(x, xp, fp, left=None, right=None, period=None):
    """numpy.interp: piecewise-linear interpolation of (xp, fp) at x; left/right past the ends
    (default fp's end values); with `period`, x and xp wrap around."""
    x, xp, fp = operands(x, xp, fp, float_only=True)
    if xp.ndim != 1 or fp.ndim != 1 or xp.shape != fp.shape:
        raise ValueError(f"interp: xp and fp must be 1-d of one length, got shapes {xp.shape} "
                         f"and {fp.shape}")
    if period is not None:
        if period == 0:
            raise ValueError("interp: period must be a non-zero value")
        period = abs(asarray(period, dtype=x.dtype))
        left = right = None
        x, xp = mod(x, period), mod(xp, period)
        order = argsort(xp)
        xp, fp = take(xp, order), take(fp, order)
        xp = concatenate([subtract(xp[-1:], period), xp, add(xp[:1], period)])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    i = clip(searchsorted(xp, x, side="right"), 1, xp.shape[0] - 1)
    x0, x1, f0, f1 = take(xp, i - 1), take(xp, i), take(fp, i - 1), take(fp, i)
    dx = subtract(x1, x0)
    flat = equal(dx, 0)
    slope = true_divide(subtract(f1, f0), where(flat, 1, dx))
    f = where(flat, f1, add(f0, multiply(slope, subtract(x, x0))))
    f = where(less(x, xp[0]), fp[0] if left is None else left, f)
    return where(greater(x, xp[-1]), fp[-1] if right is None else right, f)


def unwrap(p, discont=None, axis=-1, period=2 * math.pi):
    """numpy.unwrap: adds multiples of period where consecutive values jump by more than
    max(discont, period / 2)."""
    x = asarray(p)
    dd = diff(x, axis=axis)
    half = period / 2
    discont = half if discont is None else max(discont, half)
    ddmod = subtract(mod(add(dd, half), period), half)
    ddmod = where(logical_and(equal(ddmod, -half), greater(dd, 0)), half, ddmod)
    correct = where(less(abs(dd), discont), 0, subtract(ddmod, dd))
    shift = cumsum(correct, axis=axis)
    first = slice_axis(x, axis, 0, 1)
    return concatenate([first, add(slice_axis(x, axis, 1, x.shape[axis]), shift)], axis=axis)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """numpy.trapezoid: the integral of y by the trapezoidal rule, over x or a spacing dx."""
    y = moveaxis(asarray(y), axis, -1)
    d = dx if x is None else diff(moveaxis(asarray(x), axis, -1) if asarray(x).ndim > 1
                                  else asarray(x))
    return sum(multiply(d, multiply(add(y[..., 1:], y[..., :-1]), 0.5)), axis=-1)
