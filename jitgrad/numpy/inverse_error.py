"""erfc and erf_inv written with jitgrad.numpy functions (jax.lax.erfc / jax.lax.erf_inv).

Not part of the jitgrad.numpy namespace: jitgrad.lax re-exports both, and jitgrad.random's
normal draws use erf_inv from here, below jitgrad.lax (which imports jitgrad.nn)."""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp
from ..ir.types import kind_of
from ._convert import asarray


_ERFC_FIT = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
             -1.13520398, 1.48851587, -0.82215223, 0.17087277)


def _log_erfc_plus_square(z):
    """log(erfc(z)) + z^2 for z >= 0 (Numerical Recipes' erfcc fit, relative error of erfc
    < 1.2e-7): bounded, so the tails need no exp of a huge negative number."""
    t = jnp.true_divide(1.0, jnp.add(1.0, jnp.multiply(0.5, z)))
    poly = jnp.zeros_like(t) + _ERFC_FIT[-1]
    for c in _ERFC_FIT[-2::-1]:
        poly = jnp.add(jnp.multiply(poly, t), c)
    return jnp.add(jnp.log(t), poly)


def erfc(x):
    """1 - erf(x), without the cancellation for large x: below |x| = 0.5 it is 1 - erf(x), above
    it exp(-x^2) times a Chebyshev fit (Numerical Recipes' erfcc, relative error < 1.2e-7)."""
    x = asarray(x)
    z = jnp.abs(x)
    tail = jnp.exp(jnp.subtract(_log_erfc_plus_square(z), jnp.multiply(z, z)))
    tail = jnp.where(jnp.less(x, 0), jnp.subtract(2.0, tail), tail)
    return jnp.where(jnp.less(z, 0.5), jnp.subtract(1.0, jnp.erf(x)), tail)


# Giles, "Approximating the erfinv function" (single precision), as XLA's ErfInv32
_ERFINV_CENTER = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                  0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _horner(coeffs, w):
    p = jnp.zeros_like(w) + coeffs[0]
    for c in coeffs[1:]:
        p = jnp.add(jnp.multiply(p, w), c)
    return p


def _erf_prime(z):
    return jnp.multiply(2.0 / math.sqrt(math.pi), jnp.exp(jnp.negative(jnp.multiply(z, z))))


def _refine(x, y):
    """Newton steps on erf(y) = x in float64: on erf itself where |y| < 3 (to a few ulp), on
    log(erfc(|y|)) = log(1 - |x|) beyond (well conditioned in the tails and nearly linear there,
    so it converges from Giles' rough tail value; as accurate as the erfc fit, ~1e-8). Each
    branch sees only safe inputs, so the unselected one adds no NaN to gradients."""
    z = jnp.abs(y)
    center = jnp.less(z, 3.0)
    xc, yc = jnp.where(center, x, 0.0), jnp.where(center, y, 0.0)
    for _ in range(2):
        yc = jnp.subtract(yc, jnp.true_divide(jnp.subtract(jnp.erf(yc), xc), _erf_prime(yc)))
    zt = jnp.where(center, 3.0, z)
    log_target = jnp.log(jnp.where(center, 0.5, jnp.subtract(1.0, jnp.abs(x))))
    for _ in range(4):
        log_erfc_sq = _log_erfc_plus_square(zt)
        log_erfc = jnp.subtract(log_erfc_sq, jnp.multiply(zt, zt))
        # d log(erfc(z)) / dz = -erf'(z) / erfc(z) = -(2/sqrt(pi)) / exp(log_erfc(z) + z^2)
        slope = jnp.true_divide(-2.0 / math.sqrt(math.pi), jnp.exp(log_erfc_sq))
        zt = jnp.subtract(zt, jnp.true_divide(jnp.subtract(log_erfc, log_target), slope))
    return jnp.where(center, yc, jnp.multiply(jnp.sign(x), zt))


def erf_inv(x):
    """The y with erf(y) = x, for -1 <= x <= 1 (+-inf at +-1, NaN outside). Giles' polynomial
    (float32 accuracy); in float64 then Newton steps (see _refine): relative error ~1e-13 for
    |x| < 0.99997, ~1e-8 beyond. Differentiable through the steps (the derivative is
    sqrt(pi)/2 exp(y^2) to the same accuracy), in both modes and to any order."""
    x = asarray(x)
    if kind_of(x.dtype) != "f":
        x = jnp.astype(x, "float32")
    w = jnp.negative(jnp.log(jnp.multiply(jnp.subtract(1.0, x), jnp.add(1.0, x))))
    center = jnp.less(w, 5.0)
    w_center = jnp.where(center, w, 2.5)            # both branches finite: no NaN in gradients
    w_tail = jnp.where(center, 9.0, w)
    p = jnp.where(center, _horner(_ERFINV_CENTER, jnp.subtract(w_center, 2.5)),
                  _horner(_ERFINV_TAIL, jnp.subtract(jnp.sqrt(w_tail), 3.0)))
    inside = jnp.less(jnp.abs(x), 1.0)
    xs = jnp.where(inside, x, 0.0)
    y = jnp.multiply(jnp.where(inside, p, 0.0), xs)
    if x.dtype == np.float64:
        y = _refine(xs, y)
    edge = jnp.where(jnp.equal(x, 1.0), np.inf, jnp.where(jnp.equal(x, -1.0), -np.inf, np.nan))
    return jnp.where(inside, y, jnp.astype(edge, x.dtype))
