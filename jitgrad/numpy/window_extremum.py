"""The max or min of every window with its whole derivative on ONE element: the first extremum in
window scan order (the first NaN, if any), as PyTorch's max_pool and JAX's reduce_window max /
min (select_and_scatter_add) do. jnp.max splits a tie's gradient equally, as jnp.max does in
JAX; a pooling layer must not. Written as three reductions over the window axes where they lie
(the extremum, the first position holding it, the entry at that position), no transpose and no
gather, so the forward and its gradient stay elementwise and reduction kernels."""
from __future__ import annotations

import math

import numpy as np

from ..ir.types import kind_of
from .elementwise import isnan, where
from .reductions import all, any, max, min, sum  # noqa: A004
from .ufuncs import equal, logical_or


def first_extremum(w, axes, largest=True):
    """max (largest) or min of w over `axes` (an int or a tuple; scan order row-major over them)
    whose derivative goes, whole, to the first extremum."""
    axes = tuple(a % w.ndim for a in (axes if isinstance(axes, tuple) else (axes,)))
    kind = kind_of(w.dtype)
    if kind == "b":
        return (any if largest else all)(w, axis=axes)
    ext = (max if largest else min)(w, axis=axes, keepdims=True)
    hit = equal(w, ext)
    if kind in "fc":
        hit = logical_or(hit, isnan(w))      # a NaN is the extremum exactly when there is one
    size = math.prod(w.shape[a] for a in axes)
    pos = np.arange(size).reshape([w.shape[a] if a in axes else 1 for a in range(w.ndim)])
    first = min(where(hit, pos, size), axis=axes, keepdims=True)
    # -0.0 adds to anything exactly (x + -0.0 == x, -0.0 included): the sum IS the chosen entry
    return sum(where(equal(pos, first), w, -0.0 if kind in "fc" else 0), axis=axes,
               dtype=w.dtype)
