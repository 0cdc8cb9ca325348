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
from ..transforms.fused_eager import fused_in_eager

_REDUCE = {"mean": jnp.mean, "sum": jnp.sum, "none": lambda x: x}


def reduce_loss(loss, reduction, where):
    """The loss reduced as torch's `reduction` says: "mean", "sum" or "none"."""
    if reduction not in _REDUCE:
        raise ValueError(f"{where}: reduction must be one of {', '.join(_REDUCE)}, "
                         f"got {reduction!r}")
    return _REDUCE[reduction](loss)


def legacy_reduction(size_average, reduce, reduction):
    """PyTorch's deprecated size_average/reduce pair as a reduction when either is given
    (torch.nn._reduction.legacy_get_string)."""
    if size_average is None and reduce is None:
        return reduction
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def _class_axis(x, where):
    """The class axis of a loss input, as PyTorch reads it: (C), (N, C) or (N, C, d1, ..., dk)."""
    if x.ndim == 0:
        raise ValueError(f"{where}: expected an input of shape (C), (N, C) or "
                         "(N, C, d1, ..., dk), got a 0-d input")
    return 0 if x.ndim == 1 else 1


def _classes_last(x, axis):
    return x if axis == x.ndim - 1 else jnp.moveaxis(x, axis, -1)


def _labels(target, n_classes, ignore_index, where):
    """(the labels with ignored ones set to 0, mask of the counted ones or None). A label
    outside [0, n_classes) other than ignore_index raises IndexError on every path, as in
    PyTorch: on the host when its value is known, else in the kernel of a checked `take`."""
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


def _class_weight(weight, n_classes, dtype, where):
    if weight is None:
        return None
    weight = asarray(weight)
    if weight.shape != (n_classes,):
        raise ValueError(f"{where}: weight should hold one value per class, shape "
                         f"({n_classes},), got shape {tuple(weight.shape)}")
    return weight.astype(dtype)


def _loss_of_log_probs(log_probs, target, weight, ignore_index, reduction, label_smoothing,
                       where="cross_entropy"):
    """PyTorch's cross_entropy given log_softmax(input) along the class axis (nll_loss is the
    case of class labels without smoothing): -sum_c w_c t_c log p_c per sample, where t is the
    one-hot label or the probability target, smoothed. "mean" divides class-label losses by
    the summed weight of the counted labels, probability-target losses by the sample count."""
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"{where}: label_smoothing must be in [0, 1], got {label_smoothing}")
    axis = _class_axis(log_probs, where)
    shape, dtype = tuple(log_probs.shape), log_probs.dtype
    n_classes, label_shape = shape[axis], shape[:axis] + shape[axis + 1:]
    log_probs = _classes_last(log_probs, axis)
    weight = _class_weight(weight, n_classes, dtype, where)
    labels = kind_of(target.dtype) in "iu"
    if labels:
        if tuple(target.shape) != label_shape:
            raise ValueError(f"{where}: an input of shape {shape} (classes on dim {axis}) needs "
                             f"class labels of shape {label_shape}, got {tuple(target.shape)}")
        target, keep = _labels(target, n_classes, ignore_index, where)
        target = one_hot(target, n_classes, dtype)
        counted = None if weight is None else jnp.sum(jnp.multiply(target, weight), axis=-1)
    elif tuple(target.shape) != shape:
        raise ValueError(f"{where}: probability targets must have the input's shape {shape}, "
                         f"got {tuple(target.shape)}")
    else:
        target = _classes_last(target.astype(dtype), axis)
    if label_smoothing:
        target = jnp.add(jnp.multiply(target, 1.0 - label_smoothing), label_smoothing / n_classes)
    if weight is not None:
        target = jnp.multiply(target, weight)
    loss = jnp.negative(jnp.sum(jnp.multiply(target, log_probs), axis=-1))
    if not labels:
        return reduce_loss(loss, reduction, where)
    if keep is not None:
        loss = jnp.where(keep, loss, 0)
        counted = keep.astype(dtype) if counted is None else jnp.where(keep, counted, 0)
    if reduction != "mean" or counted is None:
        return reduce_loss(loss, reduction, where)
    return jnp.true_divide(jnp.sum(loss), jnp.sum(counted))


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """torch.nn.functional.nll_loss: log-probabilities `input` of shape (C), (N, C) or
    (N, C, d1, ..., dk) (classes on dim 1), integer class labels `target` of shape (), (N) or
    (N, d1, ..., dk). Labels outside [0, C) raise IndexError; those equal to ignore_index add
    zero and are not counted; `weight` (C,) scales each class's loss."""
    input, target = asarray(input), asarray(target)
    if kind_of(target.dtype) not in "iu":
        raise TypeError(f"nll_loss: expected integer class labels, got {target.dtype}")
    return _loss_of_log_probs(input, target, weight, ignore_index,
                              legacy_reduction(size_average, reduce, reduction), 0.0, "nll_loss")


