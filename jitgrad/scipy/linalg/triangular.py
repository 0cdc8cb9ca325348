"""Triangular and structured solves with scipy.linalg's signatures: solve_triangular, solve
(assume_a), cho_factor / cho_solve, inv, det. The solves run through jnp.linalg.solve (the
solve primitive, with its derivative), on the triangle or symmetric matrix scipy would read."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ...numpy._convert import operands

_TRANS = {0: "N", 1: "T", 2: "C", "N": "N", "T": "T", "C": "C"}
_ASSUME = ("gen", "general", "sym", "symmetric", "her", "hermitian", "pos", "positive definite",
           "diagonal", "tridiagonal", "banded", "upper triangular", "lower triangular")


def matrices(*xs, what):
    """The arguments as float arrays of one dtype; the first must be square matrices."""
    xs = operands(*xs, float_only=True)
    a = xs[0]
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{what}: expected a square matrix [..., n, n], got shape {a.shape}")
    return xs


def triangle(a, lower, unit_diagonal=False):
    """The lower (or upper) triangle of a, with ones on the diagonal if unit_diagonal."""
    t = jnp.tril(a) if lower else jnp.triu(a)
    if unit_diagonal:
        t = jnp.where(np.eye(a.shape[-1], dtype=bool), 1.0, t)
    return t


def symmetric_from(a, lower):
    """The symmetric matrix scipy reads from one triangle of a (the other is ignored)."""
    t = jnp.tril(a, -1) if lower else jnp.triu(a, 1)
    return jnp.add(jnp.add(t, jnp.matrix_transpose(t)),
                   jnp.multiply(a, np.eye(a.shape[-1], dtype=a.dtype)))


def _op(t, trans):
    if trans == "N":
        return t
    t = jnp.matrix_transpose(t)
    return jnp.conj(t) if trans == "C" else t


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     debug=None, check_finite=True):
    """x with op(a) x = b, reading only a's lower (or upper) triangle; op is a, a^T or a^H
    for trans 0/'N', 1/'T', 2/'C' (scipy.linalg.solve_triangular)."""
    if trans not in _TRANS:
        raise ValueError(f"solve_triangular: expected trans in (0, 1, 2, 'N', 'T', 'C'), got "
                         f"{trans!r}")
    a, b = matrices(a, b, what="solve_triangular")
    return jnp.linalg.solve(_op(triangle(a, lower, unit_diagonal), _TRANS[trans]), b)


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, debug=False,
          check_finite=True, assume_a="gen"):
    """x with a x = b (scipy.linalg.solve). assume_a 'sym', 'her' or 'pos' reads only one
    triangle of a (lower=True: the lower one), as scipy; 'upper/lower triangular' only
    that triangle; the other structures are solved as general matrices."""
    if assume_a not in _ASSUME:
        raise ValueError(f"solve: expected assume_a in {_ASSUME}, got {assume_a!r}")
    a, b = matrices(a, b, what="solve")
    if assume_a in ("sym", "symmetric", "her", "hermitian", "pos", "positive definite"):
        a = symmetric_from(a, lower)
    elif assume_a.endswith("triangular"):
        a = triangle(a, assume_a.startswith("lower"))
    return jnp.linalg.solve(a, b)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower): the Cholesky factor (lower or upper) and which it is, for cho_solve. The
    other triangle of c is zero (scipy leaves whatever was there)."""
    (a,) = matrices(a, what="cho_factor")
    return jnp.linalg.cholesky(a, upper=not lower), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """x with a x = b from cho_factor(a)'s (c, lower) (scipy.linalg.cho_solve)."""
    c, lower = c_and_lower
    c, b = matrices(c, b, what="cho_solve")
    first = solve_triangular(c, b, trans=0 if lower else "C", lower=lower)
    return solve_triangular(c, first, trans="C" if lower else 0, lower=lower)


def inv(a, overwrite_a=False, check_finite=True):
    """The inverse of square a (scipy.linalg.inv)."""
    (a,) = matrices(a, what="inv")
    return jnp.linalg.inv(a)


def det(a, overwrite_a=False, check_finite=True):
    """The determinant of square a (scipy.linalg.det)."""
    (a,) = matrices(a, what="det")
    return jnp.linalg.det(a)


def solve_sylvester(A, B, C, *, method="schur", tol=1e-8):
    """X with A X + X B = C (scipy.linalg.solve_sylvester), as one (n m) x (n m) linear
    system (I (x) A + B^T (x) I) vec(X) = vec(C): exact, and fine for the small matrices it
    is used on; method and tol (jax.scipy's Schur options) are accepted and unused."""
    A, B, C = operands(A, B, C, float_only=True)
    n, m = A.shape[-1], B.shape[-1]
    if A.shape != (n, n) or B.shape != (m, m) or C.shape != (n, m):
        raise ValueError(f"solve_sylvester: expected A (n, n), B (m, m), C (n, m), got "
                         f"{A.shape}, {B.shape}, {C.shape}")
    system = jnp.add(jnp.kron(np.eye(m, dtype=A.dtype), A),
                     jnp.kron(jnp.transpose(B), np.eye(n, dtype=A.dtype)))
    x = jnp.linalg.solve(system, jnp.reshape(jnp.transpose(C), (n * m,)))
    return jnp.transpose(jnp.reshape(x, (m, n)))
