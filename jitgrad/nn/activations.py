"""Activations, softmax and one_hot: decompositions into primitives, written once, numerically
stable. Public through jitgrad.nn.functional."""
from __future__ import annotations

import math

import numpy as np

from ..lax.elementwise import logistic
from .. import numpy as jnp
from ..numpy._convert import normalize_axes, operands
from ..numpy.half_compute import narrowed, widened
from ..transforms.autodiff import stop_gradient
from ..transforms.fused_eager import fused_in_eager

_GELU_CUBIC, _SQRT_2_OVER_PI = 0.044715, math.sqrt(2.0 / math.pi)


def relu(x):
    # a select, not max(x, 0): relu'(0) = 0 as in PyTorch (max splits a tie's gradient in half);
    # selecting 0 where x <= 0 (not x where x > 0) keeps NaN, as torch and JAX do
    """torch.nn.functional.relu / jax.nn.relu: max(x, 0)."""
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
    """torch.sigmoid / jax.nn.sigmoid: 1 / (1 + exp(-x)) (lax.logistic)."""
    return logistic(x)


def log_sigmoid(x):
    """jax.nn.log_sigmoid / torch.nn.functional.logsigmoid: log(sigmoid(x)), computed stably."""
    return jnp.negative(softplus(jnp.negative(x)))


def softplus(x, beta=1.0, threshold=None):
    """log(1 + exp(x)) computed as max(x, 0) + log1p(exp(-|x|)): no overflow either way."""
    (x,) = operands(x, float_only=True)
    if beta != 1.0:
        return jnp.true_divide(softplus(jnp.multiply(x, beta)), beta)
    return jnp.add(jnp.maximum(x, 0), jnp.log1p(jnp.exp(jnp.negative(jnp.abs(x)))))


def silu(x):
    """torch.nn.functional.silu / jax.nn.silu (swish): x * sigmoid(x)."""
    return jnp.multiply(x, sigmoid(x))


swish = silu


def _gelu_fwd(x, approximate=False):
    """(GELU, its saved term s = 1 + erf(x / sqrt 2) or 1 + tanh(inner)): y = x/2 * s."""
    (x,) = operands(x, float_only=True)
    if approximate in (True, "tanh"):
        cube = jnp.multiply(jnp.multiply(x, x), x)
        inner = jnp.multiply(jnp.add(x, jnp.multiply(cube, _GELU_CUBIC)), _SQRT_2_OVER_PI)
        s = jnp.add(jnp.tanh(inner), 1.0)
    else:
        s = jnp.add(jnp.erf(jnp.multiply(x, 1 / math.sqrt(2.0))), 1.0)
    return jnp.multiply(jnp.multiply(x, 0.5), s), (s,)


def _gelu_bwd(args, residuals, g):
    """From the saved s, no erf or tanh again: exact, s/2 + x * phi(x) (phi the normal
    density); tanh form, s/2 + x/2 * (1 - t^2) * inner'(x) with 1 - t^2 = s (2 - s)."""
    x, approximate = args
    (s,) = residuals
    half_s = jnp.multiply(s, 0.5)
    if approximate in (True, "tanh"):
        slope = jnp.multiply(jnp.add(jnp.multiply(jnp.multiply(x, x), 3 * _GELU_CUBIC), 1.0),
                             _SQRT_2_OVER_PI)
        sech2 = jnp.multiply(s, jnp.subtract(2.0, s))
        d = jnp.add(half_s, jnp.multiply(jnp.multiply(jnp.multiply(x, 0.5), sech2), slope))
    else:
        phi = jnp.multiply(jnp.exp(jnp.multiply(jnp.multiply(x, x), -0.5)),
                           1 / math.sqrt(2 * math.pi))
        d = jnp.add(half_s, jnp.multiply(x, phi))
    return (jnp.multiply(g, d),)


# eagerly: one compiled call once hot; under autograd the backward reads the saved s
@fused_in_eager("x", fwd=_gelu_fwd, bwd=_gelu_bwd)
def gelu(x, approximate=False):
    """Exact (erf) GELU by default as in PyTorch; approximate=True or 'tanh' gives the tanh form."""
    return _gelu_fwd(x, approximate)[0]


def tanh(x):
    """numpy.tanh: compute hyperbolic tangent element-wise."""
    return jnp.tanh(x)


def logsumexp(x, axis=None, keepdims=False):
    """max + log(sum(exp(x - max))): stable; the max is not differentiated through (it cancels)."""
    (x,) = operands(x, float_only=True)
    (x,), dtype = widened(x)        # float16/bfloat16: computed in float32, rounded once
    axes = normalize_axes(axis, x.ndim)
    m = stop_gradient(jnp.max(x, axis=axes, keepdims=True))
    m = jnp.where(jnp.isfinite(m), m, 0.0)
    s = jnp.log(jnp.sum(jnp.exp(jnp.subtract(x, m)), axis=axes, keepdims=True))
    out = jnp.add(s, m)
    return narrowed(out if keepdims else jnp.squeeze(out, axes) if axes else out, dtype)


def log_softmax_grad(y, g, axis):
    """PyTorch's log_softmax backward from the output y: g - exp(y) * sum(g)."""
    (y, g), dtype = widened(y, g)
    return narrowed(jnp.subtract(g, jnp.multiply(jnp.exp(y), jnp.sum(g, axis=axis,
                                                                     keepdims=True))), dtype)


def _log_softmax_bwd(args, residuals, g):
    return (log_softmax_grad(residuals[0], g, args[1]),)


def _softmax_bwd(args, residuals, g):
    """PyTorch's softmax backward from the output y: y * (g - sum(g * y))."""
    (y, g), dtype = widened(residuals[0], g)
    dot = jnp.sum(jnp.multiply(g, y), axis=args[1], keepdims=True)
    return (narrowed(jnp.multiply(y, jnp.subtract(g, dot)), dtype),)


@fused_in_eager("x", bwd=_log_softmax_bwd)      # the backward reads the output
def log_softmax(x, axis=-1):
    """(x - m) - log(sum(exp(x - m))), shift first: x - (m + log s) would round the large
    m + log s and lose the small differences that matter (470 ulp at logits ~1e4)."""
    (x,) = operands(x, float_only=True)
    (x,), dtype = widened(x)        # float16/bfloat16: computed in float32, rounded once
    m = stop_gradient(jnp.max(x, axis=axis, keepdims=True))
    shifted = jnp.subtract(x, jnp.where(jnp.isfinite(m), m, 0.0))
    return narrowed(jnp.subtract(shifted, jnp.log(jnp.sum(jnp.exp(shifted), axis=axis,
                                                          keepdims=True))), dtype)


@fused_in_eager("x", bwd=_softmax_bwd)          # the backward reads the output
def softmax(x, axis=-1):
    (x,) = operands(x, float_only=True)
    (x,), dtype = widened(x)        # float16/bfloat16: computed in float32, rounded once
    m = stop_gradient(jnp.max(x, axis=axis, keepdims=True))
    e = jnp.exp(jnp.subtract(x, m))
    return narrowed(jnp.true_divide(e, jnp.sum(e, axis=axis, keepdims=True)), dtype)


def one_hot(x, num_classes, dtype="float32"):
    x = jnp.asarray(x)
    return jnp.astype(jnp.equal(jnp.expand_dims(x, -1), np.arange(num_classes)), dtype)


__all__ = ["relu", "relu6", "leaky_relu", "elu", "sigmoid", "log_sigmoid", "softplus", "silu",
           "gelu", "tanh", "logsumexp", "log_softmax", "softmax", "one_hot", "swish"]
