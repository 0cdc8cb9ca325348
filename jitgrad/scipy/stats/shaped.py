"""Continuous distributions with shape parameters (scipy.stats names: gamma, beta, t, chi2,
pareto, gennorm, vonmises, wrapcauchy, truncnorm); log densities from jitgrad.scipy.special.
gamma's and chi2's CDFs come from the regularized incomplete gamma function; those needing
the incomplete beta function (beta, t) or gennorm's are not provided."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from ... import numpy as jnp
from ..special import betaln, gammainc, gammaincc, gammaln, i0e, log_ndtr, xlog1py, xlogy
from .support import floats, outside, standardize


def _shaped(name, logpdf_std, support, n_shape, tails_std=None, **extra):
    """A location-scale family whose standard log density takes n_shape shape parameters:
    logpdf(x, *shape, loc=0, scale=1), loc and scale also positional, as scipy. tails_std(z,
    *shape) -> (cdf, sf) of the standard form, where there is one, gives cdf/sf/logcdf/logsf
    (each computed directly, so the far tails keep their precision)."""
    def split(args, loc, scale):
        if len(args) < n_shape or len(args) > n_shape + 2:
            raise TypeError(f"{name}.logpdf: expected x, {n_shape} shape parameter(s), then "
                            f"optional loc and scale, got {len(args) + 1} positional arguments")
        rest = args[n_shape:] + (loc, scale)[len(args) - n_shape:]
        return args[:n_shape], rest[0], rest[1]

    def logpdf(x, *args, loc=0, scale=1):
        shape, loc, scale = split(args, loc, scale)
        x, loc, scale, *shape = floats(x, loc, scale, *shape)
        z, log_scale = standardize(x, loc, scale)
        out = jnp.subtract(logpdf_std(z, *shape), log_scale)
        return out if support is None else outside(jnp.logical_not(support(z, *shape)), out)

    def pdf(x, *args, loc=0, scale=1):
        return jnp.exp(logpdf(x, *args, loc=loc, scale=scale))
    funcs = {"logpdf": logpdf, "pdf": pdf}
    if tails_std is not None:
        def tail(which, log):
            def fn(x, *args, loc=0, scale=1):
                shape, loc, scale = split(args, loc, scale)
                x, loc, scale, *shape = floats(x, loc, scale, *shape)
                p = tails_std(jnp.true_divide(jnp.subtract(x, loc), scale), *shape)[which]
                return jnp.log(p) if log else p
            fn.__name__ = ("log" if log else "") + ("cdf", "sf")[which]
            return fn
        funcs.update({f.__name__: f for f in (tail(w, lg) for w in (0, 1) for lg in (0, 1))})
    for f in funcs.values():
        f.__doc__ = f"scipy.stats.{name}.{f.__name__}(x, *shape, loc=0, scale=1)."
    return SimpleNamespace(**funcs, __name__=name, **extra)


def _gamma_tails(z, a):
    """(P(a, z), Q(a, z)) for z >= 0, (0, 1) below: the gamma distribution's cdf and sf."""
    zc = jnp.maximum(z, 0.0)
    below = jnp.less(z, 0)
    return (jnp.where(below, 0.0, gammainc(a, zc)), jnp.where(below, 1.0, gammaincc(a, zc)))


def _chi2_tails(z, df):
    return _gamma_tails(jnp.multiply(z, 0.5), jnp.multiply(df, 0.5))


def _gamma_std(z, a):
    return jnp.subtract(jnp.subtract(xlogy(jnp.subtract(a, 1.0), z), z), gammaln(a))


def _beta_std(z, a, b):
    return jnp.subtract(jnp.add(xlogy(jnp.subtract(a, 1.0), z),
                                xlog1py(jnp.subtract(b, 1.0), jnp.negative(z))), betaln(a, b))


