"""What moved to a lower front-end layer (tests/package/test_layering.py's FRONT_END) computes as before:
lax.conv's 2-D lowering (shared with nn.functional.conv2d), scipy.special's softmax and
log_softmax (computed in jitgrad.scipy), the Bessel series jnp.i0 and scipy.special share,
lax.logistic under nn.sigmoid and scipy.special.expit, vmap installed for jnp.vectorize."""
import numpy as np
import pytest
import scipy.special as ss

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import lax, nn


def test_lax_conv_2d_matches_nn_conv2d_and_numpy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 2)).astype(np.float32)
    out = np.asarray(lax.conv(jnp.asarray(x), jnp.asarray(w), (2, 1), "VALID"))
    ref = np.zeros((2, 4, 3, 5), np.float32)
    for i in range(3):
        for j in range(5):
            ref[:, :, i, j] = np.einsum("nchw,ochw->no", x[:, :, 2 * i:2 * i + 3, j:j + 2], w)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(nn.functional.conv2d(jnp.asarray(x), jnp.asarray(w),
                                                               stride=(2, 1))), ref, rtol=1e-5,
                               atol=1e-5)


def test_lax_conv_with_a_window_larger_than_the_input_says_so():
    with pytest.raises(ValueError, match=r"window of size \(3, 3\).*larger than the padded input"):
        lax.conv(jnp.ones((1, 1, 2, 2)), jnp.ones((1, 1, 3, 3)), (1, 1), "VALID")


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_scipy_softmax_keeps_small_differences_of_large_logits(fn):
    z = np.array([[1e4, 1e4 + 1, 1e4 - 3], [0.5, -2.0, 1.0]], np.float32)
    want = getattr(ss, fn)(z.astype(np.float64), axis=1)
    ours = getattr(jg.scipy.special, fn)
    np.testing.assert_allclose(np.asarray(ours(jnp.asarray(z), axis=1)), want, rtol=2e-6, atol=1e-6)
    jitted = jg.jit(lambda a: ours(a, axis=1))
    np.testing.assert_allclose(np.asarray(jitted(jnp.asarray(z))), want, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(ours(jnp.asarray(z))),      # every axis, as scipy
                               getattr(ss, fn)(z.astype(np.float64)), rtol=2e-6, atol=1e-6)


def test_i0_is_one_function_in_jnp_and_scipy():
    x = np.array([0.0, 1.5, -3.0, 25.0])
    np.testing.assert_allclose(np.asarray(jnp.i0(jnp.asarray(x))), np.i0(x), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(jg.scipy.special.i0(jnp.asarray(x))), ss.i0(x),
                               rtol=1e-12)
    np.testing.assert_allclose(np.asarray(jg.scipy.special.i1e(jnp.asarray(x))), ss.i1e(x),
                               rtol=1e-12)


def test_logistic_sigmoid_and_expit_agree_with_scipy_and_take_ints():
    x = np.array([-30.0, -1.0, 0.0, 2.5], np.float32)
    for f in (lax.logistic, nn.functional.sigmoid, jg.scipy.special.expit):
        np.testing.assert_allclose(np.asarray(f(jnp.asarray(x))), ss.expit(x), rtol=1e-6)
    assert lax.logistic(jnp.asarray([0, 1])).dtype == jnp.float32
    g = jg.grad(lambda a: lax.logistic(a).sum())(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(g), ss.expit(x) * (1 - ss.expit(x)), rtol=1e-5, atol=1e-7)


def test_vectorize_runs_on_the_installed_vmap():
    f = jnp.vectorize(lambda a, b: jnp.dot(a, b), signature="(n),(n)->()")
    a = np.arange(6.0).reshape(2, 3)
    assert np.asarray(f(jnp.asarray(a), jnp.asarray(a))).tolist() == (a * a).sum(1).tolist()
    assert np.asarray(jg.jit(f)(jnp.asarray(a), jnp.asarray(a))).tolist() == \
        (a * a).sum(1).tolist()


@pytest.mark.interpreter
def test_the_moved_code_jitted_on_the_reference_interpreter():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    w = rng.standard_normal((3, 2, 2, 2)).astype(np.float32)
    f = jg.jit(lambda a, b: lax.conv(a, b, (1, 1), "VALID"))
    np.testing.assert_allclose(np.asarray(f(x, w)), np.asarray(lax.conv(jnp.asarray(x),
                                                                        jnp.asarray(w), (1, 1),
                                                                        "VALID")), rtol=1e-5)
    z = np.array([1e4, 1e4 + 1, 1e4 - 3], np.float32)
    np.testing.assert_allclose(np.asarray(jg.jit(jg.scipy.special.log_softmax)(z)),
                               ss.log_softmax(z.astype(np.float64)), rtol=2e-6)
    g = jnp.vectorize(lambda a: jnp.sum(a * a), signature="(n)->()")
    assert np.asarray(jg.jit(g)(np.arange(6.0).reshape(2, 3))).tolist() == [5.0, 50.0]
