"""VJP and JVP rules of the LAPACK decompositions (the records of kind "linalg"), JAX's rules written with the
Emitter: every rule emits matmul, solve and elementwise ops, so it is differentiable again.

Conventions: the last two axes are the matrix, leading axes a batch; cholesky and eigh read a
symmetric input and give a symmetric cotangent (jnp.linalg symmetrizes before calling them, as
JAX's symmetrize_input); svd's and eigh's rules assume distinct singular values / eigenvalues,
qr's a tall or square input with full rank. The other cases raise NotImplementedError, as JAX.
"""
from __future__ import annotations

import numpy as np

from ..ops import Op
from ..types import kind_of


# ----------------------------------------------------------------------------- vocabulary

def _mm(e, a, b):
    return e(Op.matmul, a, b)


def _T(e, x):
    return e.swap_last(x)


def _solve(e, a, b):
    """a^-1 b for a [..., n, n] and b [..., n, k] (b broadcast over a's batch)."""
    if b.type.shape[:-2] != a.type.shape[:-2]:
        b = e.broadcast_to(b, a.type.shape[:-2] + b.type.shape[-2:])
    return e.b.emit(Op.solve, [a, b], {}, e.source_info)[0]


def _mask(e, n, dtype, k=0, diag=None):
    """The lower-triangular mask tril(ones, k) (with `diag` on the diagonal when given)."""
    m = np.tril(np.ones((n, n)), k)
    if diag is not None:
        np.fill_diagonal(m, diag)
    return e.const(m, dtype)


def _eye(e, n, dtype):
    return e.const(np.eye(n), dtype)


def _diag_embed(e, v):
    k = v.type.shape[-1]
    return e.mul(e.reshape(v, v.type.shape + (1,)), _eye(e, k, v.type.dtype))


def _diag_part(e, x):
    return e.reduce_sum(e.mul(x, _eye(e, x.type.shape[-1], x.type.dtype)), (x.type.ndim - 1,))


def _row(e, v):     # v [..., k] as [..., 1, k]: scales the columns of a matrix
    return e.reshape(v, v.type.shape[:-1] + (1, v.type.shape[-1]))


def _col(e, v):     # v [..., k] as [..., k, 1]: scales the rows
    return e.reshape(v, v.type.shape + (1,))


def _sym(e, x):
    return e.mul(e.add(x, _T(e, x)), 0.5)


def _inverse_gaps(e, w, squared=False):
    """F[i, j] = 1 / (w_j - w_i) off the diagonal (1 / (w_j^2 - w_i^2) when squared), 0 on it."""
    r, c = _row(e, w), _col(e, w)
    gaps = e.mul(e.add(r, c), e.sub(r, c)) if squared else e.sub(r, c)
    k = w.type.shape[-1]
    eye = _eye(e, k, w.type.dtype)
    return e.sub(e.div(1.0, e.add(gaps, eye)), eye)


def _add(e, a, b):
    return b if a is None else a if b is None else e.add(a, b)


# ----------------------------------------------------------------------------- cholesky

def cholesky_vjp(e, node, cts):
    (L,), (g,) = node.outputs, cts
    n = L.type.shape[-1]
    phi = e.mul(_mm(e, _T(e, L), g), _mask(e, n, L.type.dtype, 0, 0.5))
    y = _solve(e, _T(e, L), phi)                       # L^-T phi
    return [_sym(e, _T(e, _solve(e, _T(e, L), _T(e, y))))]      # sym(L^-T phi L^-1)


def cholesky_jvp(e, node, ts):
    (L,), (da,) = node.outputs, ts
    n = L.type.shape[-1]
    x = _solve(e, L, _T(e, _solve(e, L, _sym(e, da))))    # L^-1 sym(dA) L^-T
    return [_mm(e, L, e.mul(x, _mask(e, n, L.type.dtype, 0, 0.5)))]


# ----------------------------------------------------------------------------- eigh

def eigh_vjp(e, node, cts):
    w, v = node.outputs
    wbar, vbar = cts
    inner = None if wbar is None else _diag_embed(e, wbar)
    if vbar is not None:
        inner = _add(e, inner, e.mul(_inverse_gaps(e, w), _mm(e, _T(e, v), vbar)))
    return [_mm(e, _mm(e, v, inner), _T(e, v))]


def eigh_jvp(e, node, ts):
    (w, v), (da,) = node.outputs, ts
    c = _mm(e, _mm(e, _T(e, v), da), v)
    return [_diag_part(e, c), _mm(e, v, e.mul(_inverse_gaps(e, w), c))]


# ----------------------------------------------------------------------------- svd

def _svd_check(node):
    if node.params["full_matrices"]:
        raise NotImplementedError("svd: the derivative with full_matrices=True is not "
                                  "implemented (as in JAX); use full_matrices=False")