def _t_std(z, df):
    half = jnp.multiply(jnp.add(df, 1.0), 0.5)
    norm = jnp.subtract(jnp.subtract(gammaln(half), gammaln(jnp.multiply(df, 0.5))),
                        jnp.multiply(jnp.log(jnp.multiply(df, math.pi)), 0.5))
    return jnp.subtract(norm, jnp.multiply(half, jnp.log1p(jnp.true_divide(jnp.multiply(z, z), df))))


def _chi2_std(z, df):
    k = jnp.multiply(df, 0.5)
    return jnp.subtract(jnp.subtract(jnp.subtract(xlogy(jnp.subtract(k, 1.0), z),
                                                  jnp.multiply(z, 0.5)),
                                     jnp.multiply(k, math.log(2.0))), gammaln(k))


def _pareto_std(z, b):
    return jnp.subtract(jnp.log(b), jnp.multiply(jnp.add(b, 1.0), jnp.log(z)))


def _gennorm_std(z, beta):
    return jnp.subtract(jnp.subtract(jnp.log(beta), math.log(2.0)),
                        jnp.add(gammaln(jnp.true_divide(1.0, beta)), jnp.power(jnp.abs(z), beta)))


gamma = _shaped("gamma", _gamma_std, lambda z, a: jnp.greater_equal(z, 0), 1, _gamma_tails)
beta = _shaped("beta", _beta_std,
               lambda z, a, b: jnp.logical_and(jnp.greater_equal(z, 0), jnp.less_equal(z, 1)),
               2)
t = _shaped("t", _t_std, None, 1)
chi2 = _shaped("chi2", _chi2_std, lambda z, df: jnp.greater_equal(z, 0), 1, _chi2_tails)
gennorm = _shaped("gennorm", _gennorm_std, None, 1)


def _pareto_cdf(x, b, loc=0, scale=1):
    x, b, loc, scale = floats(x, b, loc, scale)
    z = standardize(x, loc, scale)[0]
    return jnp.where(jnp.greater_equal(z, 1), jnp.negative(jnp.expm1(jnp.multiply(
        jnp.negative(b), jnp.log(jnp.maximum(z, 1.0))))), 0.0)


def _pareto_logsf(x, b, loc=0, scale=1):
    x, b, loc, scale = floats(x, b, loc, scale)
    z = standardize(x, loc, scale)[0]
    return jnp.where(jnp.greater_equal(z, 1), jnp.multiply(jnp.negative(b),
                                                           jnp.log(jnp.maximum(z, 1.0))), 0.0)


def _pareto_ppf(q, b, loc=0, scale=1):
    q, b, loc, scale = floats(q, b, loc, scale)
    z = jnp.exp(jnp.true_divide(jnp.negative(jnp.log1p(jnp.negative(q))), b))
    return jnp.add(jnp.multiply(z, scale), loc)


pareto = _shaped(
    "pareto", _pareto_std, lambda z, b: jnp.greater_equal(z, 1), 1, cdf=_pareto_cdf,
    logcdf=lambda x, b, loc=0, scale=1: jnp.log(_pareto_cdf(x, b, loc, scale)),
    sf=lambda x, b, loc=0, scale=1: jnp.exp(_pareto_logsf(x, b, loc, scale)),
    logsf=_pareto_logsf, ppf=_pareto_ppf)


def _vonmises_logpdf(x, kappa):
    """kappa cos(x) - log(2 pi I0(kappa)), with I0 scaled so large kappa does not overflow;
    the density of any real x (scipy's vonmises is 2 pi periodic)."""
    x, kappa = floats(x, kappa)
    return jnp.subtract(jnp.multiply(kappa, jnp.subtract(jnp.cos(x), 1.0)),
                        jnp.log(jnp.multiply(i0e(kappa), 2 * math.pi)))


vonmises = SimpleNamespace(logpdf=_vonmises_logpdf,
                           pdf=lambda x, kappa: jnp.exp(_vonmises_logpdf(x, kappa)),
                           __name__="vonmises")


