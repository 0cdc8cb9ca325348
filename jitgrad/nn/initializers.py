"""jax.nn.initializers: functions returning init(key, shape, dtype=None) -> array, drawn with
jitgrad.random (JAX's key-based module): zeros, ones, constant, uniform, normal,
truncated_normal, variance_scaling and its named cases (glorot/xavier, he/kaiming, lecun),
orthogonal and delta_orthogonal. Fans follow jax.nn's rule: the receptive field (every axis but
in, out and batch) multiplies both."""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp, random
from ..dtypes import default_float

# the standard deviation of a standard normal truncated to [-2, 2]
_TRUNCATED_STD = 0.87962566103423978


def _dtype(dtype):
    return default_float() if dtype is None else dtype


def zeros(key, shape, dtype=None):
    """jax.nn.initializers.zeros: an init function itself (no parameters)."""
    return jnp.zeros(tuple(shape), _dtype(dtype))


def ones(key, shape, dtype=None):
    """jax.nn.initializers.ones: an init function itself (no parameters)."""
    return jnp.ones(tuple(shape), _dtype(dtype))


def constant(value, dtype=None):
    """Every entry `value`."""
    def init(key, shape, dtype=dtype):
        return jnp.full(tuple(shape), value, _dtype(dtype))
    return init


def uniform(scale=1e-2, dtype=None):
    """Uniform on [0, scale)."""
    def init(key, shape, dtype=dtype):
        return jnp.multiply(random.uniform(key, tuple(shape), _dtype(dtype)), scale)
    return init


def normal(stddev=1e-2, dtype=None):
    """Normal with mean 0 and standard deviation stddev."""
    def init(key, shape, dtype=dtype):
        return jnp.multiply(random.normal(key, tuple(shape), _dtype(dtype)), stddev)
    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """stddev times a standard normal truncated to [lower, upper] (not rescaled, as JAX)."""
    def init(key, shape, dtype=dtype):
        draws = random.truncated_normal(key, lower, upper, tuple(shape), _dtype(dtype))
        return jnp.multiply(draws, stddev)
    return init


def _axes(axis, ndim):
    return {a % ndim for a in np.atleast_1d(axis).tolist()}


def compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    """(fan_in, fan_out) of a weight shape, as jax.nn.initializers computes them."""
    ndim = len(shape)
    if ndim < 1:
        raise ValueError(f"variance_scaling: a shape of at least 1 dimension is needed, got "
                         f"{tuple(shape)}")
    ins, outs, batch = _axes(in_axis, ndim), _axes(out_axis, ndim), _axes(batch_axis, ndim)
    receptive = math.prod(d for i, d in enumerate(shape) if i not in ins | outs | batch)
    return (math.prod(shape[i] for i in ins) * receptive,
            math.prod(shape[i] for i in outs) * receptive)


_MODES = {"fan_in": lambda i, o: i, "fan_out": lambda i, o: o,
          "fan_avg": lambda i, o: (i + o) / 2, "fan_geo_avg": lambda i, o: math.sqrt(i * o)}


def _truncated(key, shape, dtype, std):
    return jnp.multiply(random.truncated_normal(key, -2.0, 2.0, shape, dtype), std / _TRUNCATED_STD)


def _uniform(key, shape, dtype, std):
    limit = math.sqrt(3.0) * std
    return random.uniform(key, shape, dtype, minval=-limit, maxval=limit)


def _normal(key, shape, dtype, std):
    return jnp.multiply(random.normal(key, shape, dtype), std)


_DISTRIBUTIONS = {"truncated_normal": _truncated, "normal": _normal, "uniform": _uniform}


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None):
    """Draws of variance scale / n, n the fan that `mode` names (fan_in, fan_out, fan_avg,
    fan_geo_avg), from a truncated normal, a normal or a uniform distribution."""
    if mode not in _MODES:
        raise ValueError(f"variance_scaling: mode must be one of {sorted(_MODES)}, got {mode!r}")
    if distribution not in _DISTRIBUTIONS:
        raise ValueError(f"variance_scaling: distribution must be one of "
                         f"{sorted(_DISTRIBUTIONS)}, got {distribution!r}")

    def init(key, shape, dtype=dtype):
        shape = tuple(shape)
        fan_in, fan_out = compute_fans(shape, in_axis, out_axis, batch_axis)
        std = math.sqrt(scale / max(1.0, _MODES[mode](fan_in, fan_out)))
        return _DISTRIBUTIONS[distribution](key, shape, _dtype(dtype), std)
    return init


def _named(name, scale, mode, distribution):
    def named(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)
    named.__name__ = named.__qualname__ = name
    named.__doc__ = f"jax.nn.initializers.{name}: variance_scaling({scale}, {mode!r}, " \
                    f"{distribution!r})."
    return named


glorot_uniform = xavier_uniform = _named("glorot_uniform", 1.0, "fan_avg", "uniform")
glorot_normal = xavier_normal = _named("glorot_normal", 1.0, "fan_avg", "truncated_normal")
lecun_uniform = _named("lecun_uniform", 1.0, "fan_in", "uniform")
lecun_normal = _named("lecun_normal", 1.0, "fan_in", "truncated_normal")
he_uniform = kaiming_uniform = _named("he_uniform", 2.0, "fan_in", "uniform")
he_normal = kaiming_normal = _named("he_normal", 2.0, "fan_in", "truncated_normal")


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """A (semi-)orthogonal matrix along column_axis and the product of the other axes, times
    scale."""
    def init(key, shape, dtype=dtype):
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError(f"orthogonal initializer requires at least a 2D shape, got {shape}")
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = random.orthogonal(key, max(n_rows, n_cols), (), _dtype(dtype))[:n_rows, :n_cols]
        rest = tuple(d for i, d in enumerate(shape) if i != column_axis % len(shape))
        q = jnp.moveaxis(jnp.reshape(q, rest + (n_cols,)), -1, column_axis)
        return jnp.multiply(q, scale)
    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """A convolution kernel (3-5 dimensions, spatial first) that is zero but at its spatial
    centre, where it is an orthogonal matrix (Xiao et al. 2018)."""
    def init(key, shape, dtype=dtype):
        shape = tuple(shape)
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"delta_orthogonal initializer requires a 3D, 4D or 5D shape, got "
                             f"{shape}")
        if shape[-1] < shape[-2]:
            raise ValueError(f"delta_orthogonal: `fan_in` must be less or equal than `fan_out`, "
                             f"got shape {shape}")
        ortho = orthogonal(scale, column_axis, dtype)(key, shape[-2:])
        center = tuple(d // 2 for d in shape[:-2])
        return jnp.zeros(shape, _dtype(dtype)).at[center].set(ortho)
    return init
