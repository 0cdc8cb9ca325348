"""Dropout's functional forms (torch.nn.functional.dropout, dropout2d): with a jg.random key
inside jit, else eagerly from the global generator jg.manual_seed seeds."""
from __future__ import annotations

import warnings

from .. import numpy as jnp
from .. import random as jrandom
from ..eager.global_rng import global_rng
from ..trace.tracer import Tracer
from ..numpy._convert import asarray
from ..transforms.fused_eager import fused_in_eager


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
        keep = asarray(global_rng().random(x.shape) >= p)
    return _kept(x, keep, 1.0 / (1.0 - p))


@fused_in_eager("x", "keep")               # eagerly: one compiled call once hot
def _kept(x, keep, scale):
    """x * scale where keep, else 0."""
    return jnp.where(keep, jnp.multiply(x, scale), jnp.zeros((), x.dtype))


def dropout2d(x, p=0.5, training=True, key=None):
    """Zero whole channels of an (N, C, H, W) (or (N, C, L)) input with probability p, scaling
    the others by 1/(1-p): one dropout factor per (sample, channel). Identity when not training;
    `key` is required inside jit. Other ranks (N, C, ...) warn and still drop per (sample,
    channel), as torch's: a 2-D (N, C) input is elementwise dropout."""
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError(f"dropout2d: expected a 3D (N, C, L) or 4D (N, C, H, W) input, got shape "
                         f"{tuple(x.shape)}")
    if x.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {x.ndim}-D input to dropout2d, which torch "
                      "deprecates; use dropout (2-D) or dropout3d (5-D)", stacklevel=2)
    if not training or p == 0.0:
        return dropout(x, p, training, key)
    scale = dropout(jnp.ones(tuple(x.shape[:2]) + (1,) * (x.ndim - 2), x.dtype), p, True, key)
    return jnp.multiply(x, scale)
