"""lax.dot_general (and dot, batch_matmul): contraction and batch dimensions given by number,
result laid out as JAX's: batch dimensions, then lhs free, then rhs free dimensions. One
transpose + reshape per side and one (batched) matmul."""
from __future__ import annotations

import math

from .. import numpy as jnp
from ..numpy._convert import asarray


def _check_dims(lhs, rhs, lc, rc, lb, rb):
    if len(lb) != len(rb):
        raise TypeError(f"dot_general requires lhs batch dimensions and rhs batch dimensions to "
                        f"have the same length, got {lb} and {rb}.")
    if len(lc) != len(rc):
        raise TypeError(f"dot_general requires lhs contracting dimensions and rhs contracting "
                        f"dimensions to have the same length, got {lc} and {rc}.")
    for side, x, batch, contract in (("lhs", lhs, lb, lc), ("rhs", rhs, rb, rc)):
        if any(not 0 <= d < x.ndim for d in batch + contract):
            raise TypeError(f"dot_general requires {side} dimension numbers to be nonnegative "
                            f"and less than the number of axes of the {side} value, got "
                            f"{side}_batch of {batch} and {side}_contracting of {contract} for "
                            f"{side} of rank {x.ndim}")
        if len(set(batch + contract)) != len(batch + contract):
            raise TypeError(f"dot_general requires {side} batch and contracting dimensions to "
                            f"be distinct, got {side}_batch of {batch} and {side}_contracting "
                            f"of {contract}")
    lbs, rbs = tuple(lhs.shape[d] for d in lb), tuple(rhs.shape[d] for d in rb)
    if lbs != rbs:
        raise TypeError(f"dot_general requires lhs batch dimensions and rhs batch dimensions to "
                        f"have the same shape, got {lbs} and {rbs}.")
    lcs, rcs = tuple(lhs.shape[d] for d in lc), tuple(rhs.shape[d] for d in rc)
    if lcs != rcs:
        raise TypeError(f"dot_general requires contracting dimensions to have the same shape, "
                        f"got {lcs} and {rcs}.")


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """dimension_numbers = ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)).
    precision is accepted and ignored (CPU float math is always full precision);
    preferred_element_type casts both operands first (the accumulation type)."""
    lhs, rhs = asarray(lhs), asarray(rhs)
    try:
        (lc, rc), (lb, rb) = dimension_numbers
        lc, rc, lb, rb = (tuple(int(d) for d in t) for t in (lc, rc, lb, rb))
    except (TypeError, ValueError) as e:
        raise TypeError(f"dot_general: dimension_numbers must be ((lhs_contracting, "
                        f"rhs_contracting), (lhs_batch, rhs_batch)), got "
                        f"{dimension_numbers!r}") from e
    _check_dims(lhs, rhs, lc, rc, lb, rb)
    if preferred_element_type is not None:
        lhs, rhs = (jnp.astype(t, preferred_element_type) for t in (lhs, rhs))
    lf = tuple(d for d in range(lhs.ndim) if d not in lb + lc)
    rf = tuple(d for d in range(rhs.ndim) if d not in rb + rc)
    batch = tuple(lhs.shape[d] for d in lb)
    lfs, rfs = tuple(lhs.shape[d] for d in lf), tuple(rhs.shape[d] for d in rf)
    k = math.prod(lhs.shape[d] for d in lc)
    a = jnp.reshape(jnp.transpose(lhs, lb + lf + lc), batch + (math.prod(lfs), k))
    b = jnp.reshape(jnp.transpose(rhs, rb + rc + rf), batch + (k, math.prod(rfs)))
    return jnp.reshape(jnp.matmul(a, b), batch + lfs + rfs)


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    """Contract lhs's last dimension with rhs's first (vector/matrix products)."""
    lhs, rhs = asarray(lhs), asarray(rhs)
    if lhs.ndim == 0 or rhs.ndim == 0:
        raise TypeError(f"dot requires operands of rank >= 1, got shapes {tuple(lhs.shape)} "
                        f"and {tuple(rhs.shape)}")
    return dot_general(lhs, rhs, (((lhs.ndim - 1,), (0,)), ((), ())), precision,
                       preferred_element_type)


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over the last two dimensions, the leading dimensions being batch."""
    lhs, rhs = asarray(lhs), asarray(rhs)
    if lhs.ndim < 2 or lhs.ndim != rhs.ndim:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D and have the same "
                         f"rank, got {lhs.ndim} and {rhs.ndim}.")
    n = lhs.ndim
    return dot_general(lhs, rhs, (((n - 1,), (n - 2,)), (tuple(range(n - 2)),
                                                         tuple(range(n - 2)))), precision)
