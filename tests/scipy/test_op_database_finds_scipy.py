"""Regressions of the bugs the op database's generated tests found in jitgrad.scipy.linalg
(issue 49): float32 inputs kept float32 (eigh_tridiagonal, leslie), the host-built matrices in
the default float dtype (as jax.scipy), expm of 16-bit matrices finite."""
import numpy as np
import scipy.linalg as sl

import jitgrad.scipy.linalg as jsl

F32 = np.float32


def test_eigh_tridiagonal_and_leslie_keep_float32():
    d, e = np.array([2.0, 3.0, 4.0], F32), np.array([0.5, -0.5], F32)
    w = jsl.eigh_tridiagonal(d, e, eigvals_only=True)
    assert w.dtype == F32
    np.testing.assert_allclose(w, sl.eigh_tridiagonal(d, e, eigvals_only=True), rtol=1e-5)
    m = jsl.leslie(d, e)
    assert m.dtype == F32
    np.testing.assert_allclose(m, sl.leslie(d, e))


def test_matrices_of_a_size_are_default_float():
    for name, args in (("hilbert", (3,)), ("invhilbert", (3,)), ("helmert", (4,))):
        got = getattr(jsl, name)(*args)
        assert got.dtype == F32, name
        np.testing.assert_allclose(got, getattr(sl, name)(*args), rtol=1e-6)
    assert jsl.dft(4).dtype == np.complex64
    assert jsl.pascal(4).dtype.kind in "iu"


def test_expm_of_float16_is_the_float32_result_rounded():
    a = (np.arange(9.0).reshape(3, 3) / 9.0).astype(np.float16)
    got = jsl.expm(a)
    assert got.dtype == np.float16
    np.testing.assert_allclose(np.asarray(got, np.float64), sl.expm(a.astype(np.float64)),
                               rtol=5e-3, atol=5e-3)


def test_dirichlet_reads_coordinates_on_the_first_axis_as_scipy():
    import jitgrad.scipy.stats as jst
    import scipy.stats as ss
    x = np.array([[0.2, 0.5, 0.1, 0.3], [0.3, 0.25, 0.6, 0.3], [0.5, 0.25, 0.3, 0.4]])
    alpha = np.array([1.5, 2.0, 3.0])
    np.testing.assert_allclose(jst.dirichlet.logpdf(x, alpha), ss.dirichlet.logpdf(x, alpha),
                               rtol=1e-10)
    np.testing.assert_allclose(jst.dirichlet.pdf(x[:2], alpha), ss.dirichlet.pdf(x, alpha),
                               rtol=1e-10)


def test_bernoulli_ppf_keeps_float64():
    import jitgrad.scipy.stats as jst
    q = np.array([0.0, 0.5, 0.8, 1.0])
    got = jst.bernoulli.ppf(q, 0.3)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, [-1.0, 0.0, 1.0, 1.0])
