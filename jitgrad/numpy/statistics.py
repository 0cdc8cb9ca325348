"""Covariance, correlation, counting and histograms with NumPy's / jax.numpy's names: cov,
corrcoef, bincount, digitize, histogram_bin_edges, histogram, histogram2d, histogramdd. Counts are
scatter-adds, so weights get derivatives; bincount's `length` fixes the result size under jit."""
from __future__ import annotations

import builtins
import math

from ..dtypes import default_float
from ..errors import ConcretizationError
from ..ir.types import kind_of
from ._convert import asarray, astype
from .creation import ones_like, zeros
from .elementwise import clip, true_divide, where
from .host_values import concrete
from .products import diagonal, matmul
from .reductions import max, min, sum  # noqa: A004
from .searching import searchsorted
from .shape import atleast_2d, concatenate, flip, reshape, slice_axis, stack
from .spaced import linspace
from .complex_parts import conj
from .ufuncs import equal, multiply, sqrt, subtract


def _float(a):
    x = asarray(a)
    return x if kind_of(x.dtype) in "fc" else astype(x, default_float())


def _ravel_float(a):
    return reshape(_float(a), (-1,))


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
    """numpy.cov: the covariance matrix of the variables in m's rows (columns if not rowvar),
    with frequency and analytic weights as NumPy."""
    x = atleast_2d(_float(m))
    if x.ndim > 2:
        raise ValueError(f"cov: m has more than 2 dimensions (shape {x.shape})")
    x = x if rowvar or x.shape[0] == 1 and m is not None and asarray(m).ndim == 1 else x.T
    if y is not None:
        yy = atleast_2d(_float(y))
        x = concatenate([x, yy if rowvar or yy.shape[0] == 1 and asarray(y).ndim == 1
                         else yy.T], axis=0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    n = x.shape[1]
    w = None
    for weights in (fweights, aweights):
        if weights is not None:
            wt = asarray(weights, dtype=x.dtype)
            if wt.shape != (n,):
                raise ValueError(f"cov: weights must have shape ({n},), got {wt.shape}")
            w = wt if w is None else multiply(w, wt)
    if w is None:
        w = ones_like(x[0])
    w_sum = sum(w)
    avg = true_divide(sum(multiply(x, w), axis=1), w_sum)
    if aweights is None:
        fact = subtract(w_sum, ddof)
    else:
        aw = asarray(aweights, dtype=x.dtype)
        fact = subtract(w_sum, true_divide(multiply(ddof, sum(multiply(w, aw))), w_sum))
    xc = subtract(x, avg[:, None])
    c = true_divide(matmul(multiply(xc, w), conj(xc).T), fact)
    return c[0, 0] if c.shape == (1, 1) and (m is None or asarray(m).ndim == 1) and y is None \
        else c


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """numpy.corrcoef: Pearson correlation coefficients, the covariance scaled by the standard
    deviations and clipped to [-1, 1] (real inputs)."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return true_divide(c, c)
    d = sqrt(diagonal(c).real if kind_of(c.dtype) == "c" else diagonal(c))
    c = true_divide(true_divide(c, d[:, None]), d[None, :])
    c = c if kind_of(c.dtype) == "c" else clip(c, -1, 1)
    return c if dtype is None else astype(c, dtype)


def bincount(x, weights=None, minlength=0, *, length=None):
    """numpy.bincount with jax.numpy's `length`: the count (or weight sum) of each value in the
    1-d non-negative integer array x. Eagerly the length is max(x) + 1 (at least minlength);
    under jit pass `length=`: values past it are dropped and negative values count as 0, as JAX."""
    x = asarray(x)
    if kind_of(x.dtype) not in "iub":
        raise TypeError(f"bincount: x must be an integer array, got {x.dtype}")
    if x.ndim != 1:
        raise ValueError(f"bincount: x must be 1-d, got shape {x.shape}")
    if length is None:
        c = concrete(x)
        if c is None:
            raise ConcretizationError("bincount: the result length depends on the values of x; "
                                      "under jit pass length= (as jax.numpy.bincount)")
        if c.size and c.min() < 0:
            raise ValueError("bincount: x must hold non-negative values")
        length = builtins.max(minlength, int(c.max()) + 1 if c.size else 0)
    w = asarray(1) if weights is None else asarray(weights)
    if weights is not None and w.shape != x.shape:
        raise ValueError(f"bincount: weights must have x's shape {x.shape}, got {w.shape}")
    v = w if weights is not None else ones_like(x, dtype="int64")
    return zeros(length, v.dtype).at[clip(x, 0)].add(v, mode="drop")



def digitize(x, bins, right=False):
    """numpy.digitize: the index of the bin each x falls in, for increasing or decreasing bins."""
    b = asarray(bins)
    if b.ndim != 1:
        raise ValueError(f"digitize: bins must be 1-d, got shape {b.shape}")
    side = "left" if right else "right"
    if b.shape[0] == 0:
        return zeros(asarray(x).shape, "int64")
    up = searchsorted(b, x, side=side)
    down = subtract(b.shape[0], searchsorted(flip(b), x, side=side))
    return where(b[-1] >= b[0], up, down)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """numpy.histogram_bin_edges for a bin count or explicit edges (string rules are NumPy-only):
    equal bins over range (default: the data's min and max, widened by 0.5 when equal)."""
    if isinstance(bins, str):
        raise NotImplementedError(f"histogram_bin_edges: string bins ({bins!r}) are not "
                                  "supported; pass a bin count or the edges")
    x = _float(a)
    if not isinstance(bins, int):
        b = asarray(bins)
        if b.ndim != 1:
            raise ValueError(f"histogram: bins must be an int or a 1-d array, got shape {b.shape}")
        return b
    if bins < 1:
        raise ValueError(f"histogram: bins must be positive, got {bins}")
    lo, hi = (min(x), max(x)) if range is None else (asarray(range[0], dtype=x.dtype),
                                                      asarray(range[1], dtype=x.dtype))
    same = equal(lo, hi)
    lo, hi = where(same, subtract(lo, 0.5), lo), where(same, hi + 0.5, hi)
    return linspace(lo, hi, bins + 1)


def _bin_index(x, edges):
    """1 + the bin of each value (0 below the edges, len(edges) above), the last bin closed."""
    i = searchsorted(edges, x, side="right")
    return where(equal(x, edges[-1]), edges.shape[0] - 1, i)


def _density(counts, widths):
    return true_divide(true_divide(counts, widths), sum(counts))


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """numpy.histogram: (counts, edges); counts are in the weights' float dtype as in JAX."""
    x = _ravel_float(a)
    edges = histogram_bin_edges(x, bins, range)
    w = ones_like(x) if weights is None else reshape(asarray(weights), (-1,))
    counts = zeros(edges.shape[0] + 1, w.dtype).at[_bin_index(x, edges)].add(w)
    counts = counts[1:-1]
    if density:
        counts = _density(counts, subtract(edges[1:], edges[:-1]))
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """numpy.histogramdd for an (N, D) sample: (counts of shape nbins per dimension, edges)."""
    s = _float(sample)
    if s.ndim == 1:
        s = s[:, None]
    d = s.shape[1]
    bins = [bins] * d if isinstance(bins, int) or asarray(bins).ndim == 1 and not \
        isinstance(bins, (list, tuple)) else list(bins)
    if len(bins) != d:
        raise ValueError(f"histogramdd: bins must have one entry per dimension ({d}), "
                         f"got {len(bins)}")
    ranges = [None] * d if range is None else list(range)
    edges = [histogram_bin_edges(s[:, i], bins[i], ranges[i]) for i in builtins.range(d)]
    shape = tuple(e.shape[0] + 1 for e in edges)
    flat = zeros(s.shape[0], "int64")
    for i, e in enumerate(edges):
        flat = flat * shape[i] + astype(_bin_index(s[:, i], e), "int64")
    w = ones_like(s[:, 0]) if weights is None else asarray(weights)
    counts = reshape(zeros(math.prod(shape), w.dtype).at[flat].add(w), shape)
    for ax in builtins.range(d):
        counts = slice_axis(counts, ax, 1, shape[ax] - 1)
    if density:
        widths = None
        for ax, e in enumerate(edges):
            wd = subtract(e[1:], e[:-1])
            wd = reshape(wd, tuple(-1 if i == ax else 1 for i in builtins.range(d)))
            widths = wd if widths is None else multiply(widths, wd)
        counts = _density(counts, widths)
    return counts, edges



def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """numpy.histogram2d: (counts, xedges, yedges)."""
    if not isinstance(bins, int) and len(bins) != 2 and asarray(bins).ndim == 1:
        bins = [bins, bins]
    counts, (ex, ey) = histogramdd(stack([_ravel_float(x), _ravel_float(y)], axis=1), bins,
                                   range, weights, density)
    return counts, ex, ey

