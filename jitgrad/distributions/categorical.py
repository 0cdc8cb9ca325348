"""torch.distributions.Categorical: a distribution over {0, ..., K-1} given by `probs` (any
non-negative weights, normalized over the last dim) or `logits` (log-weights). Samples are
drawn like torch's (multinomial with replacement, from the default generator, so the numbers
differ from torch's); log_prob and entropy are differentiable."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..eager.tensor import Tensor
from ..nn import functional as F
from ..torch_api import broadcast_tensors, multinomial


class Categorical:
    """torch.distributions.Categorical(probs=None, logits=None, validate_args=None)."""

    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = jnp.asarray(probs if probs is not None else logits)
        if given.ndim < 1:
            raise ValueError(f"Categorical: {'probs' if probs is not None else 'logits'} must "
                             f"have at least one dimension, got shape {tuple(given.shape)}")
        if probs is not None:
            self.probs = given / given.sum(-1, keepdim=True)
            eps = float(jnp.finfo(given.dtype).eps)         # torch's clamp_probs
            self.logits = jnp.log(jnp.clip(self.probs, eps, 1.0 - eps))
        else:
            self.logits = given - F.logsumexp(given, axis=-1, keepdims=True)
            self.probs = F.softmax(self.logits, -1)
        self._validate = validate_args is not False
        if self._validate and _concrete(given) and not _valid(np.asarray(given), probs is not None):
            raise ValueError(f"Expected parameter {'probs' if probs is not None else 'logits'} "
                             f"(Tensor of shape {tuple(given.shape)}) of distribution "
                             f"Categorical to satisfy the constraint "
                             f"{'Simplex()' if probs is not None else 'IndependentConstraint(Real(), 1)'}"
                             f", but found invalid values:\n{given}")
        self.batch_shape = tuple(given.shape[:-1])
        self.event_shape = ()
        self.param_shape = tuple(given.shape)

    @property
    def support_size(self) -> int:
        """K, the number of categories (torch's private _num_events)."""
        return self.param_shape[-1]

    def sample(self, sample_shape=()):
        """Indices drawn with the given probabilities, shape sample_shape + batch_shape."""
        sample_shape = tuple(sample_shape)
        n = int(np.prod(sample_shape, dtype=np.int64))
        flat = self.probs.detach().reshape(-1, self.support_size)
        drawn = multinomial(flat, n, True).T
        return drawn.reshape(sample_shape + self.batch_shape)

    def log_prob(self, value):
        """log P(value): the normalized logits at the category `value` names."""
        value = jnp.asarray(value)
        if self._validate:
            self._check_support(value)
        value, log_pmf = broadcast_tensors(value.long().unsqueeze(-1), self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        """-sum p log p over the categories (0 log 0 counted as 0)."""
        logits = jnp.clip(self.logits, float(jnp.finfo(self.logits.dtype).min), None)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        """The categories 0..K-1, shaped (K,) + (1,)*batch dims (expanded to batch_shape)."""
        values = jnp.arange(self.support_size).reshape((-1,) + (1,) * len(self.batch_shape))
        return values.expand((-1,) + self.batch_shape) if expand else values

    def _check_support(self, value):
        if not _concrete(value):        # traced or meta: unchecked
            return
        v = np.asarray(value)
        if not np.all((v >= 0) & (v < self.support_size) & (v == np.floor(v))):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape "
                             f"{tuple(value.shape)}) to be within the support "
                             f"(IntegerInterval(lower_bound=0, upper_bound={self.support_size - 1}))"
                             f" of the distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self):
        return f"Categorical(probs: {tuple(self.probs.shape)}, logits: {tuple(self.logits.shape)})"


def _concrete(x) -> bool:
    return isinstance(x, Tensor) and x.device.type != "meta"


def _valid(a, is_probs) -> bool:
    """torch's constraints: probs non-negative with a positive finite sum, logits not NaN."""
    if not is_probs:
        return not np.isnan(a).any()
    total = a.sum(-1)
    return bool(np.all(a >= 0) and np.all(np.isfinite(total)) and np.all(total > 0))
