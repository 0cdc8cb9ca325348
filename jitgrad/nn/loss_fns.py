"""torch.nn.functional's losses beyond losses.py (binary_cross_entropy, kl_div, huber, smooth L1,
Poisson/Gaussian NLL, the margin and embedding losses, triplet losses), with torch's argument
order, legacy size_average/reduce and reductions, as composites of primitives."""
from __future__ import annotations

import math

from .. import numpy as jnp
from ..ir.types import kind_of
from ..numpy._convert import asarray
from ..transforms.autodiff import stop_gradient
from .activations import log_sigmoid, one_hot, softplus
from .distance import pairwise_distance
from .losses import cross_entropy, legacy_reduction, reduce_loss


def _relu(x):
    return jnp.maximum(x, 0)


def _same_shape(a, b, where, names=("input", "target")):
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"{where}: {names[1]} must have the {names[0]}'s shape "
                         f"{tuple(a.shape)}, got {tuple(b.shape)}")


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """torch.nn.functional.binary_cross_entropy of probabilities: -w [y log x + (1 - y)
    log(1 - x)], each log clamped at -100 as in PyTorch."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    x = asarray(input)
    t = asarray(target).astype(x.dtype)
    _same_shape(x, t, "binary_cross_entropy")
    log_x = jnp.maximum(jnp.log(x), -100.0)
    log_1mx = jnp.maximum(jnp.log1p(jnp.negative(x)), -100.0)
    loss = jnp.negative(jnp.add(jnp.multiply(t, log_x),
                                jnp.multiply(jnp.subtract(1.0, t), log_1mx)))
    if weight is not None:
        loss = jnp.multiply(loss, weight)
    return reduce_loss(loss, reduction, "binary_cross_entropy")


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """torch.nn.functional.kl_div of log-probabilities `input`: target * (log target - input)
    (0 where target is 0); "batchmean" divides the sum by the batch size."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    x, t = asarray(input), asarray(target)
    if log_target:
        loss = jnp.multiply(jnp.exp(t), jnp.subtract(t, x))
    else:
        t_log_t = jnp.where(jnp.greater(t, 0), jnp.multiply(t, jnp.log(jnp.where(
            jnp.greater(t, 0), t, 1.0))), jnp.zeros((), t.dtype))
        loss = jnp.subtract(t_log_t, jnp.multiply(t, x))
    if reduction == "batchmean":
        total = jnp.sum(loss)
        return total if x.ndim == 0 else jnp.true_divide(total, x.shape[0])
    return reduce_loss(loss, reduction, "kl_div")


