"""Distances (torch.nn.functional.pairwise_distance, cosine_similarity, pdist, normalize) and
their modules PairwiseDistance and CosineSimilarity, as composites of primitives."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..numpy._convert import asarray
from .module import Module


def p_norm(x, p, axis, keepdims=False):
    """torch's vector p-norm along `axis` (p = inf: max |x|; p = 0: the count of non-zeros).
    At a zero vector its gradient is 0, torch's subgradient (sqrt's and power's chain rule
    would give NaN): the root is taken of the sum where it is non-zero only."""
    a = jnp.abs(x)
    if p == np.inf:
        return jnp.max(a, axis=axis, keepdims=keepdims)
    if p == 0:
        return jnp.sum(jnp.not_equal(a, 0).astype(x.dtype), axis=axis, keepdims=keepdims)
    if p == 1:
        return jnp.sum(a, axis=axis, keepdims=keepdims)
    if p == 2:
        total, root = jnp.sum(jnp.multiply(x, x), axis=axis, keepdims=keepdims), jnp.sqrt
    else:
        total = jnp.sum(jnp.power(a, p), axis=axis, keepdims=keepdims)
        root = lambda s: jnp.power(s, 1.0 / p)  # noqa: E731
    nonzero = jnp.not_equal(total, 0)           # NaN sums stay NaN
    return jnp.where(nonzero, root(jnp.where(nonzero, total, 1.0)), jnp.zeros((), total.dtype))


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """torch.nn.functional.pairwise_distance: ||x1 - x2 + eps||_p over the last dimension."""
    x1, x2 = asarray(x1), asarray(x2)
    d = jnp.add(jnp.subtract(x1, x2), eps)
    return p_norm(d, p, -1, keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """torch.nn.functional.cosine_similarity: <x1, x2> / (max(|x1|, eps) * max(|x2|, eps))
    along `dim`, the inputs broadcast against each other."""
    x1, x2 = asarray(x1), asarray(x2)
    n1 = jnp.maximum(p_norm(x1, 2, dim, True), eps)
    n2 = jnp.maximum(p_norm(x2, 2, dim, True), eps)
    return jnp.sum(jnp.multiply(jnp.true_divide(x1, n1), jnp.true_divide(x2, n2)), axis=dim)


def pdist(input, p=2):
    """torch.nn.functional.pdist: the p-norm distances between the rows of an (N, M) input,
    the upper triangle of the distance matrix row by row (N(N-1)/2 values)."""
    x = asarray(input)
    if x.ndim != 2:
        raise ValueError(f"pdist: expected a 2-D input (N, M), got shape {tuple(x.shape)}")
    i, j = np.triu_indices(x.shape[0], 1)
    return p_norm(jnp.subtract(jnp.take(x, i, axis=0), jnp.take(x, j, axis=0)), p, -1)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """torch.nn.functional.normalize: x / max(||x||_p, eps) along `dim`."""
    if out is not None:
        raise TypeError("normalize: out= is not supported; use the returned tensor")
    x = asarray(input)
    return jnp.true_divide(x, jnp.maximum(p_norm(x, p, dim, True), eps))


class PairwiseDistance(Module):
    """torch.nn.PairwiseDistance."""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """torch.nn.CosineSimilarity."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return cosine_similarity(x1, x2, self.dim, self.eps)


__all__ = ["pairwise_distance", "cosine_similarity", "pdist", "normalize", "PairwiseDistance",
           "CosineSimilarity"]
