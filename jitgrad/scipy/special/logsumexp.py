"""logsumexp, softmax and log_softmax with scipy.special's signatures (axis=None means every
axis, as in scipy; jax.nn's softmax defaults to the last axis)."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ...nn import functional as F
from ...numpy._convert import normalize_axes
from ...numpy.half_compute import narrowed, widened
from ...transforms.autodiff import stop_gradient
from .series import floats


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """log(sum(b * exp(a))) over axis, without overflow (scipy.special.logsumexp). With weights
    b the sum may be negative: return_sign=True returns (log|sum|, sign), otherwise a negative
    sum gives NaN. where= (jax.scipy's) leaves out the entries where it is False."""
    (a,) = floats(a)
    if b is not None:
        a, b = floats(a, b)
        a, b = jnp.broadcast_arrays(a, b)
        a = jnp.where(jnp.equal(b, 0), -np.inf, a)
    (a, b), dtype = widened(a, b)       # float16/bfloat16: computed in float32, rounded once
    if where is not None:
        a = jnp.where(jnp.broadcast_to(where, a.shape), a, -np.inf)
    axes = normalize_axes(axis, a.ndim)
    top = stop_gradient(jnp.max(a, axis=axes, keepdims=True)) if a.size else jnp.zeros(
        (1,) * a.ndim, a.dtype)
    top = jnp.where(jnp.isfinite(top), top, 0.0)
    terms = jnp.exp(jnp.subtract(a, top))
    if b is not None:
        terms = jnp.multiply(terms, b)
    total = jnp.sum(terms, axis=axes, keepdims=True)
    sign = jnp.sign(total)
    out = jnp.add(jnp.log(jnp.abs(total)), top)
    if not keepdims:
        out, sign = jnp.squeeze(out, axes), jnp.squeeze(sign, axes)
    if return_sign:
        return narrowed(out, dtype), narrowed(sign, dtype)
    return narrowed(jnp.where(jnp.less(sign, 0), np.nan, out), dtype)


def _axes(x, axis):
    return normalize_axes(axis, x.ndim)


def softmax(x, /, *, axis=None):
    """exp(x) / sum(exp(x)) over axis, every axis by default (scipy.special.softmax)."""
    (x,) = floats(x)
    return F.softmax(x, axis=_axes(x, axis))


def log_softmax(x, /, *, axis=None):
    """x - logsumexp(x) over axis, every axis by default (scipy.special.log_softmax)."""
    (x,) = floats(x)
    return F.log_softmax(x, axis=_axes(x, axis))
