"""The standard's set functions: unique_all, unique_counts, unique_inverse, unique_values.
Their result shapes depend on the data, so they run eagerly (a traced input is an error that
says so). NaNs are distinct from each other, as the standard asks."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..errors import ConcretizationError
from ..trace.tracer import Tracer
from ..eager.tensor import Tensor
from ._convert import asarray
from .shape import reshape

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _host(x, what):
    x = asarray(x)
    if isinstance(x, Tracer):
        if x._concrete is None:
            raise ConcretizationError(f"{what} gives a data-dependent shape, so it runs eagerly; "
                                      "call it outside jg.jit (or on a concrete value)")
        return x._concrete, x.device
    return x.numpy(), x.device


def _unique(x, what, **kw):
    data, dev = _host(x, what)
    res = np.unique(data, equal_nan=False, **kw)
    res = res if isinstance(res, tuple) else (res,)
    return [Tensor._wrap(np.ascontiguousarray(r), dev) if dev.type == "cpu"
            else Tensor._wrap(np.ascontiguousarray(r)).to(dev) for r in res], data.shape


def unique_values(x, /):
    """numpy.unique_values: returns the unique elements of an input array `x`."""
    return _unique(x, "unique_values")[0][0]


def unique_counts(x, /):
    """numpy.unique_counts: find the unique elements and counts of an input array `x`."""
    (values, counts), _ = _unique(x, "unique_counts", return_counts=True)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /):
    """numpy.unique_inverse: find the unique elements of `x` and indices to reconstruct `x`."""
    (values, inverse), shape = _unique(x, "unique_inverse", return_inverse=True)
    return UniqueInverseResult(values, reshape(inverse, shape))


def unique_all(x, /):
    """numpy.unique_all: find the unique elements of an array, and counts, inverse, and indices."""
    (values, indices, inverse, counts), shape = _unique(
        x, "unique_all", return_index=True, return_inverse=True, return_counts=True)
    return UniqueAllResult(values, indices, reshape(inverse, shape), counts)
