"""searchsorted, partition/argpartition and select, built from comparisons, reductions and sorts
so they trace, fuse and batch like any other composite."""
from __future__ import annotations

import numpy as np

from ._convert import asarray, normalize_axis, operands
from .elementwise import isnan, logical_not, where
from .indexing import take
from .reductions import argsort, sort, sum  # noqa: A004
from .shape import expand_dims
from .ufuncs import less, less_equal, logical_and, logical_or
from ..ir.types import kind_of


def _before(a, v, side):
    """a[i] sorts before v (side="left": strictly; "right": or equal), in NumPy's order where
    NaN is larger than every number."""
    if side == "left":
        return logical_or(less(a, v), logical_and(isnan(v), logical_not(isnan(a))))
    return logical_or(less_equal(a, v), isnan(v))


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Indices where the values x2 would be inserted into the sorted 1-d x1 to keep it sorted
    (NumPy's and the standard's searchsorted): a count of the elements before each value."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    a, v = operands(x1, x2)
    if a.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be 1-d, got shape {a.shape}")
    if sorter is not None:
        a = take(a, sorter)
    return sum(_before(a, expand_dims(v, -1), side), axis=-1)


def partition(a, kth, axis=-1):
    """The k-th element in its sorted place, smaller ones before it, larger ones after: a full
    sort satisfies NumPy's contract (which leaves the order within each side unspecified)."""
    x = asarray(a)
    _check_kth(x, kth, axis)
    return sort(x, axis=axis)


def argpartition(a, kth, axis=-1):
    """numpy.argpartition: perform an indirect partition along the given axis using the algorithm
    specified by the `kind` keyword."""
    x = asarray(a)
    _check_kth(x, kth, axis)
    return argsort(x, axis=axis)


def _check_kth(x, kth, axis):
    n = x.shape[normalize_axis(axis, x.ndim)]
    for k in np.atleast_1d(kth):
        if not -n <= int(k) < n:
            raise ValueError(f"kth(={int(k)}) out of bounds ({n})")


def select(condlist, choicelist, default=0):
    """choicelist[i] where condlist[i] is the first true condition, else default (NumPy's)."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"select: list of cases must be same length as list of conditions "
                         f"({len(choicelist)} choices, {len(condlist)} conditions)")
    if not condlist:
        raise ValueError("select: select with an empty condition list is not possible")
    out = default
    for c, v in reversed(list(zip(condlist, choicelist))):
        c = asarray(c)
        if kind_of(c.dtype) != "b":
            raise TypeError(f"select: invalid entry in condlist: should be boolean ndarray, "
                            f"got {c.dtype}")
        out = where(c, v, out)
    return asarray(out)
