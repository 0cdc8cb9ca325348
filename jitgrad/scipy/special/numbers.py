"""Number tables computed on the host (scipy.special.bernoulli)."""
from __future__ import annotations

from fractions import Fraction

from ... import numpy as jnp


def bernoulli(n):
    """The Bernoulli numbers B_0 .. B_n as a float array (scipy's convention B_1 = -1/2)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"bernoulli: expected n, a non-negative int, got {n!r}")
    a, b = [Fraction(0)] * (n + 1), []
    for m in range(n + 1):          # Akiyama-Tanigawa, giving B_1 = +1/2; flipped below
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        b.append(a[0])
    if n >= 1:
        b[1] = -b[1]
    return jnp.asarray([float(v) for v in b])
