"""The gamma family: gamma and loggamma (Marsaglia-Tsang rejection, every element redrawn in
one vectorized while_loop until all are accepted), and what is built on them: beta,
dirichlet, chisquare, f, t, generalized_normal (jax.random's meanings).

Derivatives with respect to the shape parameter are JAX's implicit reparameterization: the
draw x moves with a so that P(a, x) (the regularized incomplete gamma, the draw's CDF) stays
fixed, d log x / da = -(dP/da) / (x dP/dx) (jax.random's _gamma_grad); the chain rule carries
it to every sampler here."""
from __future__ import annotations

from .. import numpy as jnp
from ..transforms.custom_vjp import custom_vjp
from .continuous import normal, uniform
from .discrete import rademacher
from .keys import fold_in, split
from .params import TINY, as_dtype, float_dtype, result_shape


def _log_gamma_draws(key, a, shape):
    """log of Gamma(a, 1) draws of `shape` (a broadcast to it) in a's dtype, Marsaglia-Tsang in
    log space so tiny a (whose draws underflow) keeps finite logs; differentiable in a."""
    return _log_gamma_sample(key, jnp.broadcast_to(a, shape))


@custom_vjp
def _log_gamma_sample(key, a):
    """log Gamma(a, 1) draws of a's shape and dtype, whose derivative in a is the implicit one
    (JAX's random_gamma_p JVP rule)."""
    from ..transforms.control import while_loop  # lazy: transforms -> nn -> random
    shape, dt = tuple(a.shape), a.dtype
    boosted = a < 1.0
    a1 = jnp.where(boosted, a + 1.0, a)
    d = a1 - 1.0 / 3.0
    c = 1.0 / jnp.sqrt(d * 9.0)
    k_loop, k_boost = split(key)

    def attempt(state):
        i, log_z, done = state
        k_n, k_u = split(fold_in(k_loop, i))
        x = normal(k_n, shape, dt)
        u = uniform(k_u, shape, dt, TINY[dt.name], 1.0)
        v = 1.0 + c * x
        v3 = v * v * v
        ok = (v > 0) & ((u < 1.0 - 0.0331 * x * x * x * x)
                        | (jnp.log(u) < x * x * 0.5 + d * (1.0 - v3 + jnp.log(jnp.where(v > 0, v3, 1.0)))))
        new = jnp.log(d) + 3.0 * jnp.log(jnp.where(v > 0, v, 1.0))
        return i + 1, jnp.where(done, log_z, new), done | ok

    start = (jnp.asarray(0, "int32"), jnp.zeros(shape, dt), jnp.zeros(shape, "bool"))
    _, log_z, _ = while_loop(lambda s: jnp.any(~s[2]), attempt, start)
    u = uniform(k_boost, shape, dt, TINY[dt.name], 1.0)
    return log_z + jnp.where(boosted, jnp.log(u) / a, 0.0)


def _log_gamma_sample_fwd(key, a):
    log_x = _log_gamma_sample(key, a)
    return log_x, (a, log_x)


def _log_gamma_sample_bwd(res, ct):
    from ..scipy.special.incomplete_gamma import log_sample_grad_a  # lazy: jg.scipy is lazy
    return None, ct * log_sample_grad_a(*res)


_log_gamma_sample.defvjp(_log_gamma_sample_fwd, _log_gamma_sample_bwd)


def _shape_param(what, a, shape, dtype):
    dt = float_dtype(dtype, what)
    a = as_dtype(a, dt)
    return a, result_shape(what, shape, a), dt


def gamma(key, a, shape=None, dtype=None):
    """Gamma(a, 1) draws (jax.random.gamma)."""
    a, shape, _ = _shape_param("gamma", a, shape, dtype)
    return jnp.exp(_log_gamma_draws(key, a, shape))


def loggamma(key, a, shape=None, dtype=None):
    """log of Gamma(a, 1) draws, accurate for small a (jax.random.loggamma)."""
    a, shape, _ = _shape_param("loggamma", a, shape, dtype)
    return _log_gamma_draws(key, a, shape)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) draws as a ratio of log-gamma draws (jax.random.beta)."""
    dt = float_dtype(dtype, "beta")
    a, b = as_dtype(a, dt), as_dtype(b, dt)
    shape = result_shape("beta", shape, a, b)
    ka, kb = split(key)
    log_x, log_y = _log_gamma_draws(ka, a, shape), _log_gamma_draws(kb, b, shape)
    top = jnp.maximum(log_x, log_y)
    log_x, log_y = log_x - top, log_y - top
    return jnp.exp(log_x - jnp.log(jnp.exp(log_x) + jnp.exp(log_y)))


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) draws over the last axis (jax.random.dirichlet; shape is the batch
    shape, the result has shape + alpha.shape[-1:])."""
    dt = float_dtype(dtype, "dirichlet")
    alpha = as_dtype(alpha, dt)
    if alpha.ndim < 1:
        raise ValueError(f"jg.random.dirichlet: alpha must have at least one dimension, got "
                         f"shape {tuple(alpha.shape)}")
    batch = result_shape("dirichlet", shape, jnp.zeros(tuple(alpha.shape[:-1])))
    log_g = _log_gamma_draws(key, alpha, batch + tuple(alpha.shape[-1:]))
    log_g = log_g - jnp.max(log_g, axis=-1, keepdims=True)
    g = jnp.exp(log_g)
    return g / jnp.sum(g, axis=-1, keepdims=True)


def chisquare(key, df, shape=None, dtype=None):
    """Chi-square(df) draws: 2 Gamma(df / 2) (jax.random.chisquare)."""
    df, shape, _ = _shape_param("chisquare", df, shape, dtype)
    return jnp.exp(_log_gamma_draws(key, df * 0.5, shape)) * 2.0


def f(key, dfnum, dfden, shape=None, dtype=None):
    """F(dfnum, dfden) draws: a ratio of scaled chi-squares (jax.random.f)."""
    dt = float_dtype(dtype, "f")
    dfnum, dfden = as_dtype(dfnum, dt), as_dtype(dfden, dt)
    shape = result_shape("f", shape, dfnum, dfden)
    k_den, k_num = split(key)
    return (chisquare(k_num, dfnum, shape, dt) / dfnum) / (chisquare(k_den, dfden, shape, dt) / dfden)


def t(key, df, shape=None, dtype=None):
    """Student's t(df) draws: normal * sqrt(df / 2 / Gamma(df / 2)) (jax.random.t)."""
    df, shape, dt = _shape_param("t", df, shape, dtype)
    k_n, k_g = split(key)
    half = df * 0.5
    return normal(k_n, shape, dt) * jnp.sqrt(half / gamma(k_g, half, shape, dt))


def generalized_normal(key, p, shape=(), dtype=None):
    """Draws with density proportional to exp(-|x|^p) (jax.random.generalized_normal)."""
    dt = float_dtype(dtype, "generalized_normal")
    p = as_dtype(p, dt)
    k_g, k_r = split(key)
    shape = result_shape("generalized_normal", shape, p)
    g = gamma(k_g, 1.0 / p, shape, dt)
    return rademacher(k_r, shape, dt) * jnp.power(g, 1.0 / p)

