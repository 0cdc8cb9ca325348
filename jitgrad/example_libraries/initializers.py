"""The initializers stax uses by default, with jax.nn.initializers' meaning: normal(stddev),
glorot_normal (a truncated normal of variance 2 / (fan_in + fan_out)), zeros, ones."""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp, random
from ..scipy.special import ndtri

# the standard deviation of a standard normal truncated to [-2, 2]
_TRUNCATED_STD = 0.87962566103423978


def _ndtr(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def truncated_normal(key, lower, upper, shape, dtype=None):
    """Standard normal draws restricted to [lower, upper], by inverting the CDF."""
    lo, hi = _ndtr(lower), _ndtr(upper)
    u = random.uniform(key, shape, dtype, minval=lo, maxval=hi)
    return jnp.clip(ndtri(u), lower, upper)


def normal(stddev=1e-2, dtype=None):
    def init(key, shape, dtype=dtype):
        return jnp.multiply(random.normal(key, shape, dtype), stddev)
    return init


def glorot_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """Variance scaling with scale 1, mode fan_avg and a truncated normal, as jax.nn's: the
    receptive field (every axis but in, out and batch) multiplies both fans."""
    def init(key, shape, dtype=dtype):
        shape = tuple(shape)
        ndim = len(shape)
        special = {a % ndim for a in (in_axis, out_axis, *np.atleast_1d(batch_axis))}
        receptive = math.prod(d for i, d in enumerate(shape) if i not in special)
        fan_in, fan_out = shape[in_axis] * receptive, shape[out_axis] * receptive
        std = math.sqrt(1.0 / ((fan_in + fan_out) / 2.0)) / _TRUNCATED_STD
        return jnp.multiply(truncated_normal(key, -2.0, 2.0, shape, dtype), std)
    return init


def zeros(key, shape, dtype=None):
    return jnp.zeros(tuple(shape), dtype)


def ones(key, shape, dtype=None):
    return jnp.ones(tuple(shape), dtype)
