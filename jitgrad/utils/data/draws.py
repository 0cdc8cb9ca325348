"""The random draws of the samplers and random_split: from their `generator=` (a jg.Generator)
or else the default generator that jg.manual_seed seeds."""
from __future__ import annotations

import numpy as np

from ...eager.global_rng import rng_of


def permutation(n: int, generator=None) -> list:
    """A random order of range(n)."""
    return rng_of(generator).permutation(n).tolist()


def integers(high: int, count: int, generator=None) -> list:
    """`count` draws from range(high), with replacement."""
    return rng_of(generator).integers(0, high, count).tolist()


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