def _huber(d, delta):
    a = jnp.abs(d)
    return jnp.where(jnp.less(a, delta), jnp.multiply(jnp.multiply(d, d), 0.5),
                     jnp.multiply(jnp.subtract(a, 0.5 * delta), delta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """torch.nn.functional.huber_loss: d^2 / 2 where |d| < delta, else delta (|d| - delta / 2);
    a `weight` of the input's shape scales each element (then the plain mean)."""
    x = asarray(input)
    loss = _huber(jnp.subtract(x, target), delta)
    if weight is not None:
        _same_shape(x, asarray(weight), "huber_loss", ("input", "weight"))
        loss = jnp.multiply(loss, weight)
    return reduce_loss(loss, reduction, "huber_loss")


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """torch.nn.functional.smooth_l1_loss: d^2 / (2 beta) where |d| < beta, else |d| - beta / 2
    (beta = 0 is the L1 loss)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise ValueError(f"smooth_l1_loss: beta must be non-negative, got {beta}")
    d = jnp.subtract(asarray(input), target)
    loss = jnp.abs(d) if beta == 0 else jnp.true_divide(_huber(d, beta), beta)
    return reduce_loss(loss, reduction, "smooth_l1_loss")


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """torch.nn.functional.poisson_nll_loss: exp(x) - y x (log_input) or x - y log(x + eps);
    `full` adds Stirling's term y log y - y + log(2 pi y) / 2 where y > 1."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    x = asarray(input)
    t = asarray(target).astype(x.dtype)
    if log_input:
        loss = jnp.subtract(jnp.exp(x), jnp.multiply(t, x))
    else:
        loss = jnp.subtract(x, jnp.multiply(t, jnp.log(jnp.add(x, eps))))
    if full:
        safe = jnp.where(jnp.greater(t, 1), t, 1.0)
        stirling = jnp.add(jnp.subtract(jnp.multiply(safe, jnp.log(safe)), safe),
                           jnp.multiply(jnp.log(jnp.multiply(safe, 2 * math.pi)), 0.5))
        loss = jnp.add(loss, jnp.where(jnp.greater(t, 1), stirling, jnp.zeros((), x.dtype)))
    return reduce_loss(loss, reduction, "poisson_nll_loss")


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """torch.nn.functional.gaussian_nll_loss: (log var + (x - y)^2 / var) / 2 with var clamped
    at eps (the clamp not differentiated, as in PyTorch); var has the input's shape, lacks its
    last dimension, or has size 1 in one dimension."""
    x = asarray(input)
    v = jnp.full(tuple(x.shape), float(var), x.dtype) if isinstance(var, (int, float)) \
        else asarray(var)
    if tuple(v.shape) != tuple(x.shape):
        if tuple(v.shape) == tuple(x.shape[:-1]):
            v = jnp.expand_dims(v, -1)
        elif not (v.ndim == x.ndim and sum(b for a, b in zip(x.shape, v.shape) if a != b) == 1):
            raise ValueError(f"gaussian_nll_loss: var of shape {tuple(v.shape)} does not fit "
                             f"the input of shape {tuple(x.shape)}")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"gaussian_nll_loss: reduction must be one of mean, sum, none, got "
                         f"{reduction!r}")
    v = jnp.add(v, stop_gradient(jnp.subtract(jnp.maximum(v, eps), v)))
    d = jnp.subtract(x, target)
    loss = jnp.multiply(jnp.add(jnp.log(v), jnp.true_divide(jnp.multiply(d, d), v)), 0.5)
    if full:
        loss = jnp.add(loss, 0.5 * math.log(2 * math.pi))
    return reduce_loss(loss, reduction, "gaussian_nll_loss")


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """torch.nn.functional.cosine_embedding_loss: 1 - cos(x1, x2) where y = 1,
    max(0, cos - margin) where y = -1 (cos over the last dimension, eps 1e-12 as PyTorch)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    a, b, y = asarray(input1), asarray(input2), asarray(target)
    dot = jnp.sum(jnp.multiply(a, b), axis=-1)
    mag = jnp.multiply(jnp.add(jnp.sum(jnp.multiply(a, a), axis=-1), 1e-12),
                       jnp.add(jnp.sum(jnp.multiply(b, b), axis=-1), 1e-12))
    cos = jnp.true_divide(dot, jnp.sqrt(mag))
    zero = jnp.zeros((), cos.dtype)
    loss = jnp.add(jnp.where(jnp.equal(y, 1), jnp.subtract(1.0, cos), zero),
                   jnp.where(jnp.equal(y, -1), _relu(jnp.subtract(cos, margin)), zero))
    return reduce_loss(loss, reduction, "cosine_embedding_loss")


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """torch.nn.functional.margin_ranking_loss: max(0, -y (x1 - x2) + margin)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    d = jnp.subtract(asarray(input1), input2)
    loss = _relu(jnp.add(jnp.negative(jnp.multiply(target, d)), margin))
    return reduce_loss(loss, reduction, "margin_ranking_loss")


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """torch.nn.functional.hinge_embedding_loss: x where y = 1, max(0, margin - x) where
    y = -1."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    x, y = asarray(input), asarray(target)
    zero = jnp.zeros((), x.dtype)
    loss = jnp.add(jnp.where(jnp.not_equal(y, 1), _relu(jnp.subtract(margin, x)), zero),
                   jnp.where(jnp.not_equal(y, -1), x, zero))
    return reduce_loss(loss, reduction, "hinge_embedding_loss")


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """torch.nn.functional.soft_margin_loss: log(1 + exp(-y x))."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    x = asarray(input)
    loss = softplus(jnp.negative(jnp.multiply(asarray(target).astype(x.dtype), x)))
    return reduce_loss(loss, reduction, "soft_margin_loss")


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """torch.nn.functional.multilabel_soft_margin_loss: the mean over classes of
    -w [y log sigmoid(x) + (1 - y) log sigmoid(-x)]."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    x = asarray(input)
    t = asarray(target).astype(x.dtype)
    loss = jnp.negative(jnp.add(jnp.multiply(t, log_sigmoid(x)),
                                jnp.multiply(jnp.subtract(1.0, t), log_sigmoid(jnp.negative(x)))))
    if weight is not None:
        loss = jnp.multiply(loss, weight)
    loss = jnp.true_divide(jnp.sum(loss, axis=-1), x.shape[-1])
    return reduce_loss(loss, reduction, "multilabel_soft_margin_loss")


def _class_rows(x, target, where):
    """(input as (N, C), labels as (N,), whether the input was 1-D)."""
    x, target = asarray(x), asarray(target)
    if x.ndim not in (1, 2) or kind_of(target.dtype) not in "iu":
        raise ValueError(f"{where}: expected an input (C) or (N, C) and integer targets, got "
                         f"shapes {tuple(x.shape)} and {tuple(target.shape)} ({target.dtype})")
    return (x[None] if x.ndim == 1 else x), jnp.reshape(target, (-1,)), x.ndim == 1


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """torch.nn.functional.multi_margin_loss: per sample, sum over i != y of
    w_y max(0, margin - x_y + x_i)^p / C (p is 1 or 2)."""
    if p not in (1, 2):
        raise ValueError(f"multi_margin_loss: p must be 1 or 2, got {p}")
    reduction = legacy_reduction(size_average, reduce, reduction)
    x, y, flat = _class_rows(input, target, "multi_margin_loss")
    c = x.shape[1]
    hot = one_hot(y, c, x.dtype)
    x_y = jnp.sum(jnp.multiply(hot, x), axis=1, keepdims=True)
    z = _relu(jnp.add(jnp.subtract(x, x_y), margin))
    z = jnp.multiply(z, z) if p == 2 else z
    if weight is not None:
        z = jnp.multiply(z, jnp.sum(jnp.multiply(hot, weight), axis=1, keepdims=True))
    loss = jnp.true_divide(jnp.sum(jnp.multiply(z, jnp.subtract(1.0, hot)), axis=1), c)
    return reduce_loss(loss[0] if flat else loss, reduction, "multi_margin_loss")


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """torch.nn.functional.multilabel_margin_loss: the targets of a row are its labels up to
    the first -1; per row, sum over targets j and non-targets i of max(0, 1 - (x_j - x_i)) / C."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    x, t = asarray(input), asarray(target)
    _same_shape(x, t, "multilabel_margin_loss")
    if x.ndim not in (1, 2) or kind_of(t.dtype) not in "iu":
        raise ValueError(f"multilabel_margin_loss: expected an input (C) or (N, C) and integer "
                         f"targets of its shape, got {tuple(x.shape)} ({t.dtype})")
    x2, t2 = (x[None], t[None]) if x.ndim == 1 else (x, t)
    c = x2.shape[1]
    valid = jnp.equal(jnp.cumsum(jnp.equal(t2, -1).astype("int32"), axis=1), 0)   # (N, J)
    hot = jnp.multiply(one_hot(jnp.where(valid, t2, 0), c, x2.dtype),
                       jnp.expand_dims(valid.astype(x2.dtype), -1))              # (N, J, C)
    is_target = jnp.max(hot, axis=1)                                              # (N, C)
    x_j = jnp.sum(jnp.multiply(hot, jnp.expand_dims(x2, 1)), axis=2, keepdims=True)
    z = _relu(jnp.add(jnp.subtract(jnp.expand_dims(x2, 1), x_j), 1.0))           # (N, J, C)
    z = jnp.multiply(jnp.multiply(z, jnp.expand_dims(valid.astype(x2.dtype), -1)),
                     jnp.expand_dims(jnp.subtract(1.0, is_target), 1))
    loss = jnp.true_divide(jnp.sum(z, axis=(1, 2)), c)
    return reduce_loss(loss[0] if x.ndim == 1 else loss, reduction, "multilabel_margin_loss")


def _triplet(d_ap, d_an, d_pn, margin, swap, reduction, where):
    if swap:
        d_an = jnp.minimum(d_an, d_pn)
    return reduce_loss(_relu(jnp.add(jnp.subtract(d_ap, d_an), margin)), reduction, where)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """torch.nn.functional.triplet_margin_loss: max(d(a, p) - d(a, n) + margin, 0) with the
    p-norm pairwise distance; `swap` uses min(d(a, n), d(p, n))."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"triplet_margin_loss: margin must be greater than 0, got {margin}")
    a, pos, neg = asarray(anchor), asarray(positive), asarray(negative)
    dist = lambda u, v: pairwise_distance(u, v, p, eps)  # noqa: E731
    return _triplet(dist(a, pos), dist(a, neg), dist(pos, neg) if swap else None, margin, swap,
                    reduction, "triplet_margin_loss")


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """torch.nn.functional.triplet_margin_with_distance_loss: the triplet loss under any
    distance (pairwise_distance by default)."""
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: margin must be greater than 0, "
                         f"got {margin}")
    dist = pairwise_distance if distance_function is None else distance_function
    return _triplet(dist(anchor, positive), dist(anchor, negative),
                    dist(positive, negative) if swap else None, margin, swap, reduction,
                    "triplet_margin_with_distance_loss")


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0, options=None):
    """torch.nn.functional.linear_cross_entropy: cross_entropy(linear(input), target) with the
    classes on the last dimension of the projection: input (N, I) or (I), weight (C, I)."""
    x, w = asarray(input), asarray(linear_weight)
    if x.ndim not in (1, 2) or w.ndim != 2 or x.shape[-1] != w.shape[1]:
        raise ValueError(f"linear_cross_entropy: expected an input (N, I) or (I) and a weight "
                         f"(C, I), got {tuple(x.shape)} and {tuple(w.shape)}")
    logits = jnp.matmul(x, jnp.transpose(w))
    if linear_bias is not None:
        logits = jnp.add(logits, linear_bias)
    return cross_entropy(logits, target, weight, ignore_index=ignore_index, reduction=reduction,
                         label_smoothing=label_smoothing)


__all__ = ["linear_cross_entropy", "binary_cross_entropy", "kl_div", "huber_loss",
           "smooth_l1_loss", "poisson_nll_loss", "gaussian_nll_loss", "cosine_embedding_loss", "margin_ranking_loss",
           "hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
           "multi_margin_loss", "multilabel_margin_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss"]
