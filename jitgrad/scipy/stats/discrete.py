"""Discrete distributions (scipy.stats names: bernoulli, binom, nbinom, betabinom, geom,
poisson, multinomial) and the Dirichlet; log masses from jitgrad.scipy.special, -inf off the
support (non-integer k included), as scipy."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ... import numpy as jnp
from ..special import betaln, gammaincc, gammaln, xlog1py, xlogy
from .support import exp_of, floats, is_integer, outside


def _counts(k, loc, *params):
    k, loc, *params = floats(k, loc, *params)
    return (jnp.subtract(k, loc), *params)


def _log_choose(n, k):
    return jnp.subtract(gammaln(jnp.add(n, 1.0)),
                        jnp.add(gammaln(jnp.add(k, 1.0)), gammaln(jnp.add(jnp.subtract(n, k), 1.0))))


def _off(k, *bounds):
    """Whether k is off the support: not an integer, below 0 or above the upper bound."""
    off = jnp.logical_or(jnp.logical_not(is_integer(k)), jnp.less(k, 0))
    for upper in bounds:
        off = jnp.logical_or(off, jnp.greater(k, upper))
    return off


def _bernoulli_logpmf(k, p, loc=0):
    k, p = _counts(k, loc, p)
    out = jnp.where(jnp.equal(k, 1), jnp.log(p), jnp.log1p(jnp.negative(p)))
    return outside(jnp.logical_not(jnp.logical_or(jnp.equal(k, 0), jnp.equal(k, 1))), out)


def _bernoulli_cdf(k, p, loc=0):
    k, p = _counts(k, loc, p)
    return jnp.where(jnp.less(k, 0), 0.0, jnp.where(jnp.less(k, 1), jnp.subtract(1.0, p), 1.0))


def _bernoulli_ppf(q, p):
    q, p = floats(q, p)
    out = jnp.where(jnp.greater(q, jnp.subtract(1.0, p)), 1.0, 0.0)
    inside = jnp.logical_and(jnp.greater_equal(q, 0), jnp.less_equal(q, 1))
    out = jnp.where(inside, jnp.where(jnp.equal(q, 0), -1.0, out), np.nan)
    return jnp.astype(out, q.dtype)         # q's float dtype (the constants are weak)


bernoulli = SimpleNamespace(logpmf=_bernoulli_logpmf, pmf=exp_of(_bernoulli_logpmf),
                            cdf=_bernoulli_cdf, ppf=_bernoulli_ppf, __name__="bernoulli")


def _binom_logpmf(k, n, p, loc=0):
    k, n, p = _counts(k, loc, n, p)
    out = jnp.add(_log_choose(n, k), jnp.add(xlogy(k, p), xlog1py(jnp.subtract(n, k),
                                                                  jnp.negative(p))))
    return outside(_off(k, n), out)


def _nbinom_logpmf(k, n, p, loc=0):
    k, n, p = _counts(k, loc, n, p)
    coeff = jnp.subtract(gammaln(jnp.add(n, k)), jnp.add(gammaln(jnp.add(k, 1.0)), gammaln(n)))
    out = jnp.add(coeff, jnp.add(xlogy(n, p), xlog1py(k, jnp.negative(p))))
    return outside(_off(k), out)


def _betabinom_logpmf(k, n, a, b, loc=0):
    k, n, a, b = _counts(k, loc, n, a, b)
    out = jnp.add(_log_choose(n, k), jnp.subtract(betaln(jnp.add(k, a),
                                                         jnp.add(jnp.subtract(n, k), b)),
                                                  betaln(a, b)))
    return outside(_off(k, n), out)


def _geom_logpmf(k, p, loc=0):
    k, p = _counts(k, loc, p)
    out = jnp.add(xlog1py(jnp.subtract(k, 1.0), jnp.negative(p)), jnp.log(p))
    return outside(jnp.logical_or(jnp.logical_not(is_integer(k)), jnp.less(k, 1)), out)


def _poisson_logpmf(k, mu, loc=0):
    k, mu = _counts(k, loc, mu)
    out = jnp.subtract(jnp.subtract(xlogy(k, mu), mu), gammaln(jnp.add(k, 1.0)))
    return outside(_off(k), out)


binom = SimpleNamespace(logpmf=_binom_logpmf, pmf=exp_of(_binom_logpmf), __name__="binom")
nbinom = SimpleNamespace(logpmf=_nbinom_logpmf, pmf=exp_of(_nbinom_logpmf), __name__="nbinom")
betabinom = SimpleNamespace(logpmf=_betabinom_logpmf, pmf=exp_of(_betabinom_logpmf),
                            __name__="betabinom")
geom = SimpleNamespace(logpmf=_geom_logpmf, pmf=exp_of(_geom_logpmf), __name__="geom")
def _poisson_cdf(k, mu, loc=0):
    """scipy.stats.poisson.cdf: P(K <= k) = Q(floor(k - loc) + 1, mu), 0 below the support."""
    k, mu = floats(k, mu)
    kf = jnp.floor(jnp.subtract(k, loc))
    q = gammaincc(jnp.add(jnp.maximum(kf, 0.0), 1.0), mu)
    return jnp.where(jnp.less(kf, 0), 0.0, q)


poisson = SimpleNamespace(logpmf=_poisson_logpmf, pmf=exp_of(_poisson_logpmf),
                          cdf=_poisson_cdf, __name__="poisson")


def _multinomial_logpmf(x, n, p):
    """log(n! / prod x_i! prod p_i^x_i) over the last axis; -inf unless the counts are
    non-negative integers summing to n."""
    x, n, p = floats(x, n, p)
    out = jnp.add(jnp.subtract(gammaln(jnp.add(n, 1.0)),
                               jnp.sum(gammaln(jnp.add(x, 1.0)), axis=-1)),
                  jnp.sum(xlogy(x, p), axis=-1))
    bad = jnp.logical_or(jnp.any(jnp.logical_or(jnp.logical_not(is_integer(x)), jnp.less(x, 0)),
                                 axis=-1), jnp.not_equal(jnp.sum(x, axis=-1), n))
    return outside(bad, out)


multinomial = SimpleNamespace(logpmf=_multinomial_logpmf, pmf=exp_of(_multinomial_logpmf),
                              __name__="multinomial")


def _dirichlet_logpdf(x, alpha):
    """log Dirichlet(x; alpha) with x's coordinates on its first axis, as scipy and jax.scipy
    (x on the simplex; x may leave out the last coordinate, which is then 1 - sum(x))."""
    x, alpha = floats(x, alpha)
    x = jnp.moveaxis(x, 0, -1) if x.ndim else x
    k = alpha.shape[-1]
    if x.shape[-1] == k - 1:
        x = jnp.concatenate([x, jnp.subtract(1.0, jnp.sum(x, axis=-1, keepdims=True))], axis=-1)
    elif x.shape[-1] != k:
        raise ValueError(f"dirichlet.logpdf: expected x with {k} or {k - 1} entries on its first "
                         f"axis for alpha with {k}, got shape {jnp.moveaxis(x, -1, 0).shape}")
    norm = jnp.subtract(jnp.sum(gammaln(alpha), axis=-1), gammaln(jnp.sum(alpha, axis=-1)))
    out = jnp.subtract(jnp.sum(xlogy(jnp.subtract(alpha, 1.0), x), axis=-1), norm)
    on_simplex = jnp.logical_and(jnp.all(jnp.greater_equal(x, 0), axis=-1),
                                 jnp.less(jnp.abs(jnp.subtract(jnp.sum(x, axis=-1), 1.0)), 1e-6))
    return outside(jnp.logical_not(on_simplex), out)


dirichlet = SimpleNamespace(logpdf=_dirichlet_logpdf, pdf=exp_of(_dirichlet_logpdf),
                            __name__="dirichlet")
