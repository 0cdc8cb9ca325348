"""The max or min of every window with its whole derivative on ONE element: the first extremum in
window scan order (the first NaN, if any), as PyTorch's max_pool (max_pool2d_with_indices) and
JAX's reduce_window max / min (select_and_scatter_add) do. jnp.max splits a tie's gradient
equally, as jnp.max does in JAX; a pooling layer must not.

Two reductions over the window axes where they lie (the extremum, then the flat position of the
first entry holding it, no transpose) and one `take` of those positions: the value is the chosen
entry itself (its sign of zero included) and the gradient is take's, one scatter_add of the
output's cotangent, as PyTorch's max-pool backward scatters to its saved indices. Measured on
the model benchmark's CNN (2x2/2 pools of 64x8x28x28 and 64x16x14x14): a third reduction
summing the chosen entry, differentiated into a select of the broadcast cotangent over the
window layout, made the jitted step 3.6 -> 7.0 ms (the select's 2-wide inner loops do not
vectorize); the scatter writes one value per window. The three in one process (contended VM,
pool kernels per step): that select 3.5 ms, jnp.max's tie-splitting gradient 1.9, this 1.4."""
from __future__ import annotations

import functools
import math

import numpy as np

from ..ir.types import kind_of
from .elementwise import isnan, where
from .indexing import take
from .reductions import all, any, max, min  # noqa: A004
from .shape import reshape, squeeze
from .ufuncs import add, equal, logical_or


def _offsets(shape, axes):
    """The row-major flat offsets in an array of `shape` of the indices on `axes`: one int64
    array per axis, broadcastable to `shape` (summed in the graph, so each stays small)."""
    offsets = []
    for a in axes:
        along = [1] * len(shape)
        along[a] = shape[a]
        offsets.append((np.arange(shape[a]) * math.prod(shape[a + 1:])).reshape(along))
    return offsets


def first_extremum_position(w, axes, largest=True):
    """The flat (row-major) position in w of the first max (largest) or min of w over `axes`
    (scan order row-major over them; the first NaN, if any), as int64 of the reduced shape:
    what max_pool2d_with_indices saves for its backward, in w's own layout."""
    axes = _axes(w, axes)
    ext = (max if largest else min)(w, axis=axes, keepdims=True)
    hit = equal(w, ext)
    if kind_of(w.dtype) in "fc":
        hit = logical_or(hit, isnan(w))    # a NaN is the extremum exactly when there is one
    # offsets grow in scan order, so the least offset of a hit is the first extremum's
    inner = functools.reduce(np.add, _offsets(w.shape, axes))      # the window: a few entries
    flat = min(where(hit, inner, w.size), axis=axes, keepdims=True)
    for offset in _offsets(w.shape, [a for a in range(w.ndim) if a not in axes]):
        flat = add(flat, offset)
    return squeeze(flat, axes)


def take_position(w, position):
    """w's entries at flat positions (first_extremum_position's): differentiated as a scatter."""
    return take(reshape(w, (-1,)), position, mode="promise_in_bounds")


def first_extremum(w, axes, largest=True):
    """max (largest) or min of w over `axes` (an int or a tuple; scan order row-major over them)
    whose derivative goes, whole, to the first extremum."""
    axes = _axes(w, axes)
    kind = kind_of(w.dtype)
    if kind == "b":
        return (any if largest else all)(w, axis=axes)
    if kind in "iu":        # no NaN, no signed zero, no gradient: the extremum is the entry
        return (max if largest else min)(w, axis=axes)
    return take_position(w, first_extremum_position(w, axes, largest))


def _axes(w, axes):
    return tuple(a % w.ndim for a in (axes if isinstance(axes, tuple) else (axes,)))
