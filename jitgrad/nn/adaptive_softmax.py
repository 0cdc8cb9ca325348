"""torch.nn.AdaptiveLogSoftmaxWithLoss (Grave et al., efficient softmax approximation): a head
over the frequent classes plus one token per cluster, and a low-rank tail per cluster. Every
sample's full log-probabilities are computed densely (the head's and every tail's log_softmax),
then the target's is picked: the same values and gradients as torch's routed computation, with
no data-dependent shapes, so it runs under jit and vmap."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import numpy as jnp
from ..eager.tensor import Tensor
from ..numpy._convert import asarray
from . import activations as A
from .layers import Linear, ModuleList, Sequential
from .module import Module


class ASMoutput(NamedTuple):
    """(output: the target's log-probability per sample, loss: their negated mean)."""
    output: object
    loss: object


class AdaptiveLogSoftmaxWithLoss(Module):
    """torch.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, div_value=4.0,
    head_bias=False): forward(input, target) -> (output, loss); log_prob(input); predict."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if (not cutoffs or cutoffs != sorted(cutoffs) or min(cutoffs) <= 0
                or max(cutoffs) > n_classes - 1 or len(set(cutoffs)) != len(cutoffs)
                or any(int(c) != c for c in cutoffs)):
            raise ValueError("AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of unique, "
                             "positive integers sorted in an increasing order, where each value "
                             f"is between 1 and n_classes-1, got {cutoffs}")
        self.in_features, self.n_classes = int(in_features), int(n_classes)
        self.cutoffs = tuple(cutoffs) + (self.n_classes,)
        self.div_value, self.head_bias = float(div_value), bool(head_bias)
        self.shortlist_size, self.n_clusters = self.cutoffs[0], len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(self.in_features, self.head_size, bias=self.head_bias, dtype=dtype)
        self.tail = ModuleList([
            Sequential(Linear(self.in_features, int(self.in_features // (self.div_value
                                                                         ** (i + 1))),
                              bias=False, dtype=dtype),
                       Linear(int(self.in_features // (self.div_value ** (i + 1))),
                              self.cutoffs[i + 1] - self.cutoffs[i], bias=False, dtype=dtype))
            for i in range(self.n_clusters)])

    def log_prob(self, input):
        """(N, n_classes) (or (n_classes,)) log-probabilities of every class."""
        head = A.log_softmax(self.head(input), -1)
        parts = [head[..., :self.shortlist_size]]
        for i, cluster in enumerate(self.tail):
            parts.append(jnp.add(A.log_softmax(cluster(input), -1),
                                 head[..., self.shortlist_size + i:self.shortlist_size + i + 1]))
        return jnp.concatenate(parts, axis=-1)

    def predict(self, input):
        """The most likely class of each sample."""
        return jnp.argmax(self.log_prob(input), axis=-1)

    def forward(self, input, target):
        x, t = asarray(input), asarray(target)
        if x.ndim not in (1, 2) or t.ndim != x.ndim - 1 or (x.ndim == 2 and
                                                             t.shape[0] != x.shape[0]):
            raise ValueError(f"AdaptiveLogSoftmaxWithLoss: expected input (N, in_features) with "
                             f"target (N,), or input (in_features,) with a 0-d target, got "
                             f"{tuple(x.shape)} and {tuple(t.shape)}")
        if isinstance(t, Tensor) and t.device.type == "cpu":
            known = np.asarray(t._host("AdaptiveLogSoftmaxWithLoss"))
            if ((known < 0) | (known >= self.n_classes)).any():
                raise IndexError(f"AdaptiveLogSoftmaxWithLoss: target values should be in "
                                 f"[0, {self.n_classes - 1}], got {known.min()} to "
                                 f"{known.max()}")
        full = self.log_prob(x)
        picked = jnp.take_along_axis(full, jnp.expand_dims(t.astype("int64"), -1), axis=-1)
        output = picked[..., 0]
        return ASMoutput(output, jnp.mean(jnp.negative(output)))

    def extra_repr(self):
        return (f"in_features={self.in_features}, n_classes={self.n_classes}, "
                f"cutoffs={self.cutoffs[:-1]}, div_value={self.div_value}")


__all__ = ["AdaptiveLogSoftmaxWithLoss", "ASMoutput"]
