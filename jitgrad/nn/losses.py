"""Losses as decompositions into primitives, stable for any logits (log_softmax is
logsumexp-based; the logistic loss uses softplus). Re-exported by jitgrad.nn.functional."""
from __future__ import annotations

from .. import numpy as jnp
from ..numpy._convert import asarray
from .functional import log_softmax, one_hot, softplus

_REDUCE = {"mean": jnp.mean, "sum": jnp.sum, "none": lambda x: x}


def _reduce(loss, reduction, where):
    if reduction not in _REDUCE:
        raise ValueError(f"{where}: reduction must be one of {', '.join(_REDUCE)}, "
                         f"got {reduction!r}")
    return _REDUCE[reduction](loss)


def nll_loss(log_probs, target, reduction="mean"):
    """Negative log-likelihood of integer class labels `target` (N,) under log_probs (N, C)."""
    log_probs, target = asarray(log_probs), asarray(target)
    if target.dtype.kind not in "iu":
        raise TypeError(f"nll_loss: expected integer class labels, got {target.dtype}")
    if log_probs.shape[:-1] != target.shape:
        raise ValueError(f"nll_loss: log_probs of shape {tuple(log_probs.shape)} needs labels of "
                         f"shape {tuple(log_probs.shape[:-1])}, got {tuple(target.shape)}")
    picked = jnp.sum(jnp.multiply(log_probs, one_hot(target, log_probs.shape[-1], log_probs.dtype)),
                     axis=-1)
    return _reduce(jnp.negative(picked), reduction, "nll_loss")


def cross_entropy(logits, target, reduction="mean", label_smoothing=0.0):
    """Softmax cross-entropy of logits (N, C) against integer labels (N,) or class
    probabilities (N, C) (one-hot or soft)."""
    logits, target = asarray(logits), asarray(target)
    n_classes = logits.shape[-1]
    if target.dtype.kind in "iu":
        if target.shape != logits.shape[:-1]:
            raise ValueError(f"cross_entropy: logits of shape {tuple(logits.shape)} need integer "
                             f"labels of shape {tuple(logits.shape[:-1])}, "
                             f"got {tuple(target.shape)}")
        target = one_hot(target, n_classes, logits.dtype)
    elif target.shape != logits.shape:
        raise ValueError(f"cross_entropy: probability targets must have the logits' shape "
                         f"{tuple(logits.shape)}, got {tuple(target.shape)}")
    target = target.astype(logits.dtype)
    if label_smoothing:
        target = jnp.add(jnp.multiply(target, 1.0 - label_smoothing), label_smoothing / n_classes)
    loss = jnp.negative(jnp.sum(jnp.multiply(target, log_softmax(logits, axis=-1)), axis=-1))
    return _reduce(loss, reduction, "cross_entropy")


def mse_loss(input, target, reduction="mean"):
    d = jnp.subtract(input, target)
    return _reduce(jnp.multiply(d, d), reduction, "mse_loss")


def l1_loss(input, target, reduction="mean"):
    return _reduce(jnp.abs(jnp.subtract(input, target)), reduction, "l1_loss")


def binary_cross_entropy_with_logits(logits, target, reduction="mean", pos_weight=None):
    """-[y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))] = softplus(x) - x*y, with an optional
    weight on the positive term: (1 + (w - 1) y) softplus(-x) + (1 - y) x."""
    logits = asarray(logits)
    target = asarray(target).astype(logits.dtype)
    if pos_weight is None:
        loss = jnp.subtract(softplus(logits), jnp.multiply(logits, target))
    else:
        weight = jnp.add(jnp.multiply(jnp.subtract(pos_weight, 1.0), target), 1.0)
        loss = jnp.add(jnp.multiply(weight, softplus(jnp.negative(logits))),
                       jnp.multiply(jnp.subtract(1.0, target), logits))
    return _reduce(loss, reduction, "binary_cross_entropy_with_logits")


__all__ = ["nll_loss", "cross_entropy", "mse_loss", "l1_loss", "binary_cross_entropy_with_logits"]
