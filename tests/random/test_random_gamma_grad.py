"""Gradients of jg.random's gamma family in the shape parameter (JAX's implicit
reparameterization) against scipy: d/da of scipy.stats.gamma.ppf(u, a) with the draw's CDF
value u held fixed; and jitgrad.scipy.special.gammainc / gammaincc (the incomplete gamma that
gradient is built on) against scipy.special."""
import numpy as np
import pytest
import scipy.special as S
import scipy.stats as ST

import jitgrad as jg
import jitgrad.numpy as jnp
import jitgrad.scipy.special as G
from jitgrad import random as R

A = np.array([0.1, 0.3, 0.7, 1.0, 2.5, 10.0, 50.0])


def _draw_of(x, a, a_new):
    """The Gamma(a_new) draw with the same CDF value as the Gamma(a) draw x (the upper tail
    through isf, where the CDF is near 1)."""
    lower = x < a
    u, q = S.gammainc(a, x), S.gammaincc(a, x)
    return np.where(lower, ST.gamma.ppf(u, a_new), ST.gamma.isf(q, a_new))


def _ppf_grad(x, a):
    """d x / d a holding the CDF value fixed, by central differences of scipy's ppf."""
    h = 1e-5 * a
    return (_draw_of(x, a, a + h) - _draw_of(x, a, a - h)) / (2 * h)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_grad_is_the_ppf_derivative(dtype):
    key = R.key(3)
    a = jnp.asarray(np.tile(A, (3, 1)).astype(dtype))
    x = np.asarray(R.gamma(key, a, dtype=dtype), np.float64)
    w = np.arange(1.0, 1.0 + x.size).reshape(x.shape)
    g = np.asarray(jg.grad(lambda b: (R.gamma(key, b, dtype=dtype) * w).sum())(a))
    assert g.dtype == np.dtype(dtype)
    np.testing.assert_allclose(g, w * _ppf_grad(x, np.asarray(a, np.float64)), rtol=1e-4)


def test_loggamma_grad_for_draws_that_underflow():
    keys, a = R.split(R.key(5), 3), jnp.asarray([1e-3, 2e-3, 0.05])
    g = np.asarray(jg.vmap(jg.grad(lambda b, k: R.loggamma(k, b)))(a, keys))
    log_x = np.asarray(jg.vmap(lambda b, k: R.loggamma(k, b))(a, keys), np.float64)
    assert (log_x[:2] < -110).all()       # the draws themselves underflow in float32
    # for tiny x, P(a, x) = x^a / Gamma(a + 1): d log x / da = (digamma(a + 1) - log x) / a
    a64 = np.asarray(a, np.float64)
    np.testing.assert_allclose(g, (S.digamma(a64 + 1) - log_x) / a64, rtol=1e-3)


def test_jit_and_vmap_of_the_grad_match_eager():
    keys = R.split(R.key(7), 4)
    a = jnp.asarray([0.4, 1.5, 6.0, 30.0], "float64")
    one = jg.grad(lambda b, k: R.gamma(k, b, dtype="float64"))
    got = np.asarray(jg.jit(jg.vmap(one))(a, keys))
    x = np.asarray(jg.vmap(lambda b, k: R.gamma(k, b, dtype="float64"))(a, keys))
    np.testing.assert_allclose(got, _ppf_grad(x, np.asarray(a)), rtol=1e-4)
    np.testing.assert_allclose(float(one(a[2], keys[2])), got[2], rtol=1e-12)


def test_chisquare_grad_is_the_gamma_grad_at_half_df():
    key, df = R.key(2), jnp.asarray([0.6, 3.0, 17.0])
    g_chi = jg.grad(lambda d: R.chisquare(key, d).sum())(df)
    g_gamma = jg.grad(lambda a: R.gamma(key, a).sum())(df * 0.5)
    np.testing.assert_allclose(np.asarray(g_chi), np.asarray(g_gamma), rtol=1e-6)


