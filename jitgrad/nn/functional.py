"""jitgrad.nn.functional (torch.nn.functional's names): every functional form in one namespace.

Defined here: the functional forms of the layers (linear, dropout, layer_norm, embedding).
Gathered here: activations (activations.py), losses (losses.py), conv/pool (conv.py). Modules
(layers.py, conv.py) call these functions; nothing here imports a module class, so the import
graph has no cycle.
"""
from __future__ import annotations

from .. import numpy as jnp
from .. import random as jrandom
from ..eager.array_base import register_methods
from ..trace.tracer import Tracer
from ..errors import wrap_public_functions as _wrap
from ..numpy._convert import asarray
from .activations import *  # noqa: F401,F403
from .attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401
from .embedding import embedding  # noqa: F401
from .conv import adaptive_avg_pool2d, avg_pool2d, conv2d, max_pool2d  # noqa: F401
from .normalization import batch_norm, group_norm, instance_norm  # noqa: F401
from .losses import (binary_cross_entropy_with_logits, cross_entropy, l1_loss,  # noqa: F401
                     mse_loss, nll_loss)


def linear(x, weight, bias=None):
    """x @ weight.T + bias, with weight laid out (out_features, in_features) as in PyTorch."""
    y = jnp.matmul(x, jnp.transpose(weight))
    return y if bias is None else jnp.add(y, bias)


def dropout(x, p=0.5, training=True, key=None):
    """Zero each element with probability p and scale the rest by 1/(1-p) (identity when not
    training). `key` is a jg.random key; it is required inside jit."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be in [0, 1], got {p}")
    x = asarray(x)
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return jnp.zeros_like(x)
    if key is not None:
        keep = jrandom.bernoulli(key, 1.0 - p, x.shape)
    elif isinstance(x, Tracer) and x._concrete is None:
        raise ValueError("dropout inside jit needs an explicit PRNG key: call the model as "
                         "model(x, key=k) with k = jg.random.key(seed) (split it per step with "
                         "jg.random.split), or call model.eval() to disable dropout")
    else:
        from ..eager.creation import _GEN
        keep = _GEN["rng"].random(x.shape) >= p
    return jnp.where(keep, jnp.multiply(x, 1.0 / (1.0 - p)), jnp.zeros((), x.dtype))


def dropout2d(x, p=0.5, training=True, key=None):
    """Zero whole channels of an (N, C, H, W) (or (N, C, L)) input with probability p, scaling
    the others by 1/(1-p): one dropout factor per (sample, channel). Identity when not training;
    `key` is required inside jit."""
    x = asarray(x)
    if x.ndim not in (3, 4):
        raise ValueError(f"dropout2d: expected a 3D (N, C, L) or 4D (N, C, H, W) input, got shape "
                         f"{tuple(x.shape)}")
    if not training or p == 0.0:
        return dropout(x, p, training, key)
    scale = dropout(jnp.ones(tuple(x.shape[:2]) + (1,) * (x.ndim - 2), x.dtype), p, True, key)
    return jnp.multiply(x, scale)


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing `normalized_shape` dimensions, then scale and shift."""
    x = asarray(x)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(x.shape[x.ndim - len(shape):]) != shape:
        raise ValueError(f"layer_norm: expected an input whose trailing dimensions are {shape}, "
                         f"got shape {tuple(x.shape)}")
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    centered = jnp.subtract(x, jnp.mean(x, axis=axes, keepdims=True))
    var = jnp.mean(jnp.multiply(centered, centered), axis=axes, keepdims=True)
    y = jnp.multiply(centered, jnp.rsqrt(jnp.add(var, eps)))
    if weight is not None:
        y = jnp.multiply(y, weight)
    return y if bias is None else jnp.add(y, bias)


_wrap(globals(), "jitgrad")   # errors show the user's call, not jitgrad's frames

# the Tensor methods PyTorch has for these (x.relu(), x.softmax(-1), ...): installed on eager
# Tensors and traced values alike (array_base.register_methods)
METHODS = ("relu", "sigmoid", "softmax", "log_softmax", "logsumexp")
register_methods({name: globals()[name] for name in METHODS})
