"""The error function family and the normal distribution's functions (scipy.special names):
erf, erfc, erfinv, erfcx, ndtr, log_ndtr, ndtri. erf is a primitive, erfinv jitgrad.lax's;
erfc and erfcx use Laplace's continued fraction in the tails; ndtri is Cephes' piecewise
rational approximation (as jax.scipy's)."""
from __future__ import annotations

import math

import numpy as np

from ... import lax, numpy as jnp
from .series import floats, horner, safe

_SQRT_HALF = math.sqrt(0.5)


def erf(x):
    """scipy.special.erf / jax.scipy.special.erf: the error function, elementwise."""
    (x,) = floats(x)
    return jnp.erf(x)


def erfc(x):
    """1 - erf(x) without the cancellation for large x: 1 - erf(x) for |x| < 2, beyond it
    exp(-x^2) times erfcx's continued fraction (relative error ~1e-16 in float64)."""
    (x,) = floats(x)
    z = jnp.abs(x)
    far = jnp.greater_equal(z, 2.0)
    zf = safe(far, z, 2.0)
    tail = jnp.multiply(jnp.exp(jnp.negative(jnp.multiply(zf, zf))), _continued_fraction(zf))
    tail = jnp.where(jnp.less(x, 0), jnp.subtract(2.0, tail), tail)
    return jnp.where(far, tail, jnp.subtract(1.0, jnp.erf(x)))


def erfinv(x):
    """The inverse of erf on [-1, 1] (jitgrad.lax.erf_inv): +-inf at +-1, NaN outside."""
    (x,) = floats(x)
    return lax.erf_inv(x)


def _continued_fraction(x):
    """exp(x^2) erfc(x) for x >= 2 by Laplace's continued fraction
    1 / (sqrt(pi) (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))))), evaluated from a fixed
    depth (60 terms: ~4e-16 relative in float64; 20: ~1e-9, enough for float32)."""
    t = x
    for k in range(60 if x.dtype == np.float64 else 20, 0, -1):
        t = jnp.add(x, jnp.true_divide(k / 2, t))
    return jnp.true_divide(1.0 / math.sqrt(math.pi), t)


def erfcx(x):
    """The scaled complementary error function exp(x^2) erfc(x) (scipy.special.erfcx)."""
    (x,) = floats(x)
    z = jnp.abs(x)
    far = jnp.greater_equal(z, 2.0)
    near = safe(far, 0.0, x)
    direct = jnp.multiply(jnp.exp(jnp.multiply(near, near)), jnp.subtract(1.0, jnp.erf(near)))
    tail = _continued_fraction(safe(far, z, 2.0))
    # erfcx(-z) = 2 exp(z^2) - erfcx(z): overflows to inf, as scipy's
    zn = safe(jnp.logical_and(far, jnp.less(x, 0)), z, 0.0)
    tail = jnp.where(jnp.less(x, 0),
                     jnp.subtract(jnp.multiply(jnp.exp(jnp.multiply(zn, zn)), 2.0), tail), tail)
    return jnp.where(far, tail, direct)


def ndtr(x):
    """The standard normal CDF, erfc(-x / sqrt 2) / 2 (scipy.special.ndtr)."""
    (x,) = floats(x)
    return jnp.multiply(erfc(jnp.multiply(x, -_SQRT_HALF)), 0.5)


def log_ndtr(x, series_order=3):
    """log(ndtr(x)), accurate in both tails (scipy.special.log_ndtr; series_order is
    jax.scipy's): an asymptotic series below -20 (float32: -10), log1p(-ndtr(-x)) above 8
    (float32: 5), log(ndtr(x)) between."""
    if not isinstance(series_order, int) or not 0 <= series_order <= 30:
        raise ValueError(f"log_ndtr: expected series_order, an int in [0, 30], got "
                         f"{series_order!r}")
    (x,) = floats(x)
    lower, upper = (-20.0, 8.0) if x.dtype == np.float64 else (-10.0, 5.0)
    is_low, is_high = jnp.less(x, lower), jnp.greater(x, upper)
    mid = jnp.log(ndtr(jnp.clip(x, lower, upper)))
    high = jnp.log1p(jnp.negative(ndtr(jnp.negative(safe(is_high, x, upper)))))
    xl = safe(is_low, x, lower)
    inv = jnp.true_divide(1.0, jnp.multiply(xl, xl))
    coeffs = [(-1) ** n * float(np.prod(np.arange(1, 2 * n, 2))) for n in range(series_order + 1)]
    low = jnp.subtract(jnp.add(jnp.multiply(jnp.multiply(xl, xl), -0.5),
                               jnp.log(horner(coeffs[::-1], inv))),
                       jnp.add(jnp.log(jnp.negative(xl)), 0.5 * math.log(2 * math.pi)))
    return jnp.where(is_low, low, jnp.where(is_high, high, mid))


# Cephes ndtri: x/sqrt(2 pi) = w + w^3 P0(w^2)/Q0(w^2) for p > exp(-2), else
# x = z - log(z)/z - P(1/z)/(z Q(1/z)) with z = sqrt(-2 log p) (P1/Q1 for z < 8, P2/Q2 beyond)
_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
       1.39312609387279679503e1, -1.23916583867381258016e0)
_Q0 = (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
       -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
       1.59056225126211695515e1, -1.18331621121330003142e0)
_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
       4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
       -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4)
_Q1 = (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
       1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
       -3.80806407691578277194e-2, -9.33259480895457427372e-4)
_P2 = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
       1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
       3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9)
_Q2 = (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
       2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
       2.89247864745380683936e-6, 6.79019408009981274425e-9)
_EXP_M2 = math.exp(-2.0)


def ndtri(p):
    """The inverse of ndtr (scipy.special.ndtri): -inf at 0, inf at 1, NaN outside [0, 1]."""
    (p,) = floats(p)
    upper = jnp.greater(p, 1.0 - _EXP_M2)
    q = jnp.where(upper, jnp.subtract(1.0, p), p)          # the smaller tail
    inside = jnp.logical_and(jnp.greater(q, 0.0), jnp.less_equal(q, 1.0))
    q = safe(inside, q, 0.5)
    center = jnp.greater(q, _EXP_M2)
    w = jnp.subtract(safe(center, q, 0.5), 0.5)
    ww = jnp.multiply(w, w)
    ratio = jnp.true_divide(horner(_P0, ww), horner(_Q0, ww))
    x_center = jnp.multiply(jnp.add(w, jnp.multiply(jnp.multiply(w, ww), ratio)),
                            math.sqrt(2 * math.pi))
    z = jnp.sqrt(jnp.multiply(jnp.log(safe(center, _EXP_M2 / 2, q)), -2.0))
    iz = jnp.true_divide(1.0, z)
    far = jnp.greater_equal(z, 8.0)
    tail = jnp.where(far, jnp.true_divide(horner(_P2, iz), horner(_Q2, iz)),
                     jnp.true_divide(horner(_P1, iz), horner(_Q1, iz)))
    x_tail = jnp.negative(jnp.subtract(jnp.subtract(z, jnp.true_divide(jnp.log(z), z)),
                                       jnp.multiply(tail, iz)))
    x = jnp.where(center, x_center, x_tail)         # the quantile of the smaller tail q
    x = jnp.where(upper, jnp.negative(x), x)
    edge = jnp.where(jnp.equal(p, 0.0), -np.inf, jnp.where(jnp.equal(p, 1.0), np.inf, np.nan))
    return jnp.where(jnp.logical_and(jnp.greater(p, 0.0), jnp.less(p, 1.0)), x,
                     jnp.astype(edge, p.dtype))