def test_beta_grad_through_its_two_gamma_draws():
    key, a, b = R.key(11), np.array([0.5, 2.0, 8.0]), np.array([3.0, 0.4, 8.0])
    ka, kb = R.split(key)
    gx = np.exp(np.asarray(R.loggamma(ka, a, dtype="float64")))
    gy = np.exp(np.asarray(R.loggamma(kb, b, dtype="float64")))

    def ref(a2, b2):
        x, y = _draw_of(gx, a, a2), _draw_of(gy, b, b2)
        return x / (x + y)

    np.testing.assert_allclose(np.asarray(R.beta(key, a, b, dtype="float64")), ref(a, b),
                               rtol=1e-9)
    ga, gb = jg.grad(lambda p, q: R.beta(key, p, q, dtype="float64").sum(), argnums=(0, 1))(a, b)
    h = 1e-6
    np.testing.assert_allclose(np.asarray(ga), (ref(a + h, b) - ref(a - h, b)) / (2 * h),
                               rtol=1e-5)
    np.testing.assert_allclose(np.asarray(gb), (ref(a, b + h) - ref(a, b - h)) / (2 * h),
                               rtol=1e-5)


def test_dirichlet_grad_through_its_gamma_draws():
    key, alpha = R.key(13), np.array([0.3, 1.0, 4.0, 12.0])
    w = np.array([1.0, -2.0, 0.5, 3.0])
    g0 = np.exp(np.asarray(R.loggamma(key, alpha, (2, 4), dtype="float64")))

    def ref(al):
        g = _draw_of(g0, alpha, al)
        return (g / g.sum(-1, keepdims=True) * w).sum()

    got = np.asarray(jg.grad(lambda al: (R.dirichlet(key, al, (2,), dtype="float64") * w).sum())(
        alpha))
    h = 1e-6
    want = [(ref(alpha + h * e) - ref(alpha - h * e)) / (2 * h) for e in np.eye(4)]
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("sampler", ["t", "f", "generalized_normal"])
def test_the_other_samplers_have_a_nonzero_shape_grad(sampler):
    key, p = R.key(17), jnp.asarray([1.5, 4.0])
    fn = {"t": lambda d: R.t(key, d), "f": lambda d: R.f(key, d, d[::-1]),
          "generalized_normal": lambda d: R.generalized_normal(key, d, (2,))}[sampler]
    g = np.asarray(jg.grad(lambda d: fn(d).sum())(p))
    assert np.all(np.isfinite(g)) and np.all(g != 0)


RNG = np.random.default_rng(0)
GA = np.exp(RNG.uniform(np.log(0.05), np.log(200), 120))
GX = np.concatenate([RNG.uniform(0, 3, 20), GA[20:] * np.exp(RNG.normal(0, 0.7, 100))])


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-11), (np.float32, 2e-5)])
def test_incomplete_gamma_matches_scipy(name, dtype, rtol):
    a, x = GA.astype(dtype), GX.astype(dtype)
    got = np.asarray(getattr(G, name)(a, x))
    assert got.dtype == dtype
    np.testing.assert_allclose(got, getattr(S, name)(a.astype(float), x.astype(float)),
                               rtol=rtol, atol=10 * np.finfo(dtype).eps)


def test_incomplete_gamma_edges_as_scipy():
    a = np.array([0.0, 0.0, 1.0, 1.0, -1.0, np.nan, 2.0, 2.0, 3.0])
    x = np.array([0.0, 1.0, 0.0, np.inf, 1.0, 1.0, -1.0, np.nan, 1e300])
    for name in ("gammainc", "gammaincc"):
        np.testing.assert_array_equal(np.asarray(getattr(G, name)(a, x)),
                                      getattr(S, name)(a, x), err_msg=name)


def test_incomplete_gamma_grads_match_scipy():
    a, x = GA[::4], GX[::4]
    ga, gx = jg.vmap(jg.grad(G.gammainc, argnums=(0, 1)))(a, x)
    h = 1e-6 * a
    fd = (S.gammainc(a + h, x) - S.gammainc(a - h, x)) / (2 * h)
    np.testing.assert_allclose(np.asarray(ga), fd, rtol=1e-4, atol=1e-9)
    np.testing.assert_allclose(np.asarray(gx), ST.gamma.pdf(x, a), rtol=1e-10)
    gcx = jg.jit(jg.grad(lambda t: G.gammaincc(2.5, t).sum()))(x)
    np.testing.assert_allclose(np.asarray(gcx), -ST.gamma.pdf(x, 2.5), rtol=1e-10, atol=1e-300)