def _cross_entropy_fwd(input, target, weight, size_average, ignore_index, reduce, reduction,
                       label_smoothing):
    """(the loss, the log-probabilities its backward reads)."""
    input = asarray(input)
    log_probs = log_softmax(input, axis=_class_axis(input, "cross_entropy"))
    loss = _loss_of_log_probs(log_probs, asarray(target), weight, ignore_index,
                              legacy_reduction(size_average, reduce, reduction), label_smoothing)
    return loss, (log_probs,)


def _cross_entropy_bwd(args, residuals, g):
    """The loss's VJP in the saved log-probabilities, then log_softmax's from its output: no
    max, exp-sum or log of the logits again. Probability targets get their gradient too."""
    _, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing = args
    (log_probs,) = residuals
    options = (ignore_index, legacy_reduction(size_average, reduce, reduction), label_smoothing)
    if kind_of(target.dtype) in "fc":
        _, pull = vjp(lambda lp, t: _loss_of_log_probs(lp, t, weight, *options), log_probs,
                      target)
        g_log_probs, g_target = pull(g)
    else:
        _, pull = vjp(lambda lp: _loss_of_log_probs(lp, target, weight, *options), log_probs)
        (g_log_probs,), g_target = pull(g), None
    axis = _class_axis(log_probs, "cross_entropy")
    return log_softmax_grad(log_probs, g_log_probs, axis), g_target, None


# eagerly: one compiled call once hot; under autograd the backward reads the log-probabilities
@fused_in_eager("input", "target", "weight", fwd=_cross_entropy_fwd, bwd=_cross_entropy_bwd)
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """torch.nn.functional.cross_entropy: softmax cross-entropy of logits `input` of shape (C),
    (N, C) or (N, C, d1, ..., dk) (classes on dim 1) against integer class labels of the
    input's shape without its class dim, or class probabilities of the input's shape. Labels
    outside [0, C) raise IndexError; those equal to ignore_index add zero and are not counted;
    `weight` (C,) scales each class's loss ("mean" then divides by the labels' summed weight)."""
    return _cross_entropy_fwd(input, target, weight, size_average, ignore_index, reduce,
                              reduction, label_smoothing)[0]


def _weighted_mean(loss, weight, reduction, where):
    """torch's weighted mse/l1: the weighted losses, their sum, or that sum over sum(weight)."""
    loss = jnp.multiply(loss, weight)
    if reduction == "mean":
        return jnp.true_divide(jnp.sum(loss), jnp.sum(weight))
    return reduce_loss(loss, reduction, where)


def _elementwise_loss(fn, where):
    """A loss of input - target with torch's (size_average, reduce, reduction, weight)."""
    def loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
        reduction = legacy_reduction(size_average, reduce, reduction)
        input = asarray(input)
        value = fn(jnp.subtract(input, target))
        if weight is None:
            return reduce_loss(value, reduction, where)
        weight = asarray(weight)
        if tuple(weight.shape) != tuple(input.shape):
            raise ValueError(f"{where}: weight must have the input's shape {tuple(input.shape)}, "
                             f"got {tuple(weight.shape)}")
        return _weighted_mean(value, weight, reduction, where)
    loss.__name__ = loss.__qualname__ = where
    loss.__doc__ = (f"torch.nn.functional.{where}; a `weight` of the input's shape scales each "
                    f"element and \"mean\" divides by its sum.")
    return loss


mse_loss = _elementwise_loss(lambda d: jnp.multiply(d, d), "mse_loss")
l1_loss = _elementwise_loss(jnp.abs, "l1_loss")


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """torch.nn.functional.binary_cross_entropy_with_logits, in torch's argument order:
    -[y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))] = softplus(x) - x*y, with `pos_weight`
    on the positive term, (1 + (w - 1) y) softplus(-x) + (1 - y) x, and `weight` on the whole."""
    if isinstance(weight, str):
        raise TypeError(f"binary_cross_entropy_with_logits: weight must be a tensor or None, got "
                        f"{weight!r}; pass reduction={weight!r} by keyword (torch's order: input, "
                        f"target, weight, size_average, reduce, reduction, pos_weight)")
    reduction = legacy_reduction(size_average, reduce, reduction)
    logits = asarray(input)
    target = asarray(target).astype(logits.dtype)
    if pos_weight is None:
        loss = jnp.subtract(softplus(logits), jnp.multiply(logits, target))
    else:
        log_weight = jnp.add(jnp.multiply(jnp.subtract(pos_weight, 1.0), target), 1.0)
        loss = jnp.add(jnp.multiply(log_weight, softplus(jnp.negative(logits))),
                       jnp.multiply(jnp.subtract(1.0, target), logits))
    if weight is not None:
        loss = jnp.multiply(loss, weight)
    return reduce_loss(loss, reduction, "binary_cross_entropy_with_logits")


__all__ = ["reduce_loss", "legacy_reduction", "nll_loss", "cross_entropy", "mse_loss", "l1_loss",
           "binary_cross_entropy_with_logits"]
