"""The normal distribution (scipy.stats.norm / jax.scipy.stats.norm)."""
from __future__ import annotations

import math

from ... import numpy as jnp
from ..special import log_ndtr, ndtr, ndtri
from .support import floats, standardize

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def logpdf(x, loc=0, scale=1):
    x, loc, scale = floats(x, loc, scale)
    z, log_scale = standardize(x, loc, scale)
    return jnp.subtract(jnp.multiply(jnp.multiply(z, z), -0.5), jnp.add(log_scale, _HALF_LOG_2PI))


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = floats(x, loc, scale)
    return ndtr(standardize(x, loc, scale)[0])


def logcdf(x, loc=0, scale=1):
    x, loc, scale = floats(x, loc, scale)
    return log_ndtr(standardize(x, loc, scale)[0])


def sf(x, loc=0, scale=1):
    x, loc, scale = floats(x, loc, scale)
    return ndtr(jnp.negative(standardize(x, loc, scale)[0]))


def logsf(x, loc=0, scale=1):
    x, loc, scale = floats(x, loc, scale)
    return log_ndtr(jnp.negative(standardize(x, loc, scale)[0]))


def ppf(q, loc=0, scale=1):
    q, loc, scale = floats(q, loc, scale)
    return jnp.add(jnp.multiply(ndtri(q), scale), loc)


def isf(q, loc=0, scale=1):
    q, loc, scale = floats(q, loc, scale)
    return jnp.subtract(loc, jnp.multiply(ndtri(q), scale))
