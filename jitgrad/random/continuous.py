"""Continuous distributions by transforming uniform draws (jax.random's formulas): uniform,
normal, truncated_normal, gumbel, exponential, laplace, logistic, cauchy, lognormal, pareto,
weibull_min, rayleigh, maxwell, double_sided_maxwell, triangular, wald. Each is a composite
of primitives, so it fuses, batches under vmap and is differentiable in its parameters
(reparameterized) where JAX's is."""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp
from ..numpy.inverse_error import erf_inv
from .keys import shape_tuple, split
from .params import MANTISSA, TINY, as_dtype, float_dtype, result_shape, unit_floats


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Uniform floats in [minval, maxval) (jax.random.uniform)."""
    dt = float_dtype(dtype, "uniform")
    shape = shape_tuple(shape)
    u = unit_floats(key, shape, dt, "uniform")
    if isinstance(minval, float) and isinstance(maxval, float) and (minval, maxval) == (0.0, 1.0):
        return u
    lo, hi = as_dtype(minval, dt), as_dtype(maxval, dt)
    result_shape("uniform", shape, lo, hi)
    return jnp.maximum(lo, u * (hi - lo) + lo)


def _normal_real(key, shape, dt):
    lo = -1.0 + 2.0 ** -(MANTISSA[dt.name] + 1)        # nextafter(-1, 0): erf_inv stays finite
    return erf_inv(uniform(key, shape, dt, lo, 1.0)) * math.sqrt(2)


def normal(key, shape=(), dtype=None):
    """Standard normal draws (jax.random.normal: sqrt(2) erf_inv(u)); a complex dtype draws
    independent real and imaginary parts of variance 1/2 each."""
    if dtype is not None and np.dtype(dtype).kind == "c":
        real = np.dtype(f"float{np.dtype(dtype).itemsize * 4}")
        k_re, k_im = split(key)
        re, im = _normal_real(k_re, shape_tuple(shape), real), _normal_real(k_im, shape_tuple(shape), real)
        return (re + im * 1j) * (1 / math.sqrt(2))
    return _normal_real(key, shape_tuple(shape), float_dtype(dtype, "normal"))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Standard normal draws conditioned on lower <= x <= upper (jax.random.truncated_normal,
    by inverting the CDF; JAX nudges results equal to a bound inside the open interval)."""
    dt = float_dtype(dtype, "truncated_normal")
    lo, hi = as_dtype(lower, dt), as_dtype(upper, dt)
    shape = result_shape("truncated_normal", shape, lo, hi)
    a, b = jnp.erf(lo * (1 / math.sqrt(2))), jnp.erf(hi * (1 / math.sqrt(2)))
    out = erf_inv(uniform(key, shape, dt, a, b)) * math.sqrt(2)
    from ..transforms.autodiff import stop_gradient  # lazy: transforms -> nn -> random
    return jnp.clip(out, stop_gradient(lo), stop_gradient(hi))


def gumbel(key, shape=(), dtype=None, mode=None):
    """Standard Gumbel draws -log(-log(u)) (jax.random.gumbel; mode='high' spends two draws
    per value for accuracy in the right tail)."""
    dt = float_dtype(dtype, "gumbel")
    shape = shape_tuple(shape)
    if mode not in (None, "low", "high"):
        raise ValueError(f"jg.random.gumbel: mode must be None, 'low' or 'high', got {mode!r}")
    if mode == "high":
        u = uniform(key, (2,) + shape, dt)
        high, low = u[0], u[1]
        x = jnp.where(high >= 0.5, high, high + 2.0 ** -MANTISSA[dt.name] * low + TINY[dt.name])
        return -jnp.log(-jnp.log1p(-x))
    return -jnp.log(-jnp.log(uniform(key, shape, dt, TINY[dt.name], 1.0)))


def exponential(key, shape=(), dtype=None):
    """Exponential(1) draws -log(1 - u) (jax.random.exponential)."""
    u = uniform(key, shape, float_dtype(dtype, "exponential"))
    return -jnp.log1p(-u)


def laplace(key, shape=(), dtype=None):
    """Laplace(0, 1) draws (jax.random.laplace)."""
    dt = float_dtype(dtype, "laplace")
    u = uniform(key, shape, dt, -1.0 + 2.0 ** -(MANTISSA[dt.name] + 1), 1.0)
    return jnp.sign(u) * jnp.log1p(-jnp.abs(u))


