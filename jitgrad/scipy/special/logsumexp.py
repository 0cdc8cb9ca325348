"""logsumexp, softmax and log_softmax with scipy.special's signatures (axis=None means every
axis, as in scipy; jax.nn's softmax defaults to the last axis)."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
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


def _shifted(x, axis):
    """(x - max(x) over axis (finite, not differentiated through), the axes, the dtype to
    round back to): float16/bfloat16 computed in float32, rounded once."""
    (x,) = floats(x)
    (x,), dtype = widened(x)
    axes = _axes(x, axis)
    m = stop_gradient(jnp.max(x, axis=axes, keepdims=True))
    return jnp.subtract(x, jnp.where(jnp.isfinite(m), m, 0.0)), axes, dtype


def softmax(x, /, *, axis=None):
    """exp(x) / sum(exp(x)) over axis, every axis by default (scipy.special.softmax)."""
    shifted, axes, dtype = _shifted(x, axis)
    e = jnp.exp(shifted)
    return narrowed(jnp.true_divide(e, jnp.sum(e, axis=axes, keepdims=True)), dtype)


def log_softmax(x, /, *, axis=None):
    """x - logsumexp(x) over axis, every axis by default (scipy.special.log_softmax): shifted
    first, so the large max does not round away the small differences."""
    shifted, axes, dtype = _shifted(x, axis)
    return narrowed(jnp.subtract(shifted, jnp.log(jnp.sum(jnp.exp(shifted), axis=axes,
                                                          keepdims=True))), dtype)
