"""jitgrad.scipy.signal (jax.scipy.signal's convolutions) against scipy.signal, on every path;
the JAX docs' convolutions notebook smooths an image with jsp.signal.convolve(..., mode='same')."""
import numpy as np
import pytest
import scipy.signal as ss

import jitgrad as jg
import jitgrad.scipy as jsp

R = np.random.default_rng(0)
SHAPES = [((7,), (3,)), ((3,), (7,)), ((6, 5), (3, 2)), ((3, 2), (6, 5)), ((4, 3), (4, 3)),
          ((5, 4, 3), (2, 3, 3))]


@pytest.mark.parametrize("s1, s2", SHAPES)
@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_nd_against_scipy_eager_and_jit(name, s1, s2):
    a, b = R.standard_normal(s1), R.standard_normal(s2)
    for mode in ("full", "same", "valid"):
        want = getattr(ss, name)(a, b, mode, method="direct")
        f = getattr(jsp.signal, name)
        np.testing.assert_allclose(np.asarray(f(a, b, mode)), want, atol=1e-12)
        got = jg.jit(f, static_argnums=2)(a.astype(np.float32), b.astype(np.float32), mode)
        assert got.dtype == jg.float32
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-5)


@pytest.mark.parametrize("s1, s2", [s for s in SHAPES if len(s[0]) == 2])
@pytest.mark.parametrize("name", ["convolve2d", "correlate2d"])
def test_2d_against_scipy(name, s1, s2):
    a, b = R.standard_normal(s1), R.standard_normal(s2)
    for mode in ("full", "same", "valid"):
        np.testing.assert_allclose(np.asarray(getattr(jsp.signal, name)(a, b, mode)),
                                   getattr(ss, name)(a, b, mode), atol=1e-12)


@pytest.mark.interpreter
def test_interpreter_grad_and_vmap():
    a, b = R.standard_normal((6, 5)), R.standard_normal((3, 3))
    f = lambda a, b: jsp.signal.convolve(a, b, mode="same")
    np.testing.assert_allclose(np.asarray(jg.jit(f)(a, b)), ss.convolve(a, b, "same"), atol=1e-12)
    # d/da sum(w * convolve(a, b, 'valid')) = correlate(w, b, 'full')
    w = R.standard_normal((4, 3))
    g = jg.grad(lambda a: (w * jsp.signal.convolve(a, b, mode="valid")).sum())(a)
    np.testing.assert_allclose(np.asarray(g), ss.correlate(w, b, "full"), atol=1e-12)
    batch = R.standard_normal((2, 6, 5))
    out = jg.vmap(lambda x: jsp.signal.convolve(x, b, mode="same"))(batch)
    np.testing.assert_allclose(np.asarray(out), [ss.convolve(x, b, "same") for x in batch],
                               atol=1e-12)


@pytest.mark.parametrize("call, error, match", [
    (lambda: jsp.signal.convolve(np.ones(3), np.ones(2), "middle"), ValueError, "mode must be one of"),
    (lambda: jsp.signal.convolve(np.ones(3), np.ones(2), method="fast"), ValueError, "method must"),
    (lambda: jsp.signal.convolve(np.ones(3), np.ones((2, 2))), ValueError, "same number of dim"),
    (lambda: jsp.signal.convolve(np.ones((3, 2)), np.ones((2, 3))), ValueError, "smaller than"),
    (lambda: jsp.signal.convolve(np.ones(0), np.ones(2)), ValueError, "zero-size"),
    (lambda: jsp.signal.convolve2d(np.ones(3), np.ones(2)), ValueError, "2-dimensional inputs"),
    (lambda: jsp.signal.correlate2d(np.ones((3, 3)), np.ones((2, 2)), boundary="wrap"),
     NotImplementedError, "boundary='fill'"),
])
def test_errors_name_what_was_expected(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_against_jax_when_installed():
    jax_signal = pytest.importorskip("jax.scipy.signal")
    a, b = R.standard_normal((9, 8)).astype(np.float32), R.standard_normal((3, 4)).astype(np.float32)
    for mode in ("full", "same", "valid"):
        np.testing.assert_allclose(np.asarray(jsp.signal.correlate2d(a, b, mode)),
                                   np.asarray(jax_signal.correlate2d(a, b, mode)), atol=1e-5)
