"""LU factorization with partial pivoting (scipy.linalg.lu, lu_factor, lu_solve), written as
Gaussian elimination over a static number of columns: the pivot is an argmax, row swaps are
gathers and updates are masked rank-1 products, so it traces, batches and differentiates."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ...numpy._convert import operands
from .triangular import solve_triangular


def _swap(perm, k, p):
    """perm with entries k and p exchanged (p traced, shape perm.shape[:-1] + (1,))."""
    idx = np.arange(perm.shape[-1])
    at_p = jnp.take_along_axis(perm, p, axis=-1)
    return jnp.where(idx == k, at_p, jnp.where(jnp.equal(idx, p), perm[..., k:k + 1], perm))


def _factor(a):
    """(lu, pivots, perm): L and U packed as LAPACK's getrf, the row swaps and the row order
    they give (L U = a[perm])."""
    m, n = a.shape[-2:]
    rows, cols = np.arange(m), np.arange(n)
    batch = a.shape[:-2]
    pivots, perm = [], jnp.broadcast_to(np.arange(m), batch + (m,))
    for k in range(min(m, n)):
        col = jnp.where(rows >= k, jnp.abs(a[..., :, k]), -1.0)
        p = jnp.expand_dims(jnp.astype(jnp.argmax(col, axis=-1), np.int32), -1)
        pivots.append(p)
        order = _swap(jnp.broadcast_to(np.arange(m), batch + (m,)), k, p)
        a = jnp.take_along_axis(a, jnp.expand_dims(order, -1), axis=-2)
        perm = jnp.take_along_axis(perm, order, axis=-1)
        below = (rows > k)[:, None]
        multipliers = jnp.where(below, jnp.true_divide(a[..., :, k:k + 1], a[..., k:k + 1, k:k + 1]),
                                0.0)
        pivot_row = jnp.where((cols > k)[None, :], a[..., k:k + 1, :], 0.0)
        a = jnp.subtract(a, jnp.multiply(multipliers, pivot_row))
        a = jnp.where(below & (cols == k)[None, :], multipliers, a)
    return a, jnp.concatenate(pivots, axis=-1) if pivots else jnp.zeros(batch + (0,), np.int32), perm


def _float_matrix(a, what):
    (a,) = operands(a, float_only=True)
    if a.ndim < 2:
        raise ValueError(f"{what}: expected a matrix [..., m, n], got shape {a.shape}")
    return a


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv) as LAPACK's getrf and scipy.linalg.lu_factor: L (unit diagonal, below) and U
    in one matrix, and piv[i], the row swapped with row i at step i (0-based)."""
    lu, piv, _ = _factor(_float_matrix(a, "lu_factor"))
    return lu, piv


def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """(p, l, u) with a = p @ l @ u (scipy.linalg.lu), or (p @ l, u) with permute_l=True;
    for an m x n a, l is m x k and u is k x n with k = min(m, n)."""
    a = _float_matrix(a, "lu")
    m, n = a.shape[-2:]
    k = min(m, n)
    packed, _, perm = _factor(a)
    l_part = jnp.add(jnp.tril(packed[..., :, :k], -1), np.eye(m, k, dtype=a.dtype))
    u_part = jnp.triu(packed[..., :k, :])
    # p[i, j] = 1 where i == perm[j]: (p^T a)[j] = a[perm[j]] = (l u)[j]
    p = jnp.astype(jnp.equal(np.arange(m)[:, None], jnp.expand_dims(perm, -2)), a.dtype)
    if permute_l:
        return jnp.matmul(p, l_part), u_part
    return p, l_part, u_part


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """x with a x = b (trans=0), a^T x = b (1) or a^H x = b (2), from lu_factor(a)
    (scipy.linalg.lu_solve)."""
    packed, piv = lu_and_piv
    packed, b = operands(packed, b, float_only=True)
    n = packed.shape[-1]
    if packed.ndim < 2 or packed.shape[-2] != n or b.shape[0 if b.ndim == 1 else -2] != n:
        raise ValueError(f"lu_solve: expected a square lu [..., n, n] and b with n rows, got "
                         f"shapes {packed.shape} and {b.shape}")
    if trans not in (0, 1, 2):
        raise ValueError(f"lu_solve: expected trans in (0, 1, 2), got {trans!r}")
    piv = jnp.asarray(piv)
    perm = jnp.broadcast_to(np.arange(n), piv.shape[:-1] + (n,))
    for k in range(n):
        perm = jnp.take_along_axis(perm, _swap(jnp.broadcast_to(np.arange(n), perm.shape), k,
                                               piv[..., k:k + 1]), axis=-1)
    vector = b.ndim == 1
    rhs = jnp.expand_dims(b, -1) if vector else b
    if trans == 0:
        rhs = jnp.take_along_axis(rhs, jnp.expand_dims(perm, -1), axis=-2)
        y = solve_triangular(packed, rhs, lower=True, unit_diagonal=True)
        x = solve_triangular(packed, y, lower=False)
    else:
        y = solve_triangular(packed, rhs, trans=trans, lower=False)
        z = solve_triangular(packed, y, trans=trans, lower=True, unit_diagonal=True)
        inverse = jnp.argsort(perm, axis=-1)
        x = jnp.take_along_axis(z, jnp.expand_dims(inverse, -1), axis=-2)
    return x[..., 0] if vector else x
