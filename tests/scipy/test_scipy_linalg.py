"""jitgrad.scipy.linalg against scipy.linalg: values with scipy's defaults, grad, vmap, jit,
and the error paths."""
import numpy as np
import pytest
import scipy.linalg as SL

import jitgrad as jg
import jitgrad.scipy.linalg as L

RNG = np.random.default_rng(1)
A = RNG.normal(size=(4, 4))
SPD = A @ A.T + 4 * np.eye(4)
B = RNG.normal(size=(4, 2))


def close(got, want, rtol=1e-10, atol=1e-10):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


def test_cholesky_is_upper_by_default_as_scipy():
    close(L.cholesky(SPD), SL.cholesky(SPD))
    close(L.cholesky(SPD, lower=True), SL.cholesky(SPD, lower=True))
    c = L.cho_factor(SPD, lower=True)
    assert c[1] is True
    close(L.cho_solve(c, B), SL.cho_solve(SL.cho_factor(SPD, lower=True), B))
    close(L.cho_solve(L.cho_factor(SPD), B), np.linalg.solve(SPD, B))


@pytest.mark.parametrize("trans", [0, 1, 2, "T"])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_triangular_reads_one_triangle(trans, lower):
    for unit in (False, True):
        close(L.solve_triangular(A + 4 * np.eye(4), B, trans=trans, lower=lower,
                                 unit_diagonal=unit),
              SL.solve_triangular(A + 4 * np.eye(4), B, trans=trans, lower=lower,
                                  unit_diagonal=unit))


def test_solve_assume_a():
    close(L.solve(A, B), SL.solve(A, B))
    upper_only = np.triu(SPD) + 7 * np.tril(A, -1)      # the lower triangle is garbage
    close(L.solve(upper_only, B, assume_a="pos"), SL.solve(upper_only, B, assume_a="pos"))
    for lower in (False, True):
        close(L.solve(SPD, B, assume_a="sym", lower=lower), SL.solve(SPD, B, assume_a="sym",
                                                                     lower=lower))


def test_lu_family_matches_scipy():
    p, l, u = L.lu(A)
    sp, sl, su = SL.lu(A)
    close(p, sp)
    close(l, sl)
    close(u, su)
    lu, piv = L.lu_factor(A)
    slu, spiv = SL.lu_factor(A)
    close(lu, slu)
    np.testing.assert_array_equal(np.asarray(piv), spiv)
    for trans in (0, 1):
        close(L.lu_solve((lu, piv), B, trans=trans), SL.lu_solve((slu, spiv), B, trans=trans))
    close(L.lu_solve((lu, piv), B[:, 0]), np.linalg.solve(A, B[:, 0]))
    rect = RNG.normal(size=(3, 5))
    for got, want in zip(L.lu(rect), SL.lu(rect)):
        close(got, want)
    pl, u2 = L.lu(A, permute_l=True)
    close(np.asarray(pl) @ np.asarray(u2), A)


def test_decompositions_match_scipy_up_to_signs():
    q, r = L.qr(A)
    close(np.asarray(q) @ np.asarray(r), A)
    (r_only,) = L.qr(A, mode="r")
    close(np.abs(np.asarray(r_only)), np.abs(SL.qr(A, mode="r")[0]))
    s = L.svd(A, compute_uv=False)
    close(s, SL.svd(A, compute_uv=False))
    w = L.eigh(np.tril(SPD) + np.triu(A, 1), eigvals_only=True)     # reads the lower triangle
    close(w, SL.eigh(SPD, eigvals_only=True))
    wg, vg = L.eigh(SPD, SPD + np.eye(4))
    close(wg, SL.eigh(SPD, SPD + np.eye(4), eigvals_only=True))
    close(np.asarray(vg).T @ (SPD + np.eye(4)) @ np.asarray(vg), np.eye(4))
    close(L.eigh_tridiagonal(np.arange(4.0), np.ones(3), eigvals_only=True),
          SL.eigh_tridiagonal(np.arange(4.0), np.ones(3), eigvals_only=True))
    for side in ("right", "left"):
        u, p = L.polar(A, side=side)
        su, sp = SL.polar(A, side=side)
        close(u, su)
        close(p, sp)
    close(L.det(A), SL.det(A))
    close(L.inv(A), SL.inv(A))


