"""cholesky, qr, svd, eigh and what they give (polar, qr_multiply, eigh_tridiagonal) with
scipy.linalg's signatures and defaults (cholesky is upper by default; eigh reads the lower
triangle; qr's mode is 'full'), over jnp.linalg's primitives."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ...numpy._convert import operands
from .triangular import matrices, solve_triangular, symmetric_from

_QR_MODES = {"full": "complete", "economic": "reduced", "r": "r"}


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of a symmetric positive-definite a: upper U with a = U^H U by
    default, lower L with a = L L^H for lower=True (scipy.linalg.cholesky)."""
    (a,) = matrices(a, what="cholesky")
    return jnp.linalg.cholesky(a, upper=not lower)


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """(q, r) of a = q r (scipy.linalg.qr): mode 'full' (q is m x m), 'economic' (q is m x k),
    or 'r' (the tuple (r,), as scipy)."""
    if mode not in _QR_MODES:
        raise ValueError(f"qr: expected mode in ('full', 'economic', 'r'), got {mode!r}")
    if pivoting:
        raise NotImplementedError("qr: pivoting=True (column-pivoted QR) is not supported")
    (a,) = operands(a, float_only=True)
    out = jnp.linalg.qr(a, mode=_QR_MODES[mode])
    return (out,) if mode == "r" else tuple(out)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver="gesdd"):
    """(u, s, vh) with a = u diag(s) vh, or s alone with compute_uv=False (scipy.linalg.svd)."""
    if lapack_driver not in ("gesdd", "gesvd"):
        raise ValueError(f"svd: expected lapack_driver 'gesdd' or 'gesvd', got {lapack_driver!r}")
    (a,) = operands(a, float_only=True)
    out = jnp.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(out) if compute_uv else out


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         turbo=True, eigvals=None, type=1, check_finite=True):  # noqa: A002
    """Eigenvalues (ascending) and eigenvectors of symmetric a, reading one triangle (the lower
    by default), as scipy.linalg.eigh; with b, the generalized problem a v = w b v (type 1)
    for symmetric positive-definite b, eigenvectors normalized so that v^T b v = I."""
    if eigvals is not None or type != 1:
        raise NotImplementedError("eigh: eigvals= (a subset) and type 2 or 3 are not supported")
    (a,) = matrices(a, what="eigh")
    a = symmetric_from(a, lower)
    if b is None:
        w, v = jnp.linalg.eigh(a)
    else:
        a, b = matrices(a, b, what="eigh")
        c = jnp.linalg.cholesky(symmetric_from(b, lower))
        half = solve_triangular(c, a, lower=True)                  # c^-1 a
        sym = jnp.matrix_transpose(solve_triangular(c, jnp.matrix_transpose(half), lower=True))
        w, v = jnp.linalg.eigh(sym)
        v = solve_triangular(c, v, trans=1, lower=True)            # c^-T v
    return w if eigvals_only else (w, v)


def eigh_tridiagonal(d, e, *, eigvals_only=False, select="a", select_range=None, tol=None,
                     key=None):
    """Eigenvalues (and vectors) of the symmetric tridiagonal matrix with diagonal d and
    off-diagonal e (scipy.linalg.eigh_tridiagonal), through the dense eigh."""
    if select != "a" or select_range is not None:
        raise NotImplementedError("eigh_tridiagonal: only select='a' (every eigenvalue) is "
                                  "supported")
    d, e = operands(d, e, float_only=True)
    n = d.shape[-1]
    if e.shape[-1] != n - 1:
        raise ValueError(f"eigh_tridiagonal: expected e with {n - 1} entries for d with {n}, "
                         f"got shapes {d.shape} and {e.shape}")
    off = jnp.pad(e, [(0, 0)] * (e.ndim - 1) + [(0, 1)])
    eye = np.eye(n, dtype=d.dtype)
    upper = jnp.multiply(jnp.expand_dims(off, -1), np.eye(n, k=1, dtype=d.dtype))  # t[i, i+1]
    t = jnp.add(jnp.multiply(jnp.expand_dims(d, -1), eye),
                jnp.add(upper, jnp.matrix_transpose(upper)))
    w, v = jnp.linalg.eigh(t)
    return w if eigvals_only else (w, v)


def polar(a, side="right", *, method="svd", eps=None, max_iterations=None):
    """(u, p) with a = u p (side='right') or a = p u ('left'), u unitary, p positive
    semidefinite (scipy.linalg.polar), from the SVD (jax.scipy's default QDWH iteration is not
    needed for the same result)."""
    if side not in ("right", "left"):
        raise ValueError(f"polar: expected side 'right' or 'left', got {side!r}")
    if method not in ("svd", "qdwh"):
        raise ValueError(f"polar: expected method 'svd' or 'qdwh', got {method!r}")
    (a,) = operands(a, float_only=True)
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    unitary = jnp.matmul(u, vh)
    basis = jnp.conj(jnp.matrix_transpose(vh)) if side == "right" else u
    p = jnp.matmul(jnp.multiply(basis, jnp.expand_dims(s, -2)),
                   jnp.conj(jnp.matrix_transpose(basis)))
    return unitary, p


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False,
                overwrite_c=False):
    """(c @ q, r) for mode='right' or (q @ c, r) for 'left', with a = q r economic
    (scipy.linalg.qr_multiply); conjugate=True uses conj(q)."""
    if mode not in ("right", "left"):
        raise ValueError(f"qr_multiply: expected mode 'right' or 'left', got {mode!r}")
    if pivoting:
        raise NotImplementedError("qr_multiply: pivoting=True is not supported")
    a, c = operands(a, c, float_only=True)
    q, r = jnp.linalg.qr(a, mode="reduced")
    q = jnp.conj(q) if conjugate else q
    return (jnp.matmul(c, q) if mode == "right" else jnp.matmul(q, c)), r
