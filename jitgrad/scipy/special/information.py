"""Entropy-style functions with scipy's conventions at 0 (scipy.special names): xlogy,
xlog1py, entr, rel_entr, kl_div. The logarithms see only safe arguments where the result is a
constant, so gradients there are 0, not NaN."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from .series import floats


def _x_times(fn, x, y, neutral, domain_edge):
    """x * fn(y), 0 where x == 0 and fn(y) is not finite (y at or past domain_edge); y there is
    replaced by neutral, so the gradients stay finite (d/dx at x == 0 is fn(y) elsewhere)."""
    off = jnp.logical_and(jnp.equal(x, 0), jnp.less_equal(y, domain_edge))
    return jnp.where(off, 0.0, jnp.multiply(x, fn(jnp.where(off, neutral, y))))


def xlogy(x, y):
    """x * log(y), 0 where x == 0 (unless y is NaN) (scipy.special.xlogy)."""
    x, y = floats(x, y)
    return _x_times(jnp.log, x, y, 1.0, 0.0)


def xlog1py(x, y):
    """x * log1p(y), 0 where x == 0 (unless y is NaN) (scipy.special.xlog1py)."""
    x, y = floats(x, y)
    return _x_times(jnp.log1p, x, y, 0.0, -1.0)


def entr(x):
    """-x log(x) for x > 0, 0 at 0, -inf for x < 0 (scipy.special.entr)."""
    (x,) = floats(x)
    positive = jnp.greater(x, 0)
    safe_x = jnp.where(positive, x, 1.0)
    out = jnp.negative(jnp.multiply(safe_x, jnp.log(safe_x)))
    return jnp.where(positive, out, jnp.where(jnp.equal(x, 0), 0.0,
                                              jnp.where(jnp.isnan(x), np.nan, -np.inf)))


def rel_entr(p, q):
    """p log(p / q) for p, q > 0; 0 for p == 0 <= q; inf otherwise (scipy.special.rel_entr)."""
    p, q = floats(p, q)
    both = jnp.logical_and(jnp.greater(p, 0), jnp.greater(q, 0))
    sp, sq = jnp.where(both, p, 1.0), jnp.where(both, q, 1.0)
    out = jnp.multiply(sp, jnp.subtract(jnp.log(sp), jnp.log(sq)))
    edge = jnp.where(jnp.logical_and(jnp.equal(p, 0), jnp.greater_equal(q, 0)), 0.0, np.inf)
    nan = jnp.logical_or(jnp.isnan(p), jnp.isnan(q))
    return jnp.where(both, out, jnp.where(nan, np.nan, edge))


def kl_div(p, q):
    """rel_entr(p, q) - p + q (scipy.special.kl_div)."""
    p, q = floats(p, q)
    return jnp.add(jnp.subtract(rel_entr(p, q), p), q)