def test_expm_and_frechet_match_scipy():
    for scale in (0.1, 1.0, 30.0):
        close(L.expm(A * scale), SL.expm(A * scale), rtol=1e-9)
    e = RNG.normal(size=(4, 4))
    got = L.expm_frechet(A, e)
    want = SL.expm_frechet(A, e)
    close(got[0], want[0], rtol=1e-9)
    close(got[1], want[1], rtol=1e-9)
    assert np.isnan(np.asarray(L.expm(A * 1e6, max_squarings=4))).all()


def test_structured_matrices_match_scipy():
    c, r = np.arange(1.0, 4.0), np.arange(10.0, 15.0)
    close(L.toeplitz(c, r), SL.toeplitz(c, r))
    close(L.toeplitz(c), SL.toeplitz(c))
    close(L.hankel(c, r), SL.hankel(c, r))
    close(L.hankel(c), SL.hankel(c))
    close(L.circulant(c), SL.circulant(c))
    close(L.companion(np.array([2.0, 3.0, 4.0])), SL.companion([2.0, 3.0, 4.0]))
    f, s = np.array([0.1, 2.0, 1.0]), np.array([0.2, 0.8])
    close(L.leslie(f, s), SL.leslie(f, s))
    close(L.fiedler(c), SL.fiedler(c))
    for mode in ("full", "same", "valid"):
        close(L.convolution_matrix(c, 5, mode), SL.convolution_matrix(c, 5, mode))
    close(L.block_diag(np.ones((2, 2)), np.array([5.0, 6.0]), 7.0),
          SL.block_diag(np.ones((2, 2)), [5.0, 6.0], 7.0))
    # matrices of a size come in the default float dtype (float32), as in jax.scipy
    close(L.hilbert(3), SL.hilbert(3), rtol=1e-6)
    close(L.helmert(4, full=True), SL.helmert(4, full=True), rtol=1e-6, atol=1e-7)
    x = RNG.normal(size=(3, 3)) + 3 * np.eye(3)
    y = RNG.normal(size=(2, 2)) + 3 * np.eye(2)
    cc = RNG.normal(size=(3, 2))
    close(L.solve_sylvester(x, y, cc), SL.solve_sylvester(x, y, cc))
    cq, rq = L.qr_multiply(A, np.eye(4))
    close(np.asarray(cq) @ np.asarray(rq), A)


def test_grad_and_vmap():
    # d/dA sum(solve_triangular(A, b, lower=True)) against finite differences
    a = np.tril(A) + 4 * np.eye(4)
    f = lambda m: jg.numpy.sum(L.solve_triangular(m, B, lower=True))   # noqa: E731
    g = np.asarray(jg.grad(f)(a))
    eps = 1e-6
    e = np.zeros((4, 4))
    e[2, 1] = eps
    fd = (float(f(a + e)) - float(f(a - e))) / (2 * eps)
    assert abs(g[2, 1] - fd) < 1e-6
    assert np.allclose(np.triu(g, 1), 0)              # the upper triangle is never read
    gd = np.asarray(jg.grad(lambda m: L.det(m))(A))
    close(gd, SL.det(A) * np.linalg.inv(A).T, rtol=1e-8)
    batch = np.stack([A, A.T, 2 * A])
    close(jg.vmap(lambda m: L.lu(m)[2])(batch), np.stack([SL.lu(m)[2] for m in batch]))
    close(jg.vmap(L.expm)(batch * 0.3), np.stack([SL.expm(m * 0.3) for m in batch]), rtol=1e-9)


@pytest.mark.interpreter
def test_jit_matches_eager():
    close(jg.jit(lambda m: L.lu_factor(m)[0])(A), SL.lu_factor(A)[0])
    close(jg.jit(L.expm)(A), SL.expm(A), rtol=1e-9)
    close(jg.jit(lambda m, b: L.cho_solve(L.cho_factor(m), b))(SPD, B), np.linalg.solve(SPD, B))


def test_errors_name_what_was_expected():
    with pytest.raises(ValueError, match=r"solve_triangular: expected trans in"):
        L.solve_triangular(A, B, trans=3)
    with pytest.raises(ValueError, match=r"solve: expected assume_a in"):
        L.solve(A, B, assume_a="nope")
    with pytest.raises(ValueError, match=r"cholesky: expected a square matrix \[..., n, n\], "
                                         r"got shape \(4, 2\)"):
        L.cholesky(B)
    with pytest.raises(ValueError, match="qr: expected mode in"):
        L.qr(A, mode="raw")
    with pytest.raises(NotImplementedError, match="pivoting=True"):
        L.qr(A, pivoting=True)
    with pytest.raises(ValueError, match="convolution_matrix: expected mode"):
        L.convolution_matrix([1.0], 3, "nope")
