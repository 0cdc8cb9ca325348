"""Activations, softmax and one_hot: decompositions into primitives, written once, numerically
stable. Public through jitgrad.nn.functional."""
from __future__ import annotations

import math

import numpy as np

from ..eager.dispatch import apply
from ..ir import Op
from .. import numpy as jnp
from ..numpy._convert import normalize_axes, operands
from ..transforms.autodiff import stop_gradient
from .fused_eager import fused_in_eager


def relu(x):
    # a select, not max(x, 0): relu'(0) = 0 as in PyTorch (max splits a tie's gradient in half);
    # selecting 0 where x <= 0 (not x where x > 0) keeps NaN, as torch and JAX do
    x = jnp.asarray(x)
    return jnp.where(jnp.less_equal(x, 0), 0, x)


def relu6(x):
    return jnp.clip(x, 0, 6)


def leaky_relu(x, negative_slope=0.01):
    x = jnp.asarray(x)
    return jnp.where(jnp.greater(x, 0), x, jnp.multiply(x, negative_slope))


def elu(x, alpha=1.0):
    x = jnp.asarray(x)
    return jnp.where(jnp.greater(x, 0), x, jnp.multiply(jnp.expm1(jnp.minimum(x, 0)), alpha))


def sigmoid(x):
    (x,) = operands(x, float_only=True)
    return apply(Op.sigmoid, [x])


def log_sigmoid(x):
    return jnp.negative(softplus(jnp.negative(x)))


def softplus(x, beta=1.0, threshold=None):
    """log(1 + exp(x)) computed as max(x, 0) + log1p(exp(-|x|)): no overflow either way."""
    (x,) = operands(x, float_only=True)
    if beta != 1.0:
        return jnp.true_divide(softplus(jnp.multiply(x, beta)), beta)
    return jnp.add(jnp.maximum(x, 0), jnp.log1p(jnp.exp(jnp.negative(jnp.abs(x)))))


def silu(x):
    return jnp.multiply(x, sigmoid(x))


swish = silu


@fused_in_eager("x")           # eagerly: one compiled call once hot
def gelu(x, approximate=False):
    """Exact (erf) GELU by default as in PyTorch; approximate=True or 'tanh' gives the tanh form."""
    (x,) = operands(x, float_only=True)
    if approximate in (True, "tanh"):
        inner = jnp.multiply(jnp.add(x, jnp.multiply(jnp.multiply(jnp.multiply(x, x), x), 0.044715)),
                             math.sqrt(2.0 / math.pi))
        return jnp.multiply(jnp.multiply(x, 0.5), jnp.add(jnp.tanh(inner), 1.0))
    return jnp.multiply(jnp.multiply(x, 0.5), jnp.add(jnp.erf(jnp.multiply(x, 1 / math.sqrt(2.0))), 1.0))


def tanh(x):
    return jnp.tanh(x)


def logsumexp(x, axis=None, keepdims=False):
    """max + log(sum(exp(x - max))): stable; the max is not differentiated through (it cancels)."""
    (x,) = operands(x, float_only=True)
    axes = normalize_axes(axis, x.ndim)
    m = stop_gradient(jnp.max(x, axis=axes, keepdims=True))
    m = jnp.where(jnp.isfinite(m), m, 0.0)
    s = jnp.log(jnp.sum(jnp.exp(jnp.subtract(x, m)), axis=axes, keepdims=True))
    out = jnp.add(s, m)
    return out if keepdims else jnp.squeeze(out, axes) if axes else out


@fused_in_eager("x")
def log_softmax(x, axis=-1):
    """(x - m) - log(sum(exp(x - m))), shift first: x - (m + log s) would round the large
    m + log s and lose the small differences that matter (470 ulp at logits ~1e4)."""
    (x,) = operands(x, float_only=True)
    m = stop_gradient(jnp.max(x, axis=axis, keepdims=True))
    shifted = jnp.subtract(x, jnp.where(jnp.isfinite(m), m, 0.0))
    return jnp.subtract(shifted, jnp.log(jnp.sum(jnp.exp(shifted), axis=axis, keepdims=True)))


@fused_in_eager("x")
def softmax(x, axis=-1):
    (x,) = operands(x, float_only=True)
    m = stop_gradient(jnp.max(x, axis=axis, keepdims=True))
    e = jnp.exp(jnp.subtract(x, m))
    return jnp.true_divide(e, jnp.sum(e, axis=axis, keepdims=True))


def one_hot(x, num_classes, dtype="float32"):
    x = jnp.asarray(x)
    return jnp.astype(jnp.equal(jnp.expand_dims(x, -1), np.arange(num_classes)), dtype)


__all__ = ["relu", "relu6", "leaky_relu", "elu", "sigmoid", "log_sigmoid", "softplus", "silu",
           "gelu", "tanh", "logsumexp", "log_softmax", "softmax", "one_hot", "swish"]
