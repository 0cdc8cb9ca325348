"""The gamma function family (scipy.special / jax.scipy.special names): gammaln, gammasgn,
gamma, digamma, betaln, beta, multigammaln, factorial, comb, poch. Lanczos's approximation
(g = 7, 9 terms, as XLA's lgamma) with Euler's reflection below 1/2; digamma by recurrence to
x >= 10 and its asymptotic series. Written in jitgrad ops, so they trace, vmap and differentiate."""
from __future__ import annotations

import math

import numpy as np

from ... import numpy as jnp
from .series import floats, is_nonpositive_integer, safe

_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
# Bernoulli numbers B_2k / 2k, k = 1..6: psi(w) ~ log w - 1/(2w) - sum B_2k / (2k w^2k)
_DIGAMMA_ASYMPTOTIC = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760)
_DIGAMMA_SHIFT = 10


def _lgamma_positive(y):
    """log Gamma(y) for y >= 1/2 by Lanczos."""
    z = jnp.subtract(y, 1.0)
    a = jnp.zeros_like(z) + _LANCZOS[0]
    for i, c in enumerate(_LANCZOS[1:], start=1):
        a = jnp.add(a, jnp.true_divide(c, jnp.add(z, float(i))))
    t = jnp.add(z, _LANCZOS_G + 0.5)
    return jnp.add(jnp.subtract(jnp.multiply(jnp.add(z, 0.5), jnp.log(t)), t),
                   jnp.add(jnp.log(a), _LOG_SQRT_2PI))


def _sin_pi(x):
    """sin(pi x) with x reduced to [-1/2, 1/2] first (exact for large x; the sign is lost)."""
    return jnp.sin(jnp.multiply(jnp.subtract(x, jnp.round(x)), math.pi))


def gammaln(x):
    """log|Gamma(x)| (scipy.special.gammaln); +inf at the poles 0, -1, -2, ..."""
    (x,) = floats(x)
    reflect = jnp.less(x, 0.5)
    pole = is_nonpositive_integer(x)
    xr = safe(jnp.logical_and(reflect, jnp.logical_not(pole)), x, 0.25)
    direct = _lgamma_positive(safe(reflect, 0.75, x))
    reflected = jnp.subtract(jnp.subtract(math.log(math.pi), jnp.log(jnp.abs(_sin_pi(xr)))),
                             _lgamma_positive(jnp.subtract(1.0, xr)))
    out = jnp.where(reflect, reflected, direct)
    out = jnp.where(jnp.logical_or(pole, jnp.equal(x, np.inf)), np.inf, out)
    return jnp.where(jnp.equal(x, -np.inf), -np.inf, out)      # scipy's value at -inf


loggamma = gammaln      # for real x scipy's loggamma is gammaln (complex x is not supported)


def gammasgn(x):
    """The sign of Gamma(x) (scipy.special.gammasgn): +-1 at +-0, NaN at negative integers."""
    (x,) = floats(x)
    odd = jnp.equal(jnp.remainder(jnp.floor(x), 2.0), 1.0)
    negative = jnp.where(jnp.equal(jnp.floor(x), x), np.nan, jnp.where(odd, -1.0, 1.0))
    zero = jnp.where(jnp.signbit(x), -1.0, 1.0)
    out = jnp.where(jnp.greater(x, 0), 1.0, jnp.where(jnp.equal(x, 0), zero, negative))
    return jnp.astype(jnp.where(jnp.isnan(x), np.nan, out), x.dtype)


def gamma(x):
    """Gamma(x) (scipy.special.gamma): +-inf at +-0, NaN at the negative integers."""
    (x,) = floats(x)
    return jnp.multiply(gammasgn(x), jnp.exp(gammaln(x)))


def _digamma_large(y):
    """psi(y) for y >= 1/2: recurrence up to y + 10, then the asymptotic series."""
    shift = jnp.zeros_like(y)
    for k in range(_DIGAMMA_SHIFT):
        shift = jnp.add(shift, jnp.true_divide(1.0, jnp.add(y, float(k))))
    w = jnp.add(y, float(_DIGAMMA_SHIFT))
    w2 = jnp.true_divide(1.0, jnp.multiply(w, w))
    tail = jnp.zeros_like(w)
    for c in _DIGAMMA_ASYMPTOTIC[::-1]:
        tail = jnp.multiply(jnp.add(tail, c), w2)
    psi = jnp.subtract(jnp.subtract(jnp.log(w), jnp.true_divide(0.5, w)), tail)
    return jnp.subtract(psi, shift)


