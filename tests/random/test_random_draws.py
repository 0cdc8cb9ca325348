"""jg.random draws: JAX's threefry bits, vmap over keys as kernels, traced keys, and the
distributions checked statistically with fixed seeds (loose bounds: a few standard errors)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

R = jg.random

# produced with jax 0.10.2 (default partitionable threefry): jax.random.bits(PRNGKey(0), (3,)),
# split(PRNGKey(0)), fold_in(PRNGKey(0), 3), uniform(PRNGKey(0), (3,)), normal(PRNGKey(1), (4,))
JAX_BITS = [4070199207, 4202968722, 1427181096]
JAX_SPLIT = [[1797259609, 2579123966], [928981903, 3453687069]]
JAX_FOLD_IN_3 = [2467461003, 3840466878]
JAX_UNIFORM = [0.947667, 0.9785799, 0.33229148]
JAX_NORMAL_1 = [-0.15443718, 0.08470728, -0.13598049, -0.15503626]


@pytest.mark.parametrize("path", ["eager", "jit"])
def test_bits_split_fold_in_equal_jax(path):
    def draws(k, k1):
        return (R.bits(k, (3,)), R.split(k), R.fold_in(k, 3), R.uniform(k, (3,)),
                R.normal(k1, (4,)))
    bits, split, folded, u, z = (draws if path == "eager" else jg.jit(draws))(R.key(0), R.key(1))
    assert bits.tolist() == JAX_BITS and split.tolist() == JAX_SPLIT
    assert folded.tolist() == JAX_FOLD_IN_3
    np.testing.assert_array_equal(u.numpy(), np.array(JAX_UNIFORM, np.float32))
    np.testing.assert_allclose(z.numpy(), JAX_NORMAL_1, rtol=1e-5)


@pytest.mark.interpreter
def test_draws_on_the_interpreter_equal_eager():
    k = R.key(5)
    f = jg.jit(lambda k: (R.normal(k, (8,)), R.randint(k, (8,), 0, 10), R.split(k, 3)))
    for got, want in zip(f(k), (R.normal(k, (8,)), R.randint(k, (8,), 0, 10), R.split(k, 3))):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_vmap_over_keys_is_kernels_not_a_scan():
    keys = R.split(R.key(0), 8)
    f = jg.jit(jg.vmap(lambda k: R.normal(k, (16,))))
    out = f(keys).numpy()
    want = np.stack([R.normal(k, (16,)).numpy() for k in keys])
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    assert "scan" not in f.lower(keys).optimized_ir
    np.testing.assert_allclose(jg.vmap(lambda k: R.normal(k, (16,)))(keys).numpy(), want,
                               rtol=1e-6, atol=1e-6)


def test_traced_seeds_and_fold_in_data():
    seeds = jnp.asarray([0, 1, 7, -1])
    keys = jg.jit(jg.vmap(R.key))(seeds)
    assert keys.tolist() == [R.key(s).tolist() for s in (0, 1, 7, -1)]
    g = jg.jit(lambda k, i: R.fold_in(k, i))
    assert g(R.key(0), jnp.asarray(3)).tolist() == JAX_FOLD_IN_3
    with pytest.raises(TypeError, match="data must be a scalar integer, got float32"):
        R.fold_in(R.key(0), jnp.asarray(1.5, jnp.float32))


def test_same_key_same_draws_other_key_other_draws():
    for draw in (lambda k: R.gumbel(k, (50,)), lambda k: R.randint(k, (50,), 0, 1000),
                 lambda k: R.categorical(k, jnp.zeros(10), shape=(50,))):
        a, b, c = draw(R.key(1)).numpy(), draw(R.key(1)).numpy(), draw(R.key(2)).numpy()
        assert np.array_equal(a, b) and not np.array_equal(a, c)


N = 20000


def _mean_var(x, mean, var, k=5):
    se = np.sqrt(var / len(x))
    assert abs(x.mean() - mean) < k * se, (x.mean(), mean)
    assert abs(x.var() - var) < k * np.sqrt(2 * var ** 2 / len(x)) * 3, (x.var(), var)


@pytest.mark.parametrize("name, draw, cdf", [
    ("normal", lambda k: R.normal(k, (N,)), ("norm", ())),
    ("uniform", lambda k: R.uniform(k, (N,), minval=2.0, maxval=5.0), ("uniform", (2, 3))),
    ("exponential", lambda k: R.exponential(k, (N,)), ("expon", ())),
    ("gumbel", lambda k: R.gumbel(k, (N,)), ("gumbel_r", ())),
    ("gumbel high", lambda k: R.gumbel(k, (N,), mode="high"), ("gumbel_r", ())),
    ("laplace", lambda k: R.laplace(k, (N,)), ("laplace", ())),
    ("logistic", lambda k: R.logistic(k, (N,)), ("logistic", ())),
    ("cauchy", lambda k: R.cauchy(k, (N,)), ("cauchy", ())),
    ("lognormal", lambda k: R.lognormal(k, 0.5, (N,)), ("lognorm", (0.5,))),
    ("pareto", lambda k: R.pareto(k, 3.0, (N,)), ("pareto", (3.0,))),
    ("weibull_min", lambda k: R.weibull_min(k, 2.0, 1.5, (N,)), ("weibull_min", (1.5, 0, 2.0))),
    ("rayleigh", lambda k: R.rayleigh(k, 2.0, (N,)), ("rayleigh", (0, 2.0))),
    ("maxwell", lambda k: R.maxwell(k, (N,)), ("maxwell", ())),
    ("triangular", lambda k: R.triangular(k, 0.0, 1.0, 3.0, (N,)), ("triang", (1 / 3, 0, 3))),
    ("wald", lambda k: R.wald(k, 2.0, (N,)), ("invgauss", (2.0,))),
    ("truncated_normal", lambda k: R.truncated_normal(k, -1.0, 2.0, (N,)),
     ("truncnorm", (-1.0, 2.0))),
], ids=lambda v: v if isinstance(v, str) else "")
def test_continuous_distributions_pass_a_ks_test(name, draw, cdf):
    stats = pytest.importorskip("scipy.stats")
    x = draw(R.key(11)).numpy().astype(np.float64)
    assert x.dtype.kind == "f" and np.isfinite(x).all()
    dist, args = cdf
    assert stats.kstest(x, dist, args=args).pvalue > 1e-3


def test_discrete_distributions_moments():
    _mean_var(R.randint(R.key(1), (N,), 3, 9).numpy(), 5.5, 35 / 12)
    _mean_var(R.geometric(R.key(2), 0.3, (N,)).numpy(), 1 / 0.3, 0.7 / 0.09)
    _mean_var(R.rademacher(R.key(3), (N,)).numpy(), 0.0, 1.0)
    b = R.bernoulli(R.key(4), jnp.asarray([0.1, 0.9]), (N, 2)).numpy()
    assert b.dtype == np.bool_ and np.allclose(b.mean(0), [0.1, 0.9], atol=0.015)
    c = R.categorical(R.key(5), jnp.log(jnp.asarray([0.2, 0.3, 0.5])), shape=(N,)).numpy()
    assert np.allclose(np.bincount(c) / N, [0.2, 0.3, 0.5], atol=0.015)


def test_gamma_family_moments():
    g = R.gamma(R.key(1), jnp.asarray([0.3, 2.5]), (4000, 2)).numpy()
    _mean_var(g[:, 0], 0.3, 0.3)
    _mean_var(g[:, 1], 2.5, 2.5)
    b = R.beta(R.key(2), 2.0, 3.0, (4000,)).numpy()
    _mean_var(b, 0.4, 6 / (25 * 6))
    d = R.dirichlet(R.key(3), jnp.asarray([1.0, 2.0, 3.0]), (4000,)).numpy()
    assert np.allclose(d.sum(-1), 1, atol=1e-5) and np.allclose(d.mean(0), [1 / 6, 1 / 3, 1 / 2], atol=0.02)
    assert np.isfinite(R.loggamma(R.key(4), 1e-3, (100,)).numpy()).all()


def test_counts_moments():
    lam = jnp.asarray([0.5, 3.0, 30.0, 500.0])
    p = R.poisson(R.key(1), lam, (2000, 4)).numpy()
    assert p.dtype == np.int64
    for i, m in enumerate([0.5, 3.0, 30.0, 500.0]):
        _mean_var(p[:, i].astype(float), m, m)
    b = R.binomial(R.key(2), 20.0, jnp.asarray([0.3, 0.8]), (2000, 2)).numpy()
    _mean_var(b[:, 0], 6.0, 4.2)
    _mean_var(b[:, 1], 16.0, 3.2)
    m = R.multinomial(R.key(3), 10.0, jnp.asarray([0.2, 0.3, 0.5]), shape=(2000,)).numpy()
    assert (m.sum(-1) == 10).all() and np.allclose(m.mean(0), [2, 3, 5], atol=0.15)


@pytest.mark.parametrize("method", ["cholesky", "eigh", "svd"])
def test_multivariate_normal_covariance(method):
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    x = R.multivariate_normal(R.key(1), jnp.asarray([1.0, -1.0]), jnp.asarray(cov), (N,),
                              method=method).numpy()
    assert x.shape == (N, 2)
    assert np.allclose(x.mean(0), [1, -1], atol=0.05) and np.allclose(np.cov(x.T), cov, atol=0.06)


def test_orthogonal_ball_choice():
    q = R.orthogonal(R.key(1), 3, (2,)).numpy()
    assert q.shape == (2, 3, 3) and np.allclose(q @ q.transpose(0, 2, 1), np.eye(3), atol=1e-5)
    w = R.orthogonal(R.key(1), 2, m=4).numpy()
    assert w.shape == (2, 4) and np.allclose(w @ w.T, np.eye(2), atol=1e-5)
    pts = R.ball(R.key(2), 3, shape=(500,)).numpy()
    assert pts.shape == (500, 3) and (np.linalg.norm(pts, axis=-1) <= 1).all()
    picks = R.choice(R.key(3), jnp.arange(5) * 10, (4,), replace=False).numpy()
    assert len(set(picks.tolist())) == 4 and set(picks.tolist()) <= set(range(0, 50, 10))
    with pytest.raises(ValueError, match="larger sample"):
        R.choice(R.key(3), 3, (4,), replace=False)


def test_reparameterized_gradients():
    k = R.key(0)
    g = jg.grad(lambda lo, hi: jnp.sum(R.uniform(k, (100,), minval=lo, maxval=hi)), (0, 1))
    dlo, dhi = g(jnp.asarray(1.0), jnp.asarray(3.0))
    u = R.uniform(k, (100,)).numpy()
    np.testing.assert_allclose([float(dlo), float(dhi)], [np.sum(1 - u), np.sum(u)], rtol=1e-4)
    d = jg.grad(lambda s: jnp.sum(R.normal(k, (50,)) * s))(jnp.asarray(2.0))
    np.testing.assert_allclose(float(d), R.normal(k, (50,)).numpy().sum(), rtol=1e-4)
    dl = jg.grad(lambda s: jnp.sum(R.lognormal(k, s, (50,))))(jnp.asarray(0.5))
    z = R.normal(k, (50,)).numpy()
    np.testing.assert_allclose(float(dl), np.sum(z * np.exp(0.5 * z)), rtol=1e-4)


def test_dtypes_follow_jax():
    k = R.key(0)
    assert R.normal(k, (2,)).dtype == jg.float32
    assert R.normal(k, (2,), dtype=jg.float64).dtype == jg.float64
    assert R.normal(k, (2,), dtype=jnp.complex64).dtype == jnp.complex64
    assert R.bits(k, (2,), jnp.uint8).dtype == jnp.uint8
    assert R.randint(k, (2,), 0, 5, dtype=jg.int32).dtype == jg.int32
    with pytest.raises(TypeError, match="unsigned integer dtype, got int32"):
        R.bits(k, (2,), jg.int32)
    with pytest.raises(ValueError, match=r"do not broadcast to the requested shape \(2,\)"):
        R.gamma(k, jnp.ones(3), (2,))
