"""Derivative pieces of max/min/prod reductions, shared by the VJP and JVP rules."""
from __future__ import annotations

from ..ops import Op


def extremum_weights(e, x, y, axes):
    """d reduce_max(x) / dx: 1/k on each of the k entries that tie for the extremum, else 0
    (the gradient is split equally among ties, as in JAX)."""
    hit = e.convert(e(Op.eq, x, e.expand(y, axes, x.type.shape)), x.type.dtype)
    count = e.reduce_sum(hit, axes)
    return e.div(hit, e.expand(count, axes, x.type.shape))


def prod_partials(e, x, axes):
    """d reduce_prod(x) / dx_i = product of the other entries, exact with zeros present:
    with no zero it is y / x_i; with one zero, the product of the non-zeros at the zero and 0
    elsewhere; with two or more zeros, 0. (Second derivatives are exact where x has no zeros.)"""
    shape = x.type.shape
    is_zero = e.eq(x, 0.0)
    nonzero_prod = e.expand(e(Op.reduce_prod, e.select(is_zero, 1.0, x), axes=axes), axes, shape)
    zeros = e.expand(e.reduce_sum(e.convert(is_zero, x.type.dtype), axes), axes, shape)
    no_zero = e.div(nonzero_prod, e.select(is_zero, 1.0, x))
    one_zero = e.select(is_zero, nonzero_prod, 0.0)
    return e.select(e.eq(zeros, 0.0), no_zero, e.select(e.eq(zeros, 1.0), one_zero, 0.0))
