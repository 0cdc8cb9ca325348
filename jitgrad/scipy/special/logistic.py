"""The logistic function and its inverse, and the Box-Cox transforms (scipy.special names)."""
from __future__ import annotations

from ... import numpy as jnp
from ...lax.elementwise import logistic
from .series import floats


def expit(x):
    """1 / (1 + exp(-x)) (scipy.special.expit, jax.nn.sigmoid)."""
    (x,) = floats(x)
    return logistic(x)


def logit(x):
    """log(x / (1 - x)), the inverse of expit: -inf at 0, inf at 1, NaN outside [0, 1]."""
    (x,) = floats(x)
    return jnp.log(jnp.true_divide(x, jnp.subtract(1.0, x)))


def _boxcox(log_x, lmbda):
    """log_x where lmbda == 0, else expm1(lmbda log_x) / lmbda (no cancellation near 0)."""
    zero = jnp.equal(lmbda, 0)
    safe_l = jnp.where(zero, 1.0, lmbda)
    return jnp.where(zero, log_x, jnp.true_divide(jnp.expm1(jnp.multiply(safe_l, log_x)), safe_l))


def boxcox(x, lmbda):
    """(x^lmbda - 1) / lmbda, or log(x) for lmbda = 0 (scipy.special.boxcox)."""
    x, lmbda = floats(x, lmbda)
    return _boxcox(jnp.log(x), lmbda)


def boxcox1p(x, lmbda):
    """boxcox(1 + x, lmbda), accurate for small x (scipy.special.boxcox1p)."""
    x, lmbda = floats(x, lmbda)
    return _boxcox(jnp.log1p(x), lmbda)