def _wrapcauchy_logpdf(x, c):
    """log((1 - c^2) / (2 pi (1 + c^2 - 2 c cos x))) on [0, 2 pi], -inf outside."""
    x, c = floats(x, c)
    out = jnp.subtract(jnp.log1p(jnp.negative(jnp.multiply(c, c))),
                       jnp.log(jnp.multiply(jnp.subtract(jnp.add(jnp.multiply(c, c), 1.0),
                                                         jnp.multiply(jnp.multiply(c, 2.0),
                                                                      jnp.cos(x))), 2 * math.pi)))
    inside = jnp.logical_and(jnp.greater_equal(x, 0), jnp.less_equal(x, 2 * math.pi))
    return outside(jnp.logical_not(inside), out)


wrapcauchy = SimpleNamespace(logpdf=_wrapcauchy_logpdf,
                             pdf=lambda x, c: jnp.exp(_wrapcauchy_logpdf(x, c)),
                             __name__="wrapcauchy")


def _log_mass(a, b):
    """log(ndtr(b) - ndtr(a)) for a < b, from the tail where it does not cancel."""
    upper = jnp.greater(a, 0)           # both in the upper tail: use sf(a) - sf(b)
    lo, hi = jnp.where(upper, jnp.negative(b), a), jnp.where(upper, jnp.negative(a), b)
    log_hi = log_ndtr(hi)
    return jnp.add(log_hi, jnp.log1p(jnp.negative(jnp.exp(jnp.subtract(log_ndtr(lo), log_hi)))))


def _truncnorm_args(x, a, b, loc, scale):
    x, a, b, loc, scale = floats(x, a, b, loc, scale)
    z, log_scale = standardize(x, loc, scale)
    return z, a, b, log_scale


def _truncnorm_logpdf(x, a, b, loc=0, scale=1):
    z, a, b, log_scale = _truncnorm_args(x, a, b, loc, scale)
    out = jnp.subtract(jnp.subtract(jnp.multiply(jnp.multiply(z, z), -0.5),
                                    0.5 * math.log(2 * np.pi)),
                       jnp.add(_log_mass(a, b), log_scale))
    inside = jnp.logical_and(jnp.greater_equal(z, a), jnp.less_equal(z, b))
    return outside(jnp.logical_not(inside), out)


def _truncnorm_logcdf(x, a, b, loc=0, scale=1):
    z, a, b, _ = _truncnorm_args(x, a, b, loc, scale)
    zc = jnp.clip(z, a, b)
    out = jnp.subtract(_log_mass(a, jnp.maximum(zc, a)), _log_mass(a, b))
    return jnp.where(jnp.less_equal(z, a), -np.inf, jnp.where(jnp.greater_equal(z, b), 0.0, out))


def _truncnorm_logsf(x, a, b, loc=0, scale=1):
    z, a, b, _ = _truncnorm_args(x, a, b, loc, scale)
    zc = jnp.clip(z, a, b)
    out = jnp.subtract(_log_mass(zc, b), _log_mass(a, b))
    return jnp.where(jnp.less_equal(z, a), 0.0, jnp.where(jnp.greater_equal(z, b), -np.inf, out))


truncnorm = SimpleNamespace(
    logpdf=_truncnorm_logpdf,
    pdf=lambda x, a, b, loc=0, scale=1: jnp.exp(_truncnorm_logpdf(x, a, b, loc, scale)),
    logcdf=_truncnorm_logcdf,
    cdf=lambda x, a, b, loc=0, scale=1: jnp.exp(_truncnorm_logcdf(x, a, b, loc, scale)),
    logsf=_truncnorm_logsf,
    sf=lambda x, a, b, loc=0, scale=1: jnp.exp(_truncnorm_logsf(x, a, b, loc, scale)),
    __name__="truncnorm")

__all__ = ["gamma", "beta", "t", "chi2", "pareto", "gennorm", "vonmises", "wrapcauchy",
           "truncnorm"]
