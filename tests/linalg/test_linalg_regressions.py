"""Bugs the op database's jitgrad.linalg records found (issue 49), each pinned with NumPy /
hand-computed values: batched vander, the norm's derivative at zero, lu_solve's complex adjoint
and left=False, 0 x 0 matrix_exp and det under jit."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

RNG = np.random.default_rng(3)


def test_vander_is_batched_over_the_leading_dims():
    x = np.array([[2.0, 3.0, 0.5], [1.0, -1.0, 4.0]])
    want = x[..., None] ** np.arange(4)
    np.testing.assert_allclose(np.asarray(jg.linalg.vander(jg.tensor(x), N=4)), want)
    np.testing.assert_array_equal(np.asarray(jg.linalg.vander(jg.tensor([2, 3]), N=3)),
                                  [[1, 2, 4], [1, 3, 9]])
    out = jg.jit(lambda v: jg.linalg.vander(v))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(out), x[..., None] ** np.arange(3))
    with pytest.raises(ValueError, match="N must be greater than 1, got 1"):
        jg.linalg.vander(jg.tensor([2.0]))


@pytest.mark.parametrize("norm", [
    lambda v: jg.linalg.vector_norm(v), lambda v: jg.linalg.norm(v),
    lambda v: jg.linalg.vector_norm(v, 3), lambda v: jg.linalg.matrix_norm(v.reshape(1, 3))])
def test_norm_derivative_at_zero_is_zero_as_torch(norm):
    g = jg.grad(norm)(np.zeros(3))
    np.testing.assert_array_equal(np.asarray(g), np.zeros(3))
    v = np.array([3.0, 0.0, 4.0])
    assert np.isfinite(np.asarray(jg.grad(norm)(v))).all()


def test_norm_derivative_away_from_zero():
    v = np.array([3.0, -1.0, 4.0])
    g = jg.grad(lambda x: jg.linalg.vector_norm(x, 3))(v)
    np.testing.assert_allclose(np.asarray(g), np.sign(v) * v ** 2 / np.sum(np.abs(v) ** 3)
                               ** (2 / 3), rtol=1e-12)


def _complex(shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def test_lu_solve_adjoint_is_the_conjugate_transpose():
    A, B = _complex((3, 3)) + 4 * np.eye(3), _complex((3, 2))
    lu, piv = jg.linalg.lu_factor(jg.tensor(A))
    got = jg.linalg.lu_solve(lu, piv, jg.tensor(B), adjoint=True)
    np.testing.assert_allclose(np.asarray(got), np.linalg.solve(A.conj().T, B), rtol=1e-10)


@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_left_false(adjoint):
    A, B = _complex((2, 3, 3)) + 4 * np.eye(3), _complex((2, 2, 3))
    lu, piv = jg.linalg.lu_factor(jg.tensor(A))
    got = jg.linalg.lu_solve(lu, piv, jg.tensor(B), left=False, adjoint=adjoint)
    op = np.conj(np.swapaxes(A, -1, -2)) if adjoint else A
    np.testing.assert_allclose(np.asarray(got) @ op, B, rtol=1e-10, atol=1e-12)


def test_empty_matrices_under_jit():
    """0 x 0: det 1 and slogdet (1, 0) in the compiled LAPACK call (lda >= 1), expm empty."""
    e = np.zeros((0, 0), np.float32)
    det, (sign, logdet) = jg.jit(lambda a: (jg.linalg.det(a), jg.linalg.slogdet(a)))(e)
    assert (float(det), float(sign), float(logdet)) == (1.0, 1.0, 0.0)
    assert jg.jit(jg.linalg.matrix_exp)(e).shape == (0, 0)
    assert jg.linalg.matrix_exp(e).shape == (0, 0)


def test_pinv_and_matrix_rank_take_torchs_atol_and_rtol():
    """Cutoff max(atol, rtol * s_max); a positive atol alone makes rtol 0 (torch's rule)."""
    A = np.diag([4.0, 1.0, 1e-3])
    rank = lambda **kw: int(jg.linalg.matrix_rank(jg.tensor(A), **kw))  # noqa: E731
    assert (rank(), rank(atol=0.01), rank(atol=2.0), rank(rtol=0.1), rank(atol=0.5, rtol=0.5)) \
        == (3, 2, 1, 2, 1)
    assert int(jg.linalg.matrix_rank(jg.tensor(-A), hermitian=True, atol=0.01)) == 2
    np.testing.assert_allclose(np.asarray(jg.linalg.pinv(jg.tensor(A), atol=0.01)),
                               np.diag([0.25, 1.0, 0.0]), atol=1e-15)
    np.testing.assert_allclose(np.asarray(jg.linalg.pinv(jg.tensor(-A), hermitian=True,
                                                         rtol=0.1)),
                               np.diag([-0.25, -1.0, 0.0]), atol=1e-15)
    batched = jg.linalg.matrix_rank(jg.tensor(np.stack([A, A])), atol=jg.tensor([0.01, 2.0]))
    np.testing.assert_array_equal(np.asarray(batched), [2, 1])
    assert batched.dtype == np.int64


def test_ex_forms_report_failures_in_info_as_torch():
    """info was always 0: now LU's first zero pivot (1-based) for inv_ex / solve_ex /
    lu_factor_ex, nonzero for a cholesky_ex of a matrix that is not positive-definite."""
    singular, indefinite = np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[1.0, 2.0], [2.0, 1.0]])
    batch = jg.tensor(np.stack([singular, np.eye(2)]))
    np.testing.assert_array_equal(np.asarray(jg.linalg.inv_ex(batch).info), [2, 0])
    np.testing.assert_array_equal(np.asarray(jg.linalg.lu_factor_ex(batch).info), [2, 0])
    assert int(jg.linalg.solve_ex(jg.tensor(singular), jg.tensor([1.0, 1.0])).info) == 2
    assert int(jg.linalg.cholesky_ex(jg.tensor(indefinite)).info) != 0
    assert int(jg.linalg.cholesky_ex(jg.tensor(np.eye(2))).L.sum()) == 2
    jitted = jg.jit(lambda a: jg.linalg.inv_ex(a).info)(batch)
    np.testing.assert_array_equal(np.asarray(jitted), [2, 0])
    with pytest.raises(np.linalg.LinAlgError, match="inv_ex: the factorization failed"):
        jg.linalg.inv_ex(batch, check_errors=True)
    with pytest.raises(jg.ConcretizationError, match="check_errors=True.*traced function"):
        jg.jit(lambda a: jg.linalg.inv_ex(a, check_errors=True))(batch)
    assert jg.linalg.inv_ex(jg.tensor(np.eye(2)), check_errors=True).inverse.shape == (2, 2)