def digamma(x):
    """psi(x) = d/dx log Gamma(x) (scipy.special.digamma): -+inf at +-0, NaN at the negative
    integers (scipy's values; jax.scipy gives NaN at 0 too)."""
    (x,) = floats(x)
    reflect = jnp.less(x, 0.5)
    pole = is_nonpositive_integer(x)
    xr = safe(jnp.logical_and(reflect, jnp.logical_not(pole)), x, 0.25)
    direct = _digamma_large(safe(reflect, 1.0, x))
    reduced = jnp.multiply(jnp.subtract(xr, jnp.round(xr)), math.pi)
    reflected = jnp.subtract(_digamma_large(jnp.subtract(1.0, xr)),
                             jnp.true_divide(math.pi, jnp.tan(reduced)))
    out = jnp.where(reflect, reflected, direct)
    at_zero = jnp.where(jnp.signbit(x), np.inf, -np.inf)
    out = jnp.where(pole, jnp.where(jnp.equal(x, 0), at_zero, np.nan), out)
    return jnp.where(jnp.equal(x, np.inf), np.inf, jnp.where(jnp.equal(x, -np.inf), np.nan, out))


def betaln(a, b):
    """log|B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b) (scipy.special.betaln)."""
    a, b = floats(a, b)
    return jnp.subtract(jnp.add(gammaln(a), gammaln(b)), gammaln(jnp.add(a, b)))


def beta(a, b):
    """B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b) (scipy.special.beta)."""
    a, b = floats(a, b)
    sign = jnp.multiply(jnp.multiply(gammasgn(a), gammasgn(b)), gammasgn(jnp.add(a, b)))
    return jnp.multiply(sign, jnp.exp(betaln(a, b)))


def multigammaln(a, d):
    """log of the multivariate gamma function of dimension d (a static int), as
    scipy.special.multigammaln: d(d-1)/4 log(pi) + sum_j gammaln(a - j/2)."""
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 1:
        raise ValueError(f"multigammaln: expected d, a positive int, got {d!r}")
    (a,) = floats(a)
    out = jnp.zeros_like(a) + d * (d - 1) / 4 * math.log(math.pi)
    for j in range(int(d)):
        out = jnp.add(out, gammaln(jnp.subtract(a, j / 2)))
    return out


def factorial(n, exact=False):
    """n! = Gamma(n + 1) for n >= 0, 0 for n < 0 (scipy.special.factorial with exact=False;
    exact=True needs arbitrary-precision integers, which no array holds, as in jax.scipy)."""
    if exact:
        raise NotImplementedError("factorial: exact=True is not supported (no array holds "
                                  "arbitrary-precision integers); use exact=False")
    (n,) = floats(n)
    return jnp.where(jnp.less(n, 0), 0.0, gamma(jnp.add(n, 1.0)))


def comb(N, k, *, exact=False, repetition=False):
    """N choose k as a float (scipy.special.comb with exact=False): 0 when k < 0, N < 0 or
    k > N; repetition=True counts multisets, comb(N + k - 1, k)."""
    if exact:
        raise NotImplementedError("comb: exact=True is not supported (no array holds "
                                  "arbitrary-precision integers); use exact=False")
    N, k = floats(N, k)
    if repetition:
        return jnp.where(jnp.logical_and(jnp.equal(k, 0), jnp.greater_equal(N, 0)), 1.0,
                         comb(jnp.subtract(jnp.add(N, k), 1.0), k))
    ok = jnp.logical_and(jnp.logical_and(jnp.less_equal(k, N), jnp.greater_equal(N, 0)),
                         jnp.greater_equal(k, 0))
    n, m = safe(ok, N, 0.0), safe(ok, k, 0.0)
    log = jnp.subtract(gammaln(jnp.add(n, 1.0)),
                       jnp.add(gammaln(jnp.add(m, 1.0)), gammaln(jnp.add(jnp.subtract(n, m), 1.0))))
    return jnp.where(ok, jnp.exp(log), 0.0)


def poch(z, m):
    """The rising factorial (z)_m = Gamma(z + m) / Gamma(z) (scipy.special.poch)."""
    z, m = floats(z, m)
    zm = jnp.add(z, m)
    sign = jnp.multiply(gammasgn(zm), gammasgn(z))
    out = jnp.multiply(sign, jnp.exp(jnp.subtract(gammaln(zm), gammaln(z))))
    return jnp.where(jnp.equal(m, 0), 1.0, out)
