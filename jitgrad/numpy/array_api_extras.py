"""Newer NumPy (2.x) and Array API names: matvec, vecmat, cumulative_prod, and the sign tests
isposinf / isneginf."""
from __future__ import annotations

from ._convert import asarray
from .complex_parts import conj
from .creation import ones
from .elementwise import isinf, logical_not, signbit
from .products import matmul
from .reductions import cumprod
from .shape import concatenate, expand_dims, ravel
from .ufuncs import logical_and


def matvec(x1, x2, /):
    """numpy.matvec: matrix-vector products over the last two / last axes, broadcast."""
    return matmul(x1, expand_dims(asarray(x2), -1))[..., 0]


def vecmat(x1, x2, /):
    """numpy.vecmat: conj(vector)-matrix products, broadcast."""
    return matmul(expand_dims(conj(asarray(x1)), -2), x2)[..., 0, :]


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """The Array API's cumulative_prod: cumprod along axis (needed for arrays above 1-d), with a
    leading 1 when include_initial."""
    v = asarray(x)
    if axis is None:
        if v.ndim > 1:
            raise ValueError(f"cumulative_prod: axis must be given for an array of more than "
                             f"one dimension (got shape {tuple(v.shape)})")
        v, axis = ravel(v), 0
    out = cumprod(v, axis=axis, dtype=dtype)
    if not include_initial:
        return out
    first = ones(tuple(1 if i == axis % v.ndim else d for i, d in enumerate(out.shape)),
                 out.dtype)
    return concatenate([first, out], axis=axis)


def isposinf(x, /, out=None):
    """numpy.isposinf: x is +inf."""
    return logical_and(isinf(x), logical_not(signbit(x)))


def isneginf(x, /, out=None):
    """numpy.isneginf: x is -inf."""
    return logical_and(isinf(x), signbit(x))


