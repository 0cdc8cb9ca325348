"""Shared pieces of the special functions: float operands, polynomial and Chebyshev series,
and masks that keep an unselected branch finite (so it adds no NaN to gradients)."""
from __future__ import annotations

from ... import numpy as jnp
from ...numpy._convert import operands
from ...numpy.polynomials import horner  # noqa: F401  (the special functions' series)


def floats(*xs):
    """The arguments as arrays of one float dtype (ints and bools become the default float),
    as jax.scipy's promote_args_inexact."""
    return operands(*xs, float_only=True)


def safe(mask, x, fill):
    """x where mask holds, fill elsewhere: the value a branch computes on when unselected."""
    return jnp.where(mask, x, fill)


def is_nonpositive_integer(x):
    return jnp.logical_and(jnp.less_equal(x, 0), jnp.equal(jnp.floor(x), x))
