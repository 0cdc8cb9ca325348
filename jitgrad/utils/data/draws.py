"""The random draws of the samplers and random_split, through jg.randperm / jg.randint as torch's
go through torch.randperm / torch.randint: from their `generator=` (a jg.Generator) or else the
default generator that jg.manual_seed seeds."""
from __future__ import annotations

import numpy as np

from ...eager.global_rng import rng_of


def _jg():
    import jitgrad      # lazy: this module loads from jitgrad.__getattr__, inside that import
    return jitgrad


def permutation(n: int, generator=None) -> list:
    """A random order of range(n)."""
    return _jg().randperm(n, generator=generator).tolist()


def integers(high: int, count: int, generator=None) -> list:
    """`count` draws from range(high), with replacement."""
    return _jg().randint(0, high, (count,), generator=generator).tolist()


def weighted(weights, count: int, replacement: bool, generator=None) -> list:
    """`count` indices drawn with probability proportional to `weights`."""
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.size == 0 or (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
        raise ValueError(f"WeightedRandomSampler: weights must be a non-empty sequence of finite, "
                         f"non-negative numbers with a positive sum, got {w.tolist()[:8]}")
    if not replacement and count > np.count_nonzero(w):
        raise ValueError(f"WeightedRandomSampler: cannot draw {count} samples without "
                         f"replacement from {np.count_nonzero(w)} non-zero weights")
    return rng_of(generator).choice(w.size, count, replace=replacement, p=w / w.sum()).tolist()
