"""Modified Bessel functions of the first kind, orders 0 and 1 (scipy.special i0, i0e, i1, i1e):
the power series for |x| <= 20 (all terms positive, no cancellation), Hankel's asymptotic
expansion beyond; both to double precision. numpy.i0 and the Kaiser window (bessel_functions.py)
and jitgrad.scipy.special share them, as jnp.i0 and jax.scipy.special do lax's Bessel functions."""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp
from ._convert import operands
from .polynomials import horner

_CUT, _SERIES_TERMS, _ASYMPTOTIC_TERMS = 20.0, 42, 36


def _series_coeffs(order):
    """1 / (k! (k + order)!) for y^k = (x^2/4)^k, highest power first."""
    return [1.0 / (math.factorial(k) * math.factorial(k + order))
            for k in range(_SERIES_TERMS)][::-1]


def _asymptotic_coeffs(order):
    """I_v(x) e^-x sqrt(2 pi x) ~ sum_k (-1)^k prod_j (4v^2 - (2j-1)^2) / (k! 8^k) x^-k."""
    mu, c, out = 4.0 * order * order, 1.0, [1.0]
    for k in range(1, _ASYMPTOTIC_TERMS):
        c *= -(mu - (2 * k - 1) ** 2) / (k * 8.0)
        out.append(c)
    return out[::-1]


_SERIES = {0: _series_coeffs(0), 1: _series_coeffs(1)}
_ASYMPTOTIC = {0: _asymptotic_coeffs(0), 1: _asymptotic_coeffs(1)}


def _scaled(order, x):
    """I_order(x) exp(-|x|) (I1 is odd: the series takes x's sign from x itself, so the
    derivative at 0 is right)."""
    z = jnp.abs(x)
    large = jnp.greater(z, _CUT)
    zs = jnp.where(large, 1.0, z)      # each branch computes on a value it is finite at
    series = horner(_SERIES[order], jnp.multiply(jnp.multiply(zs, zs), 0.25))
    if order == 1:
        series = jnp.multiply(series, jnp.multiply(jnp.where(large, 1.0, x), 0.5))
    series = jnp.multiply(series, jnp.exp(jnp.negative(zs)))
    zl = jnp.where(large, z, 2 * _CUT)
    asym = jnp.true_divide(horner(_ASYMPTOTIC[order], jnp.true_divide(1.0, zl)),
                           jnp.sqrt(jnp.multiply(zl, 2 * math.pi)))
    if order == 1:
        asym = jnp.multiply(asym, jnp.sign(x))
    return jnp.where(large, asym, series)


def i0e(x):
    """exp(-|x|) I0(x), the exponentially scaled modified Bessel function of order 0."""
    (x,) = operands(x, float_only=True)
    return jnp.where(jnp.isinf(x), 0.0, _scaled(0, x))


def i0(x):
    """The modified Bessel function of order 0 (scipy.special.i0)."""
    (x,) = operands(x, float_only=True)
    return jnp.where(jnp.isinf(x), np.inf, jnp.multiply(_scaled(0, x), jnp.exp(jnp.abs(x))))


def i1e(x):
    """exp(-|x|) I1(x), the exponentially scaled modified Bessel function of order 1."""
    (x,) = operands(x, float_only=True)
    return jnp.where(jnp.isinf(x), 0.0, _scaled(1, x))


def i1(x):
    """The modified Bessel function of order 1 (scipy.special.i1), odd in x."""
    (x,) = operands(x, float_only=True)
    return jnp.where(jnp.isinf(x), x, jnp.multiply(_scaled(1, x), jnp.exp(jnp.abs(x))))
