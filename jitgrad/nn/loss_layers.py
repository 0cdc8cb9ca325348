"""torch.nn's loss modules: each holds torch's options (the deprecated size_average/reduce
folded into `reduction`; class weights as buffers, as in PyTorch) and calls its functional form
(losses.py, loss_fns.py)."""
from __future__ import annotations

from . import loss_fns as LF
from . import losses as L
from ..numpy._convert import asarray
from .layers import Linear
from .module import Module


def _tensor_or_none(value):
    """A buffer value: None, or a tensor (numbers and arrays converted, beyond PyTorch)."""
    return None if value is None else asarray(value)


class _Loss(Module):
    """A loss whose forward is fn(input, target, reduction=..., **options)."""
    fn = staticmethod(L.mse_loss)

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = L.legacy_reduction(size_average, reduce, reduction)

    def options(self):
        return {}

    def forward(self, input, target):
        return type(self).fn(input, target, reduction=self.reduction, **self.options())

    def extra_repr(self):
        return "" if self.reduction == "mean" else f"reduction={self.reduction!r}"


class MSELoss(_Loss):
    """torch.nn.MSELoss: mean squared error."""
    fn = staticmethod(L.mse_loss)


class L1Loss(_Loss):
    """torch.nn.L1Loss: mean absolute error."""
    fn = staticmethod(L.l1_loss)


class SoftMarginLoss(_Loss):
    """torch.nn.SoftMarginLoss: log(1 + exp(-y x))."""
    fn = staticmethod(LF.soft_margin_loss)


class MultiLabelMarginLoss(_Loss):
    """torch.nn.MultiLabelMarginLoss: the hinge between each target and each non-target."""
    fn = staticmethod(LF.multilabel_margin_loss)


class HuberLoss(_Loss):
    """torch.nn.HuberLoss(reduction, delta)."""
    fn = staticmethod(LF.huber_loss)

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def options(self):
        return {"delta": self.delta}


class SmoothL1Loss(_Loss):
    """torch.nn.SmoothL1Loss(size_average, reduce, reduction, beta)."""
    fn = staticmethod(LF.smooth_l1_loss)

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def options(self):
        return {"beta": self.beta}


class KLDivLoss(_Loss):
    """torch.nn.KLDivLoss(size_average, reduce, reduction, log_target)."""
    fn = staticmethod(LF.kl_div)

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def options(self):
        return {"log_target": self.log_target}


class PoissonNLLLoss(_Loss):
    """torch.nn.PoissonNLLLoss(log_input, full, size_average, eps, reduce, reduction)."""
    fn = staticmethod(LF.poisson_nll_loss)

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def options(self):
        return {"log_input": self.log_input, "full": self.full, "eps": self.eps}


