"""NumPy's set functions on flattened arrays: isin, union1d, intersect1d, setdiff1d, setxor1d.
Their results are sorted unique values, whose count depends on the data: eagerly it is known;
under jit pass `size=` (and optionally `fill_value=`), as in jax.numpy. Every one is a sort,
a first-occurrence mask and a compaction, so they trace and batch like other composites."""
from __future__ import annotations

from ..errors import ConcretizationError
from ._convert import asarray, operands
from .creation import zeros
from .elementwise import logical_not, where
from .host_values import concrete
from .indexing import take
from .reductions import any, argmax, argsort, cumsum, sum  # noqa: A004
from .shape import concatenate, ravel
from .spaced import arange
from .ufuncs import equal, logical_and, logical_xor, not_equal, subtract


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """numpy.isin: whether each element occurs in test_elements (elementwise, element's shape)."""
    e, t = operands(element, test_elements)
    hit = any(equal(e[..., None], ravel(t)), axis=-1)
    return logical_not(hit) if invert else hit


def _sorted_firsts(x):
    """(x flattened and sorted, the order that sorts it, True at each value's first place)."""
    x = ravel(asarray(x))
    order = argsort(x)
    s = take(x, order)
    first = concatenate([asarray([True]), not_equal(s[1:], s[:-1])]) if s.shape[0] else \
        asarray([], dtype=bool)
    return s, order, first


def compacted(values, keep, size, fill_value, name, default_fill="min"):
    """values[keep] (in order) padded to `size` with fill_value: the first kept value by default
    ("min": the values are sorted), else 0. Without size the kept count must be known."""
    if size is None:
        k = concrete(keep)
        if k is None:
            raise ConcretizationError(f"{name}: the result size depends on the values; under jit "
                                      f"pass size= (and fill_value=), as in jax.numpy.{name}")
        size = int(k.sum())
    n = values.shape[0]
    slot = where(keep, subtract(cumsum(keep), 1), size)
    # each kept slot is written once, so a scatter-add is a set
    picked = zeros(size, "int64").at[slot].add(arange(n), mode="drop")
    out = take(values, picked, mode="clip") if n else zeros(size, values.dtype)
    count = sum(keep)
    if fill_value is None:
        fill_value = 0 if default_fill == "zero" or not size else \
            where(count > 0, out[0], 0)
    return where(arange(size) < count, out, fill_value), picked


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """numpy.union1d: the sorted unique values in either array."""
    a, b = operands(ar1, ar2)
    s, _, first = _sorted_firsts(concatenate([ravel(a), ravel(b)]))
    return compacted(s, first, size, fill_value, "union1d")[0]


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """numpy.setdiff1d: the sorted unique values of ar1 not in ar2 (padding: 0, as JAX)."""
    a, b = operands(ar1, ar2)
    s, _, first = _sorted_firsts(a)
    keep = logical_and(first, isin(s, b, invert=True))
    return compacted(s, keep, size, fill_value, "setdiff1d", "zero")[0]


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """numpy.setxor1d: the sorted unique values in exactly one of the arrays."""
    a, b = operands(ar1, ar2)
    s, _, first = _sorted_firsts(concatenate([ravel(a), ravel(b)]))
    keep = logical_and(first, logical_xor(isin(s, a), isin(s, b)))
    return compacted(s, keep, size, fill_value, "setxor1d")[0]


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """numpy.intersect1d: the sorted unique values in both arrays; with return_indices also
    the index of each value's first occurrence in each flattened array."""
    a, b = operands(ar1, ar2)
    s, order, first = _sorted_firsts(a)
    keep = logical_and(first, isin(s, b))
    vals, picked = compacted(s, keep, size, fill_value, "intersect1d")
    if not return_indices:
        return vals
    ind1 = take(order, picked, mode="clip") if s.shape[0] else picked
    ind2 = argmax(equal(vals[:, None], ravel(b)[None, :]), axis=1) if ravel(b).shape[0] else \
        zeros(vals.shape[0], "int64")
    return vals, ind1, ind2
