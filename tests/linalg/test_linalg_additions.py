"""The torch.linalg functions added for the op database (issue 49): eig / eigvals (host,
eager only), tensorinv / tensorsolve, householder_product; their errors on every path."""
import numpy as np
import pytest
import scipy.linalg

import jitgrad as jg
from jitgrad.errors import ConcretizationError

RNG = np.random.default_rng(5)


def test_eig_is_complex_and_diagonalizes():
    A = np.array([[0.0, -1.0], [1.0, 0.0]])        # a rotation: eigenvalues +-i
    w, v = jg.linalg.eig(jg.tensor(A))
    assert w.dtype == np.complex128 and v.dtype == np.complex128
    np.testing.assert_allclose(np.sort_complex(np.asarray(w)), [-1j, 1j], atol=1e-15)
    np.testing.assert_allclose(A @ np.asarray(v), np.asarray(v) * np.asarray(w), atol=1e-14)
    w32 = jg.linalg.eigvals(jg.tensor(A.astype(np.float32)))
    assert w32.dtype == np.complex64


def test_eig_refuses_traced_and_differentiated_inputs():
    A = np.eye(2)
    for run, arg in ((jg.jit(jg.linalg.eig), A), (jg.vmap(jg.linalg.eigvals), A[None]),
                     (jg.grad(lambda a: jg.linalg.eigvals(a).real.sum()), A)):
        with pytest.raises(ConcretizationError, match="host, which a traced function"):
            run(arg)
    with pytest.raises(NotImplementedError, match="eig has no derivative"):
        jg.linalg.eig(jg.tensor(A, requires_grad=True))
    with pytest.raises(TypeError, match="floating point or complex tensor, got int64"):
        jg.linalg.eigvals(jg.tensor([[1, 2], [3, 4]]))


def test_tensorinv_and_tensorsolve_as_numpy():
    A = RNG.standard_normal((4, 2, 2)) + 4 * np.eye(4).reshape(4, 2, 2)
    np.testing.assert_allclose(np.asarray(jg.linalg.tensorinv(jg.tensor(A), ind=1)),
                               np.linalg.tensorinv(A, 1), rtol=1e-10)
    T, B = RNG.standard_normal((6, 2, 3)) + 4 * np.eye(6).reshape(6, 2, 3), RNG.standard_normal(
        (2, 3))
    np.testing.assert_allclose(np.asarray(jg.linalg.tensorsolve(T, B, dims=(0,))),
                               np.linalg.tensorsolve(T, B, (0,)), rtol=1e-10)
    with pytest.raises(ValueError, match="strictly positive integer for 'ind', got 0"):
        jg.linalg.tensorinv(jg.tensor(A), ind=0)
    with pytest.raises(ValueError, match="B of shape A.shape"):
        jg.linalg.tensorsolve(jg.tensor(T), jg.tensor(B.T))


def test_householder_product_is_lapacks_orgqr():
    A, tau = RNG.standard_normal((5, 3)), RNG.standard_normal(2)
    want = scipy.linalg.lapack.dorgqr(A, tau)[0]
    np.testing.assert_allclose(np.asarray(jg.linalg.householder_product(A, tau)), want,
                               rtol=1e-12)
    # the reflectors of a QR factorization give its Q
    h, t = np.linalg.qr(A, mode="raw")
    np.testing.assert_allclose(np.asarray(jg.linalg.householder_product(h.T, t)),
                               np.linalg.qr(A)[0], atol=1e-12)
    g = jg.grad(lambda a: jg.linalg.householder_product(a, tau).sum())(A)
    assert g.shape == A.shape


@pytest.mark.parametrize("shapes, match", [
    (((3,), (1,)), "at least 2 dimensions"), (((2, 3), (1,)), r"shape\[-2\] must be greater"),
    (((3, 2), (3,)), r"shape\[-1\] must be greater"), (((3, 2), (2, 2)), "one dimension less")])
def test_householder_product_errors(shapes, match):
    with pytest.raises(ValueError, match=match):
        jg.linalg.householder_product(*(np.zeros(s) for s in shapes))
