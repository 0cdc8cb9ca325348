"""The multivariate normal distribution (scipy.stats.multivariate_normal's logpdf and pdf)."""
from __future__ import annotations

import math

import numpy as np

from ... import numpy as jnp
from ..linalg import solve_triangular
from .support import floats


def logpdf(x, mean=None, cov=1, allow_singular=None):
    """log N(x; mean, cov) over x's last axis; cov a scalar, a vector (a diagonal) or a
    matrix, as scipy. allow_singular=True is not supported (the factorization needs a
    positive-definite cov)."""
    if allow_singular:
        raise NotImplementedError("multivariate_normal.logpdf: allow_singular=True is not "
                                  "supported")
    (x,) = floats(x)
    mean = jnp.zeros(x.shape[-1:], x.dtype) if mean is None else mean
    x, mean, cov = floats(x, mean, cov)
    n = mean.shape[-1] if mean.ndim else x.shape[-1]
    d = jnp.subtract(x, mean)
    if cov.ndim < 2:                                  # a scalar or the diagonal
        var = jnp.broadcast_to(cov, (n,)) if cov.ndim == 0 else cov
        maha = jnp.sum(jnp.true_divide(jnp.multiply(d, d), var), axis=-1)
        log_det = jnp.sum(jnp.log(jnp.broadcast_to(var, (n,))), axis=-1)
    else:
        if cov.shape[-2:] != (n, n):
            raise ValueError(f"multivariate_normal.logpdf: expected cov of shape ({n}, {n}) "
                             f"for {n}-dimensional x and mean, got {cov.shape}")
        chol = jnp.linalg.cholesky(cov)
        y = solve_triangular(chol, jnp.expand_dims(d, -1), lower=True)[..., 0]   # L y = d
        maha = jnp.sum(jnp.multiply(y, y), axis=-1)
        log_det = jnp.multiply(jnp.sum(jnp.log(jnp.diagonal(chol, axis1=-2, axis2=-1)), axis=-1),
                               2.0)
    return jnp.multiply(jnp.add(jnp.add(maha, log_det), n * math.log(2 * np.pi)), -0.5)


def pdf(x, mean=None, cov=1, allow_singular=None):
    return jnp.exp(logpdf(x, mean, cov, allow_singular))
