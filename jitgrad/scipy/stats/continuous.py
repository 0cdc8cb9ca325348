"""Closed-form continuous distributions: the log density and, where it has a closed form,
the CDF family (scipy.stats names: expon, laplace, logistic, cauchy, uniform, gumbel_r,
gumbel_l, pareto). Each name is a namespace object with scipy's functions as attributes."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from ... import numpy as jnp
from ..special import expit, logit
from .support import floats, outside, standardize


def _family(name, logpdf_std, cdf_std=None, logcdf_std=None, sf_std=None, logsf_std=None,
            ppf_std=None, isf_std=None, support=None):
    """A location-scale family from its standard form's functions (None: not provided)."""
    def wrap(fn, kind):
        def in_x(x, loc=0, scale=1):
            x, loc, scale = floats(x, loc, scale)
            z, log_scale = standardize(x, loc, scale)
            out = fn(z)
            if kind == "logpdf":
                out = jnp.subtract(out, log_scale)
                if support is not None:
                    out = outside(jnp.logical_not(support(z)), out)
            return out

        def in_q(q, loc=0, scale=1):
            q, loc, scale = floats(q, loc, scale)
            return jnp.add(jnp.multiply(fn(q), scale), loc)
        f = in_q if kind in ("ppf", "isf") else in_x
        f.__name__ = f.__qualname__ = kind
        f.__doc__ = f"scipy.stats.{name}.{kind}(x, loc=0, scale=1)."
        return f
    fns = dict(logpdf=logpdf_std, cdf=cdf_std, logcdf=logcdf_std, sf=sf_std, logsf=logsf_std,
               ppf=ppf_std, isf=isf_std)
    ns = {k: wrap(v, k) for k, v in fns.items() if v is not None}
    logpdf = ns["logpdf"]

    def pdf(x, loc=0, scale=1):
        return jnp.exp(logpdf(x, loc, scale))
    pdf.__doc__ = f"scipy.stats.{name}.pdf(x, loc=0, scale=1)."
    return SimpleNamespace(pdf=pdf, **ns, __name__=name)


def _exp_neg(z):
    return jnp.exp(jnp.negative(z))


def _nonneg(z):
    return jnp.greater_equal(z, 0)


expon = _family(
    "expon", jnp.negative,
    cdf_std=lambda z: jnp.where(_nonneg(z), jnp.negative(jnp.expm1(jnp.negative(z))), 0.0),
    logcdf_std=lambda z: jnp.where(_nonneg(z), jnp.log(jnp.negative(jnp.expm1(jnp.negative(
        jnp.maximum(z, 0))))), -np.inf),
    sf_std=lambda z: jnp.where(_nonneg(z), _exp_neg(z), 1.0),
    logsf_std=lambda z: jnp.where(_nonneg(z), jnp.negative(z), 0.0),
    ppf_std=lambda q: jnp.negative(jnp.log1p(jnp.negative(q))),
    support=_nonneg)

laplace = _family(
    "laplace", lambda z: jnp.subtract(jnp.negative(jnp.abs(z)), math.log(2.0)),
    cdf_std=lambda z: jnp.where(jnp.less(z, 0), jnp.multiply(jnp.exp(z), 0.5),
                                jnp.subtract(1.0, jnp.multiply(_exp_neg(z), 0.5))))

logistic = _family(
    "logistic", lambda z: jnp.subtract(jnp.negative(z), jnp.multiply(jnp.logaddexp(0.0, jnp.negative(z)), 2.0)),
    cdf_std=expit, sf_std=lambda z: expit(jnp.negative(z)), ppf_std=logit,
    isf_std=lambda q: jnp.negative(logit(q)))

cauchy = _family(
    "cauchy", lambda z: jnp.negative(jnp.log(jnp.multiply(jnp.add(jnp.multiply(z, z), 1.0), math.pi))),
    cdf_std=lambda z: jnp.add(jnp.true_divide(jnp.arctan(z), math.pi), 0.5),
    logcdf_std=lambda z: jnp.log(jnp.add(jnp.true_divide(jnp.arctan(z), math.pi), 0.5)),
    sf_std=lambda z: jnp.subtract(0.5, jnp.true_divide(jnp.arctan(z), math.pi)),
    logsf_std=lambda z: jnp.log(jnp.subtract(0.5, jnp.true_divide(jnp.arctan(z), math.pi))),
    ppf_std=lambda q: jnp.tan(jnp.multiply(jnp.subtract(q, 0.5), math.pi)),
    isf_std=lambda q: jnp.tan(jnp.multiply(jnp.subtract(0.5, q), math.pi)))


def _in_unit(z):
    return jnp.logical_and(jnp.greater_equal(z, 0), jnp.less_equal(z, 1))


uniform = _family(
    "uniform", jnp.zeros_like, cdf_std=lambda z: jnp.clip(z, 0.0, 1.0),
    ppf_std=lambda q: jnp.where(_in_unit(q), q, np.nan), support=_in_unit)

gumbel_r = _family(
    "gumbel_r", lambda z: jnp.negative(jnp.add(z, _exp_neg(z))),
    cdf_std=lambda z: jnp.exp(jnp.negative(_exp_neg(z))),
    logcdf_std=lambda z: jnp.negative(_exp_neg(z)),
    sf_std=lambda z: jnp.negative(jnp.expm1(jnp.negative(_exp_neg(z)))),
    logsf_std=lambda z: jnp.log(jnp.negative(jnp.expm1(jnp.negative(_exp_neg(z))))),
    ppf_std=lambda q: jnp.negative(jnp.log(jnp.negative(jnp.log(q)))))

gumbel_l = _family(
    "gumbel_l", lambda z: jnp.subtract(z, jnp.exp(z)),
    cdf_std=lambda z: jnp.negative(jnp.expm1(jnp.negative(jnp.exp(z)))),
    logcdf_std=lambda z: jnp.log(jnp.negative(jnp.expm1(jnp.negative(jnp.exp(z))))),
    sf_std=lambda z: jnp.exp(jnp.negative(jnp.exp(z))),
    logsf_std=lambda z: jnp.negative(jnp.exp(z)),
    ppf_std=lambda q: jnp.log(jnp.negative(jnp.log1p(jnp.negative(q)))))

__all__ = ["expon", "laplace", "logistic", "cauchy", "uniform", "gumbel_r", "gumbel_l"]
