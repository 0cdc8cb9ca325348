"""Draws of vectors and matrices: multivariate_normal, orthogonal, ball (jax.random's)."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from .continuous import exponential, normal
from .gamma import generalized_normal
from .keys import shape_tuple, split
from .params import as_dtype, float_dtype


def _factor(cov, method):
    """A with A A^T = cov, by the method's decomposition (JAX's three)."""
    if method == "cholesky":
        return jnp.linalg.cholesky(cov)
    if method == "eigh":
        w, v = jnp.linalg.eigh(cov)
        return v * jnp.sqrt(jnp.maximum(w, 0.0))[..., None, :]
    u, s, _ = jnp.linalg.svd(cov)
    return u * jnp.sqrt(s)[..., None, :]


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Normal vectors with the given mean (..., n) and covariance (..., n, n)
    (jax.random.multivariate_normal; method 'cholesky', 'eigh' or 'svd'; shape is the batch
    shape, the result has shape + (n,))."""
    if method not in ("cholesky", "eigh", "svd"):
        raise ValueError(f"jg.random.multivariate_normal: method must be 'cholesky', 'eigh' "
                         f"or 'svd', got {method!r}")
    dt = float_dtype(dtype, "multivariate_normal")
    mean, cov = as_dtype(mean, dt), as_dtype(cov, dt)
    if mean.ndim < 1 or cov.ndim < 2 or cov.shape[-1] != cov.shape[-2] != mean.shape[-1] or \
            cov.shape[-1] != mean.shape[-1]:
        raise ValueError(f"jg.random.multivariate_normal: expected mean (..., n) and cov "
                         f"(..., n, n), got {tuple(mean.shape)} and {tuple(cov.shape)}")
    n = mean.shape[-1]
    batch = np.broadcast_shapes(tuple(mean.shape[:-1]), tuple(cov.shape[:-2]))
    shape = batch if shape is None else shape_tuple(shape)
    if np.broadcast_shapes(shape, batch) != shape:
        raise ValueError(f"jg.random.multivariate_normal: shape {shape} is not compatible "
                         f"with the parameters' batch shape {batch}")
    z = normal(key, shape + (n,), dt)
    return mean + jnp.squeeze(jnp.matmul(_factor(cov, method), z[..., None]), -1)


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Haar-random matrices with orthonormal rows or columns, (*shape, n, m) with m = n by
    default (jax.random.orthogonal: QR of a normal matrix, signs fixed by R's diagonal)."""
    dt = float_dtype(dtype, "orthogonal")
    m = n if m is None else int(m)
    z = normal(key, shape_tuple(shape) + (max(n, m), min(n, m)), dt)
    q, r = jnp.linalg.qr(z)
    q = q * jnp.sign(jnp.diagonal(r, axis1=-2, axis2=-1))[..., None, :]
    return q if n >= m else jnp.swapaxes(q, -1, -2)


def ball(key, d, p=2, shape=(), dtype=None):
    """Points uniform in the d-dimensional unit Lp ball, (*shape, d) (jax.random.ball:
    generalized-normal directions scaled by an exponential draw)."""
    dt = float_dtype(dtype, "ball")
    k_g, k_e = split(key)
    g = generalized_normal(k_g, p, shape_tuple(shape) + (int(d),), dt)
    e = exponential(k_e, shape_tuple(shape), dt)
    norm = jnp.power(jnp.sum(jnp.power(jnp.abs(g), p), axis=-1) + e, 1.0 / p)
    return g / norm[..., None]

