"""The Hurwitz zeta function and polygamma (scipy.special.zeta / polygamma), by Euler-Maclaurin
summation as Cephes' zeta: nine terms of the sum, then twelve Bernoulli corrections, a fixed
count (no data-dependent loop), so they trace, vmap and differentiate."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from .gamma_functions import digamma, gamma
from .series import floats

_TERMS = 9
# (2k)! / B_2k for k = 1..12
_BERNOULLI = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
              7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
              -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def _euler_maclaurin(x, q):
    s = jnp.power(q, jnp.negative(x))
    a = q
    b = jnp.zeros_like(q)
    for _ in range(_TERMS):
        a = jnp.add(a, 1.0)
        b = jnp.power(a, jnp.negative(x))
        s = jnp.add(s, b)
    w = a
    s = jnp.add(s, jnp.true_divide(jnp.multiply(b, w), jnp.subtract(x, 1.0)))
    s = jnp.subtract(s, jnp.multiply(b, 0.5))
    term = b          # b x (x+1) ... (x+2k-2) / w^(2k-1), built as one product: no overflow
    for k, coeff in enumerate(_BERNOULLI):
        term = jnp.multiply(term, jnp.true_divide(jnp.add(x, 2.0 * k), w))
        s = jnp.add(s, jnp.true_divide(term, coeff))
        term = jnp.multiply(term, jnp.true_divide(jnp.add(x, 2.0 * k + 1.0), w))
    return s


def zeta(x, q=None):
    """The Hurwitz zeta function sum_n (n + q)^-x (scipy.special.zeta with q given; the Riemann
    zeta, q=None, is not supported, as in jax.scipy). inf for x == 1 and at q = 0, -1, ...;
    NaN for x < 1. A negative q needs an integer x (as scipy) and loses accuracy below -5."""
    if q is None:
        raise NotImplementedError("zeta: the Riemann zeta function (q=None) is not supported; "
                                  "pass q (zeta(x, 1.0) is the Riemann zeta)")
    x, q = floats(x, q)
    x, q = jnp.broadcast_arrays(x, q)
    pole = jnp.logical_and(jnp.less_equal(q, 0), jnp.equal(jnp.floor(q), q))
    bad = jnp.logical_or(jnp.less(x, 1.0),
                         jnp.logical_and(jnp.less(q, 0), jnp.not_equal(jnp.floor(x), x)))
    ok = jnp.logical_not(jnp.logical_or(jnp.logical_or(pole, bad), jnp.equal(x, 1.0)))
    out = _euler_maclaurin(jnp.where(ok, x, 2.0), jnp.where(ok, q, 1.0))
    out = jnp.where(ok, out, jnp.where(bad, np.nan, np.inf))
    return jnp.where(jnp.logical_or(jnp.isnan(x), jnp.isnan(q)), np.nan, out)


def polygamma(n, x):
    """The n-th derivative of digamma (scipy.special.polygamma), for integer n >= 0:
    (-1)^(n+1) n! zeta(n + 1, x) for n >= 1."""
    n, x = floats(n, x)
    n, x = jnp.broadcast_arrays(n, x)
    higher = jnp.greater(n, 0)
    m = jnp.where(higher, n, 1.0)
    sign = jnp.where(jnp.equal(jnp.remainder(m, 2.0), 1.0), 1.0, -1.0)
    out = jnp.multiply(jnp.multiply(sign, gamma(jnp.add(m, 1.0))), zeta(jnp.add(m, 1.0), x))
    out = jnp.where(higher, out, digamma(x))
    valid = jnp.logical_and(jnp.greater_equal(n, 0), jnp.equal(jnp.floor(n), n))
    return jnp.where(valid, out, np.nan)
