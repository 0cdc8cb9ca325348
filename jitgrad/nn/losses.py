"""Losses as decompositions into primitives, stable for any logits (log_softmax is
logsumexp-based; the logistic loss uses softplus). Public through jitgrad.nn.functional."""
from __future__ import annotations

from .. import numpy as jnp
from ..trace.source_info import user_source_info
from ..ir.errors import bad_label
from ..numpy._convert import asarray
from ..numpy.checks import checked
from ..eager.tensor import Tensor
from ..transforms.autodiff import vjp
from .activations import log_softmax, log_softmax_grad, one_hot, softplus
from ..ir.types import kind_of
from .fused_eager import fused_in_eager

_REDUCE = {"mean": jnp.mean, "sum": jnp.sum, "none": lambda x: x}


def _reduce(loss, reduction, where):
    if reduction not in _REDUCE:
        raise ValueError(f"{where}: reduction must be one of {', '.join(_REDUCE)}, "
                         f"got {reduction!r}")
    return _REDUCE[reduction](loss)


def _labels(target, n_classes, ignore_index, where):
    """(one-hot of the labels, mask of the counted ones or None). A label outside
    [0, n_classes) other than ignore_index raises IndexError on every path, as in PyTorch: on
    the host when its value is known, else in the kernel of a checked `take` (ir.errors)."""
    ignored = None if ignore_index is None else jnp.equal(target, ignore_index)
    safe = target if ignored is None else jnp.where(ignored, 0, target)
    known = safe._data if isinstance(safe, Tensor) and safe.device.type == "cpu" else None
    if known is not None:
        bad = (known < 0) | (known >= n_classes)
        if bad.any():
            raise bad_label(where, known[bad].flat[0], n_classes, user_source_info())
    elif safe.device.type != "meta":
        safe = checked(safe, n_classes, f"labels:{where}")
    keep = None if ignored is None else jnp.logical_not(ignored)
    return safe, keep


def _reduce_labels(loss, keep, reduction, where):
    """The per-sample loss reduced; ignored samples (keep False) add zero and, for "mean", are
    not counted, as in PyTorch."""
    if keep is None:
        return _reduce(loss, reduction, where)
    loss = jnp.where(keep, loss, 0)
    if reduction == "mean":
        return jnp.true_divide(jnp.sum(loss), jnp.sum(keep.astype(loss.dtype)))
    return _reduce(loss, reduction, where)


def nll_loss(log_probs, target, reduction="mean", ignore_index=-100):
    """Negative log-likelihood of integer class labels `target` (N,) under log_probs (N, C).
    Labels outside [0, C) raise IndexError; those equal to ignore_index count as zero."""
    log_probs, target = asarray(log_probs), asarray(target)
    if kind_of(target.dtype) not in "iu":
        raise TypeError(f"nll_loss: expected integer class labels, got {target.dtype}")
    if log_probs.shape[:-1] != target.shape:
        raise ValueError(f"nll_loss: log_probs of shape {tuple(log_probs.shape)} needs labels of "
                         f"shape {tuple(log_probs.shape[:-1])}, got {tuple(target.shape)}")
    labels, keep = _labels(target, log_probs.shape[-1], ignore_index, "nll_loss")
    picked = jnp.sum(jnp.multiply(log_probs, one_hot(labels, log_probs.shape[-1], log_probs.dtype)),
                     axis=-1)
    return _reduce_labels(jnp.negative(picked), keep, reduction, "nll_loss")


def _loss_of_log_probs(log_probs, target, reduction, label_smoothing, ignore_index):
    """cross_entropy given log_softmax(logits): its loss as a function of the log-probabilities
    (what its backward differentiates)."""
    n_classes = log_probs.shape[-1]
    keep = None
    if kind_of(target.dtype) in "iu":
        if target.shape != log_probs.shape[:-1]:
            raise ValueError(f"cross_entropy: logits of shape {tuple(log_probs.shape)} need "
                             f"integer labels of shape {tuple(log_probs.shape[:-1])}, "
                             f"got {tuple(target.shape)}")
        labels, keep = _labels(target, n_classes, ignore_index, "cross_entropy")
        target = one_hot(labels, n_classes, log_probs.dtype)
    elif target.shape != log_probs.shape:
        raise ValueError(f"cross_entropy: probability targets must have the logits' shape "
                         f"{tuple(log_probs.shape)}, got {tuple(target.shape)}")
    target = target.astype(log_probs.dtype)
    if label_smoothing:
        target = jnp.add(jnp.multiply(target, 1.0 - label_smoothing), label_smoothing / n_classes)
    loss = jnp.negative(jnp.sum(jnp.multiply(target, log_probs), axis=-1))
    return _reduce_labels(loss, keep, reduction, "cross_entropy")


def _cross_entropy_fwd(logits, target, *options):
    """(the loss, the log-probabilities its backward reads)."""
    log_probs = log_softmax(asarray(logits), axis=-1)
    return _loss_of_log_probs(log_probs, asarray(target), *options), (log_probs,)


def _cross_entropy_bwd(args, residuals, g):
    """The loss's VJP in the saved log-probabilities, then log_softmax's from its output: no
    max, exp-sum or log of the logits again. Probability targets get their gradient too."""
    _, target, *options = args
    (log_probs,) = residuals
    if kind_of(target.dtype) in "fc":
        _, pull = vjp(lambda lp, t: _loss_of_log_probs(lp, t, *options), log_probs, target)
        g_log_probs, g_target = pull(g)
    else:
        _, pull = vjp(lambda lp: _loss_of_log_probs(lp, target, *options), log_probs)
        (g_log_probs,), g_target = pull(g), None
    return log_softmax_grad(log_probs, g_log_probs, -1), g_target


# eagerly: one compiled call once hot; under autograd the backward reads the log-probabilities
@fused_in_eager("logits", "target", fwd=_cross_entropy_fwd, bwd=_cross_entropy_bwd)
def cross_entropy(logits, target, reduction="mean", label_smoothing=0.0, ignore_index=-100):
    """Softmax cross-entropy of logits (N, C) against integer labels (N,) or class
    probabilities (N, C) (one-hot or soft). Integer labels outside [0, C) raise IndexError;
    those equal to ignore_index count as zero (PyTorch's semantics)."""
    return _cross_entropy_fwd(logits, target, reduction, label_smoothing, ignore_index)[0]


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