class GaussianNLLLoss(_Loss):
    """torch.nn.GaussianNLLLoss(full, eps, reduction); forward(input, target, var)."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return LF.gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)


class _WeightedLoss(_Loss):
    """A loss with a per-class `weight` buffer (torch's _WeightedLoss)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", _tensor_or_none(weight))

    def options(self):
        return {"weight": self.weight}


class BCELoss(_WeightedLoss):
    """torch.nn.BCELoss: binary cross-entropy of probabilities."""
    fn = staticmethod(LF.binary_cross_entropy)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """torch.nn.MultiLabelSoftMarginLoss: per-class logistic losses averaged over classes."""
    fn = staticmethod(LF.multilabel_soft_margin_loss)


class BCEWithLogitsLoss(_WeightedLoss):
    """torch.nn.BCEWithLogitsLoss(weight, size_average, reduce, reduction, pos_weight); weight
    and pos_weight are buffers."""
    fn = staticmethod(L.binary_cross_entropy_with_logits)

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(weight, size_average, reduce, reduction)
        self.register_buffer("pos_weight", _tensor_or_none(pos_weight))

    def options(self):
        return {"weight": self.weight, "pos_weight": self.pos_weight}


class MultiMarginLoss(_WeightedLoss):
    """torch.nn.MultiMarginLoss(p, margin, weight, size_average, reduce, reduction)."""
    fn = staticmethod(LF.multi_margin_loss)

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        if p not in (1, 2):
            raise ValueError(f"MultiMarginLoss: p must be 1 or 2, got {p}")
        super().__init__(weight, size_average, reduce, reduction)
        self.p, self.margin = p, margin

    def options(self):
        return {"p": self.p, "margin": self.margin, "weight": self.weight}


class NLLLoss(_WeightedLoss):
    """torch.nn.NLLLoss: F.nll_loss with its options; `weight` is a buffer, as in PyTorch."""
    fn = staticmethod(L.nll_loss)

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def options(self):
        return {"weight": self.weight, "ignore_index": self.ignore_index}


class NLLLoss2d(NLLLoss):
    """torch.nn.NLLLoss2d: the deprecated name of NLLLoss for (N, C, H, W) inputs."""


class CrossEntropyLoss(NLLLoss):
    """torch.nn.CrossEntropyLoss: F.cross_entropy with its options."""
    fn = staticmethod(L.cross_entropy)

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
        self.label_smoothing = label_smoothing

    def options(self):
        return dict(super().options(), label_smoothing=self.label_smoothing)


class _PairLoss(_Loss):
    """A loss of (input1, input2, target) with a margin."""
    fn = staticmethod(LF.margin_ranking_loss)

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return type(self).fn(input1, input2, target, self.margin, reduction=self.reduction)


class MarginRankingLoss(_PairLoss):
    """torch.nn.MarginRankingLoss: max(0, -y (x1 - x2) + margin)."""


class CosineEmbeddingLoss(_PairLoss):
    """torch.nn.CosineEmbeddingLoss: 1 - cos or max(0, cos - margin) by the target's sign."""
    fn = staticmethod(LF.cosine_embedding_loss)


class HingeEmbeddingLoss(_Loss):
    """torch.nn.HingeEmbeddingLoss(margin=1.0, ...)."""
    fn = staticmethod(LF.hinge_embedding_loss)

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def options(self):
        return {"margin": self.margin}


class TripletMarginLoss(_Loss):
    """torch.nn.TripletMarginLoss(margin, p, eps, swap, ...); forward(anchor, pos, neg)."""

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: margin must be greater than 0, got {margin}")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return LF.triplet_margin_loss(anchor, positive, negative, self.margin, self.p, self.eps,
                                      self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """torch.nn.TripletMarginWithDistanceLoss(distance_function, margin, swap, reduction)."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: margin must be greater than 0, "
                             f"got {margin}")
        self.distance_function, self.margin, self.swap = distance_function, margin, swap

    def forward(self, anchor, positive, negative):
        return LF.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class LinearCrossEntropyLoss(_WeightedLoss):
    """torch.nn.LinearCrossEntropyLoss(in_features, num_classes, *, bias=False, ...): a Linear
    projection (`linear`) to class logits and the cross-entropy (out_features=() only)."""

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None,
                 dtype=None, reduction="mean", weight=None, ignore_index=None,
                 label_smoothing=0.0, options=None):
        if tuple(out_features):
            raise ValueError(f"LinearCrossEntropyLoss: only out_features=() is supported, got "
                             f"{out_features!r}")
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"LinearCrossEntropyLoss: label_smoothing must be in [0, 1], got "
                             f"{label_smoothing}")
        super().__init__(weight, reduction=reduction)
        self.num_classes, self.out_features = int(num_classes), ()
        self.ignore_index, self.label_smoothing, self.options_ = ignore_index, label_smoothing, \
            options
        self.linear = Linear(in_features, num_classes, bias=bias, dtype=dtype)

    def forward(self, input, target):
        return LF.linear_cross_entropy(input, self.linear.weight, target,
                                       linear_bias=self.linear.bias, weight=self.weight,
                                       reduction=self.reduction, ignore_index=self.ignore_index,
                                       label_smoothing=self.label_smoothing)


__all__ = ["LinearCrossEntropyLoss", "MSELoss", "L1Loss", "SoftMarginLoss",
           "MultiLabelMarginLoss", "HuberLoss", "SmoothL1Loss", "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss", "BCELoss",
           "MultiLabelSoftMarginLoss", "BCEWithLogitsLoss", "MultiMarginLoss", "NLLLoss",
           "NLLLoss2d", "CrossEntropyLoss", "MarginRankingLoss", "CosineEmbeddingLoss",
           "HingeEmbeddingLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss"]