def svd_vjp(e, node, cts):
    _svd_check(node)
    u, s, vh = node.outputs
    ubar, sbar, vhbar = cts
    a = node.inputs[0]
    m, n = a.type.shape[-2:]
    k = s.type.shape[-1]
    v = _T(e, vh)
    F = _inverse_gaps(e, s, squared=True)
    s_inv = e.div(1.0, s)
    dsbar = None if sbar is None else _diag_embed(e, sbar)
    if ubar is not None:
        g1 = e.mul(F, _mm(e, _T(e, u), ubar))
        dsbar = _add(e, dsbar, e.mul(e.add(g1, _T(e, g1)), _row(e, s)))
    if vhbar is not None:
        vbar = _T(e, vhbar)
        g2 = e.mul(F, _mm(e, _T(e, v), vbar))
        dsbar = _add(e, dsbar, e.mul(_col(e, s), e.add(g2, _T(e, g2))))
    abar = None if dsbar is None else _mm(e, _mm(e, u, dsbar), vh)
    if ubar is not None and m > k:
        w = e.sub(ubar, _mm(e, u, _mm(e, _T(e, u), ubar)))
        abar = _add(e, abar, _mm(e, e.mul(w, _row(e, s_inv)), vh))
    if vhbar is not None and n > k:
        w = e.sub(vbar, _mm(e, v, _mm(e, vh, vbar)))
        abar = _add(e, abar, _mm(e, e.mul(u, _row(e, s_inv)), _T(e, w)))
    return [abar]


def svd_jvp(e, node, ts):
    _svd_check(node)
    (u, s, vh), (da,) = node.outputs, ts
    m, n = node.inputs[0].type.shape[-2:]
    k = s.type.shape[-1]
    v = _T(e, vh)
    ds_mat = _mm(e, _mm(e, _T(e, u), da), v)
    F = _inverse_gaps(e, s, squared=True)
    dss = e.mul(ds_mat, _row(e, s))
    sds = e.mul(_col(e, s), ds_mat)
    du = _mm(e, u, e.mul(F, e.add(dss, _T(e, dss))))
    dv = _mm(e, v, e.mul(F, e.add(sds, _T(e, sds))))
    if m > k:
        dav = _mm(e, da, v)
        du = e.add(du, e.div(e.sub(dav, _mm(e, u, _mm(e, _T(e, u), dav))), _row(e, s)))
    if n > k:
        dau = _mm(e, _T(e, da), u)
        dv = e.add(dv, e.div(e.sub(dau, _mm(e, v, _mm(e, vh, dau))), _row(e, s)))
    return [du, _diag_part(e, ds_mat), _T(e, dv)]


# ----------------------------------------------------------------------------- qr

def _qr_check(node):
    m, n = node.inputs[0].type.shape[-2:]
    if m < n or node.params["mode"] == "complete" and m != n:
        raise NotImplementedError(f"qr: the derivative is implemented for mode='reduced' of "
                                  f"tall or square matrices (as in JAX), got a {m}x{n} matrix "
                                  f"with mode={node.params['mode']!r}")


def qr_vjp(e, node, cts):
    _qr_check(node)
    q, r = node.outputs
    qbar, rbar = cts
    n = r.type.shape[-1]
    M = None if qbar is None else _mm(e, _T(e, q), qbar)
    if rbar is not None:
        M = _add(e, M, e.neg(_mm(e, rbar, _T(e, r))))
    cbar = e.sub(e.mul(e.sub(M, _T(e, M)), _mask(e, n, r.type.dtype, -1)), M)
    ybar = _add(e, qbar, _mm(e, q, cbar))
    return [_T(e, _solve(e, r, _T(e, ybar)))]             # ybar R^-T


def qr_jvp(e, node, ts):
    _qr_check(node)
    (q, r), (da,) = node.outputs, ts
    n = r.type.shape[-1]
    y = _T(e, _solve(e, _T(e, r), _T(e, da)))             # dA R^-1
    c = _mm(e, _T(e, q), y)
    low = e.mul(c, _mask(e, n, r.type.dtype, -1))
    d = e.sub(low, _T(e, low))
    return [e.add(_mm(e, q, e.sub(d, c)), y), _mm(e, e.sub(c, d), r)]


# ----------------------------------------------------------------------------- solve, slogdet

def solve_vjp(e, node, cts):
    (a, _), (x,), (g,) = node.inputs, node.outputs, cts
    bbar = _solve(e, _T(e, a), g)
    return [e.neg(_mm(e, bbar, _T(e, x))), bbar]


def solve_jvp(e, node, ts):
    (a, _), (x,), (da, db) = node.inputs, node.outputs, ts
    rhs = db
    if da is not None:
        rhs = _add(e, rhs, e.neg(_mm(e, da, x)))
    return [_solve(e, a, rhs)]


def slogdet_vjp(e, node, cts):
    a = node.inputs[0]
    g = cts[1]
    if g is None:
        return [None]       # the sign is piecewise constant
    n = a.type.shape[-1]
    inv_t = _T(e, _solve(e, a, e.broadcast_to(_eye(e, n, a.type.dtype), a.type.shape)))
    return [e.mul(e.reshape(g, g.type.shape + (1, 1)), inv_t)]


def slogdet_jvp(e, node, ts):
    (a,), (da,) = node.inputs, ts
    return [None, _diag_sum(e, _solve(e, a, da))]


def _diag_sum(e, x):
    return e.reduce_sum(_diag_part(e, x), (x.type.ndim - 2,))


def real_only(rule):
    """The rules above are the real ones (plain transposes); complex matrices need conjugate
    transposes throughout, which they do not have yet: a clear error, never a wrong number."""
    def checked(e, node, gs):
        if kind_of(node.inputs[0].type.dtype) == "c":
            raise NotImplementedError(f"the derivative of {node.op} of complex matrices is not "
                                      f"implemented ({node.inputs[0].type}); real matrices only")
        return rule(e, node, gs)
    return checked