def logistic(key, shape=(), dtype=None):
    """Standard logistic draws log(u / (1 - u)) (jax.random.logistic)."""
    dt = float_dtype(dtype, "logistic")
    x = uniform(key, shape, dt, TINY[dt.name], 1.0)
    return jnp.log(x) - jnp.log1p(-x)


def cauchy(key, shape=(), dtype=None):
    """Standard Cauchy draws tan(pi (u - 1/2)) (jax.random.cauchy)."""
    dt = float_dtype(dtype, "cauchy")
    u = uniform(key, shape, dt, 2.0 ** -MANTISSA[dt.name], 1.0)
    return jnp.tan((u - 0.5) * math.pi)


def lognormal(key, sigma=1.0, shape=None, dtype=None):
    """exp(sigma * normal) (jax.random.lognormal)."""
    dt = float_dtype(dtype, "lognormal")
    sigma = as_dtype(sigma, dt)
    shape = result_shape("lognormal", shape, sigma)
    return jnp.exp(normal(key, shape, dt) * sigma)


def pareto(key, b, shape=None, dtype=None):
    """Pareto(b) draws on [1, inf): exp(exponential / b) (jax.random.pareto)."""
    dt = float_dtype(dtype, "pareto")
    b = as_dtype(b, dt)
    return jnp.exp(exponential(key, result_shape("pareto", shape, b), dt) / b)


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull draws scale * (-log(1 - u)) ** (1 / concentration) (jax.random.weibull_min)."""
    dt = float_dtype(dtype, "weibull_min")
    scale, c = as_dtype(scale, dt), as_dtype(concentration, dt)
    u = uniform(key, shape, dt)
    return jnp.power(-jnp.log1p(-u), 1.0 / c) * scale


def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh draws scale * sqrt(-2 log u) (jax.random.rayleigh)."""
    dt = float_dtype(dtype, "rayleigh")
    scale = as_dtype(scale, dt)
    u = uniform(key, result_shape("rayleigh", shape, scale), dt)
    return scale * jnp.sqrt(jnp.log(u) * -2.0)


def maxwell(key, shape=(), dtype=None):
    """Maxwell draws: the norm of three standard normals (jax.random.maxwell)."""
    dt = float_dtype(dtype, "maxwell")
    z = normal(key, shape_tuple(shape) + (3,), dt)
    return jnp.sqrt(jnp.sum(z * z, axis=-1))


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """A Maxwell draw with a random sign, scaled and shifted (jax.random.double_sided_maxwell;
    the result shape is shape + the parameters' broadcast shape, as JAX's)."""
    dt = float_dtype(dtype, "double_sided_maxwell")
    loc, scale = as_dtype(loc, dt), as_dtype(scale, dt)
    shape = shape_tuple(shape) + np.broadcast_shapes(tuple(loc.shape), tuple(scale.shape))
    k_m, k_r = split(key)
    # the sign is jax.random.rademacher(k_r, shape): +1 where a uniform draw is below 1/2
    sign = jnp.where(uniform(k_r, shape, float_dtype(None, "rademacher")) < 0.5, 1.0, -1.0)
    return jnp.astype(sign, dt) * maxwell(k_m, shape, dt) * scale + loc


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular(left, mode, right) draws by inverting the CDF (jax.random.triangular)."""
    dt = float_dtype(dtype, "triangular")
    left, mode, right = as_dtype(left, dt), as_dtype(mode, dt), as_dtype(right, dt)
    shape = result_shape("triangular", shape, left, mode, right)
    u = uniform(key, shape, dt)
    width = right - left
    below = left + jnp.sqrt(u * width * (mode - left))
    above = right - jnp.sqrt((1.0 - u) * width * (right - mode))
    return jnp.where(u < (mode - left) / width, below, above)


def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian, unit shape) draws by Michael-Schucany-Haas (jax.random.wald)."""
    dt = float_dtype(dtype, "wald")
    mean = as_dtype(mean, dt)
    shape = result_shape("wald", shape, mean)
    k1, k2 = split(key)
    mean = jnp.broadcast_to(mean, shape)
    v, z = normal(k1, shape, dt), uniform(k2, shape, dt)
    y = v * v
    m2 = mean * mean
    x = mean + m2 * y / 2.0 - mean / 2.0 * jnp.sqrt(mean * y * 4.0 + m2 * y * y)
    return jnp.where(z <= mean / (mean + x), x, m2 / x)
