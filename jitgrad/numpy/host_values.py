"""What is known on the host: an array's concrete value, and the functions whose result shape
depends on it (nonzero, unique). Those run eagerly; a traced value without a concrete value is a
ConcretizationError that says so."""
from __future__ import annotations

import numpy as np

from ..errors import ConcretizationError
from ..trace.tracer import Tracer
from ..eager.tensor import Tensor
from ._convert import asarray


def concrete(x):
    """The NumPy value of an index operand, or None when it is traced."""
    if isinstance(x, Tracer):
        return x._concrete
    if isinstance(x, Tensor):
        return x._data
    return np.asarray(x)


def nonzero(a):
    """numpy.nonzero: return the indices of the elements that are non-zero."""
    x = asarray(a)
    c = concrete(x)
    if c is None:
        raise ConcretizationError(
            "nonzero / where(cond) with one argument gives a data-dependent shape, which a traced "
            "function can't have; use the three-argument jnp.where(cond, x, y)")
    return tuple(Tensor._wrap(i.astype(np.int64)) for i in np.nonzero(c))


def unique(ar, return_counts=False):
    """numpy.unique: find the unique elements of an array."""
    c = concrete(asarray(ar))
    if c is None:
        raise ConcretizationError("unique gives a data-dependent shape; it is eager-only")
    res = np.unique(c, return_counts=return_counts)
    return tuple(Tensor._wrap(r) for r in res) if return_counts else Tensor._wrap(res)
