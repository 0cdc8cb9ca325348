"""Counting distributions: poisson, binomial, multinomial (jax.random's meanings), each a
vectorized while_loop over all elements at once (so it runs under jit and vmap)."""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp
from ..ir.types import kind_of
from ..numpy._convert import asarray
from ..transforms.autodiff import stop_gradient
from .continuous import uniform
from .keys import fold_in, split
from .params import as_dtype, float_dtype, int_dtype, result_shape

_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680)


def _lgamma(x):
    """log Gamma(x) for x >= 1: the Stirling series at x + 6, shifted back (error < 1e-13)."""
    y = x + 6.0
    inv, inv2 = 1.0 / y, 1.0 / (y * y)
    series = inv * (_STIRLING[0] + inv2 * (_STIRLING[1] + inv2 * (_STIRLING[2] + inv2 * _STIRLING[3])))
    shift = jnp.log(x * (x + 1.0) * (x + 2.0) * (x + 3.0) * (x + 4.0) * (x + 5.0))
    return (y - 0.5) * jnp.log(y) - y + 0.5 * math.log(2 * math.pi) + series - shift


def _loop(step, state):
    """Run step(i, state) -> state until every element's done flag (state[-1]) is set."""
    from ..transforms.control import while_loop  # lazy: transforms -> nn -> random
    out = while_loop(lambda s: jnp.any(~s[-1]), lambda s: (s[0] + 1,) + step(s[0], s[1:]),
                     (jnp.asarray(0, "int32"),) + state)
    return out[1:]


def _poisson_small(key, lam, shape, dt):
    """Knuth: the number of uniform draws whose log-sum stays above -lam (lam < 10)."""
    def step(i, s):
        k, log_prod, done = s
        log_prod = log_prod + jnp.log(uniform(fold_in(key, i), shape, dt, 2.0 ** -30, 1.0))
        stop = log_prod < -lam
        return jnp.where(done | stop, k, k + 1.0), log_prod, done | stop
    k, _, _ = _loop(step, (jnp.zeros(shape, dt), jnp.zeros(shape, dt), jnp.zeros(shape, "bool")))
    return k


def _poisson_large(key, lam, shape, dt):
    """Hormann's transformed rejection with squeeze (PTRS), for lam >= 10."""
    lam = jnp.maximum(lam, 10.0)
    log_lam = jnp.log(lam)
    b = 0.931 + 2.53 * jnp.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2.0)

    def step(i, s):
        k_out, done = s
        k_u, k_v = split(fold_in(key, i))
        u = uniform(k_u, shape, dt) - 0.5
        v = uniform(k_v, shape, dt)
        us = 0.5 - jnp.abs(u)
        k = jnp.floor((2.0 * a / us + b) * u + lam + 0.43)
        s_ = jnp.log(v * inv_alpha / (a / (us * us) + b))
        t = -lam + k * log_lam - _lgamma(jnp.maximum(k, 0.0) + 1.0)
        ok = ((us >= 0.07) & (v <= v_r)) | ((k >= 0) & ~((us < 0.013) & (v > us)) & (s_ <= t))
        return jnp.where(done, k_out, k), done | ok
    k, _ = _loop(step, (jnp.zeros(shape, dt), jnp.zeros(shape, "bool")))
    return k


def poisson(key, lam, shape=None, dtype=None):
    """Poisson(lam) counts (jax.random.poisson: Knuth below lam = 10, PTRS above; lam = 0
    gives 0, negative lam -1 as JAX)."""
    dt = np.dtype("float64")
    lam = stop_gradient(as_dtype(lam, dt))
    shape = result_shape("poisson", shape, lam)
    lam = jnp.broadcast_to(lam, shape)
    k_small, k_large = split(key)
    small = _poisson_small(k_small, jnp.minimum(lam, 10.0), shape, dt)
    large = _poisson_large(k_large, lam, shape, dt)
    k = jnp.where(lam < 10.0, small, large)
    k = jnp.where(lam == 0, 0.0, jnp.where(lam > 0, k, -1.0))
    return jnp.astype(k, int_dtype(dtype, "poisson"))


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) counts (jax.random.binomial), by geometric jumps between successes of
    the rarer outcome: a loop of about n * min(p, 1 - p) + 1 steps. NaN where n < 0 or p is
    outside [0, 1], as JAX."""
    dt = float_dtype(dtype, "binomial")
    n, p = stop_gradient(as_dtype(n, dt)), stop_gradient(as_dtype(p, dt))
    shape = result_shape("binomial", shape, n, p)
    n, p = jnp.broadcast_to(n, shape), jnp.broadcast_to(p, shape)
    flip = p > 0.5
    q = jnp.clip(jnp.where(flip, 1.0 - p, p), 0.0, 0.5)
    log_fail = jnp.log1p(-jnp.where(q > 0, q, 0.5))

    def step(i, s):
        count, used, done = s
        u = uniform(fold_in(key, i), shape, dt, 2.0 ** -30, 1.0)
        used = used + jnp.floor(jnp.log(u) / log_fail) + 1.0
        stop = used > n
        return jnp.where(done | stop, count, count + 1.0), used, done | stop | (q <= 0)
    count, _, _ = _loop(step, (jnp.zeros(shape, dt), jnp.zeros(shape, dt),
                               jnp.zeros(shape, "bool")))
    count = jnp.where(flip, n - count, count)
    bad = (n < 0) | (p < 0) | (p > 1) | jnp.isnan(p) | jnp.isnan(n)
    return jnp.where(bad, np.nan, count)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Counts of n draws over the categories of p's last axis (jax.random.multinomial:
    conditional binomials category by category). `unroll` is accepted for JAX's signature."""
    dt = float_dtype(dtype, "multinomial")
    p = as_dtype(p, dt)
    n = asarray(n)
    n = as_dtype(n, dt) if kind_of(n.dtype) != "f" or n.dtype != dt else n
    batch = result_shape("multinomial", shape, n, jnp.zeros(tuple(p.shape[:-1])))
    remaining = jnp.broadcast_to(n, batch)
    mass = jnp.ones(batch, dt)
    counts = []
    keys = split(key, p.shape[-1])
    for i in range(p.shape[-1] - 1):
        pi = jnp.broadcast_to(p[..., i], batch)
        c = binomial(keys[i], remaining, jnp.clip(pi / jnp.maximum(mass, 1e-30), 0.0, 1.0), batch, dt)
        counts.append(c)
        remaining, mass = remaining - c, mass - pi
    counts.append(remaining)
    return jnp.stack(counts, axis=-1)
