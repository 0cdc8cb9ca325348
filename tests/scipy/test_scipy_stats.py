"""jitgrad.scipy.stats against scipy.stats: each distribution's functions at a few points
(float64), grad and vmap of the log densities, jit, and the error paths."""
import numpy as np
import pytest
import scipy.stats as SS

import jitgrad as jg
import jitgrad.scipy.stats as ST

X = np.array([-2.5, -0.3, 0.0, 0.4, 1.7, 3.0])
POS = np.array([0.05, 0.3, 0.9, 1.7, 3.0, 8.0])
UNIT = np.array([0.01, 0.2, 0.5, 0.77, 0.99])
K = np.array([0.0, 1.0, 2.0, 5.0, 2.5, -1.0])

# (distribution, function, args after x, x): scipy.stats' function of the same name is the
# reference
CASES = [
    ("norm", f, (0.5, 2.0), X) for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
] + [("norm", f, (0.5, 2.0), UNIT) for f in ("ppf", "isf")] + [
    ("expon", f, (0.1, 2.0), X) for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
] + [("expon", "ppf", (0.1, 2.0), UNIT)] + [
    ("laplace", f, (0.2, 1.5), X) for f in ("logpdf", "pdf", "cdf")
] + [("logistic", f, (0.2, 1.5), X) for f in ("logpdf", "pdf", "cdf", "sf")] + [
    ("logistic", f, (0.2, 1.5), UNIT) for f in ("ppf", "isf")
] + [("cauchy", f, (0.2, 1.5), X) for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
     ] + [("cauchy", f, (0.2, 1.5), UNIT) for f in ("ppf", "isf")] + [
    ("uniform", f, (-1.0, 3.0), X) for f in ("logpdf", "pdf", "cdf")
] + [("uniform", "ppf", (-1.0, 3.0), UNIT)] + [
    (d, f, (0.3, 1.2), X) for d in ("gumbel_r", "gumbel_l")
    for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
] + [(d, "ppf", (0.3, 1.2), UNIT) for d in ("gumbel_r", "gumbel_l")] + [
    ("gamma", "logpdf", (2.5, 0.1, 1.5), POS), ("gamma", "pdf", (0.7,), POS),
    ("beta", "logpdf", (2.5, 1.5), UNIT), ("beta", "pdf", (0.7, 3.0), UNIT),
    ("t", "logpdf", (3.5, 0.2, 1.3), X), ("t", "pdf", (1.0,), X),
    ("chi2", "logpdf", (3.0,), POS), ("chi2", "pdf", (1.5, 0.0, 2.0), POS),
    ("gennorm", "logpdf", (1.5,), X), ("gennorm", "pdf", (3.0,), X),
    ("pareto", "logpdf", (2.5,), POS + 0.5), ("pareto", "cdf", (2.5,), POS + 0.5),
    ("pareto", "sf", (2.5,), POS + 0.5), ("pareto", "logsf", (2.5,), POS + 0.5),
    ("pareto", "ppf", (2.5,), UNIT),
    ("truncnorm", "logpdf", (-1.0, 2.0), X), ("truncnorm", "cdf", (-1.0, 2.0), X),
    ("truncnorm", "sf", (0.5, 6.0, 0.1, 1.2), X), ("truncnorm", "logpdf", (5.0, 9.0), X + 6),
    ("vonmises", "logpdf", (2.0,), X / 1.2), ("wrapcauchy", "pdf", (0.4,), POS),
    ("bernoulli", "logpmf", (0.3,), K), ("bernoulli", "pmf", (0.3,), K),
    ("bernoulli", "cdf", (0.3,), X), ("bernoulli", "ppf", (0.3,), UNIT),
    ("poisson", "logpmf", (2.5,), K), ("poisson", "pmf", (2.5, 1.0), K),
    ("binom", "logpmf", (5.0, 0.3), K), ("nbinom", "logpmf", (3.0, 0.4), K),
    ("betabinom", "logpmf", (5.0, 2.0, 3.0), K), ("geom", "logpmf", (0.3,), K),
    ("geom", "pmf", (0.3,), K),
]


@pytest.mark.parametrize("dist,fn,args,x", CASES, ids=[f"{c[0]}.{c[1]}{i}"
                                                      for i, c in enumerate(CASES)])
def test_matches_scipy(dist, fn, args, x):
    got = getattr(getattr(ST, dist), fn)(x, *args)
    want = getattr(getattr(SS, dist), fn)(x, *args)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-9, atol=1e-13)


def test_multivariate_normal_matches_scipy():
    rng = np.random.default_rng(2)
    a = rng.normal(size=(3, 3))
    cov, mean = a @ a.T + np.eye(3), rng.normal(size=3)
    x = rng.normal(size=(5, 3))
    for c in (cov, np.array([0.5, 1.0, 2.0]), 1.5):
        want = SS.multivariate_normal.logpdf(x, mean, np.diag(c) if np.ndim(c) == 1 else c)
        np.testing.assert_allclose(np.asarray(ST.multivariate_normal.logpdf(x, mean, c)), want,
                                   rtol=1e-10)
    np.testing.assert_allclose(np.asarray(ST.multivariate_normal.pdf(x[0], mean, cov)),
                               SS.multivariate_normal.pdf(x[0], mean, cov), rtol=1e-10)


def test_multinomial_dirichlet_and_sem_match_scipy():
    counts, p = np.array([[1.0, 2.0, 3.0], [0.0, 6.0, 0.0]]), np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(np.asarray(ST.multinomial.logpmf(counts, 6.0, p)),
                               SS.multinomial.logpmf(counts, 6, p), rtol=1e-10)
    assert float(ST.multinomial.logpmf(np.array([1.0, 2.0, 2.0]), 6.0, p)) == -np.inf
    x, alpha = np.array([0.2, 0.3, 0.5]), np.array([1.5, 2.0, 3.0])
    np.testing.assert_allclose(float(ST.dirichlet.logpdf(x, alpha)),
                               SS.dirichlet.logpdf(x, alpha), rtol=1e-10)
    np.testing.assert_allclose(float(ST.dirichlet.logpdf(x[:2], alpha)),
                               SS.dirichlet.logpdf(x, alpha), rtol=1e-10)
    data = np.arange(12.0).reshape(3, 4) ** 1.5
    np.testing.assert_allclose(np.asarray(ST.sem(data)), SS.sem(data), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ST.sem(data, axis=None)), SS.sem(data, axis=None),
                               rtol=1e-12)


def test_grad_and_vmap_of_log_densities():
    # d/dmu norm.logpdf(x, mu, s) = (x - mu) / s^2; d/dmu poisson.logpmf(k, mu) = k/mu - 1
    g = jg.vmap(jg.grad(lambda mu, x: ST.norm.logpdf(x, mu, 2.0)), in_axes=(None, 0))(0.5, X)
    np.testing.assert_allclose(np.asarray(g), (X - 0.5) / 4.0, rtol=1e-6)  # mu is float32
    g = jg.grad(lambda mu: ST.poisson.logpmf(3.0, mu))(2.0)
    np.testing.assert_allclose(float(g), 3.0 / 2.0 - 1.0, rtol=1e-6)
    # d/dx t.logpdf(x, df) = -(df + 1) x / (df + x^2)
    g = jg.vmap(jg.grad(lambda x: ST.t.logpdf(x, 3.0)))(X)
    np.testing.assert_allclose(np.asarray(g), -4.0 * X / (3.0 + X * X), rtol=1e-10)


def test_jit_matches_eager():
    f = jg.jit(lambda x: ST.norm.logpdf(x, 0.5, 2.0) + ST.expon.logcdf(x))
    np.testing.assert_allclose(np.asarray(f(POS)),
                               SS.norm.logpdf(POS, 0.5, 2.0) + SS.expon.logcdf(POS), rtol=1e-12)


@pytest.mark.interpreter
def test_jit_on_the_interpreter_matches_scipy():
    f = jg.jit(lambda x: ST.gamma.logpdf(x, 2.5) + ST.norm.logcdf(x))
    np.testing.assert_allclose(np.asarray(f(POS)), SS.gamma.logpdf(POS, 2.5) +
                               SS.norm.logcdf(POS), rtol=1e-10)


def test_errors_name_what_was_expected():
    with pytest.raises(ValueError, match=r"multivariate_normal.logpdf: expected cov of shape "
                                         r"\(3, 3\)"):
        ST.multivariate_normal.logpdf(np.zeros(3), np.zeros(3), np.eye(2))
    with pytest.raises(ValueError, match="dirichlet.logpdf: expected x with 3 or 2 entries"):
        ST.dirichlet.logpdf(np.ones(4) / 4, np.ones(3))
    with pytest.raises(TypeError, match="gamma.logpdf: expected x, 1 shape parameter"):
        ST.gamma.logpdf(1.0)
    with pytest.raises(NotImplementedError, match="nan_policy='propagate'"):
        ST.sem(np.ones(3), nan_policy="omit")


@pytest.mark.parametrize("fn", ["cdf", "sf", "logcdf", "logsf"])
def test_gamma_and_chi2_tails_from_the_incomplete_gamma(fn):
    """gamma/chi2 cdf, sf and their logs (scipy.stats) through jitgrad.scipy.special's
    gammainc/gammaincc: values, and the cdf's derivative in the shape parameter."""
    x = np.array([-1.0, 0.3, 1.7, 5.0, 30.0])
    np.testing.assert_allclose(np.asarray(getattr(ST.gamma, fn)(x, 2.5, loc=0.1, scale=1.5)),
                               getattr(SS.gamma, fn)(x, 2.5, loc=0.1, scale=1.5), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(np.asarray(getattr(ST.chi2, fn)(x, 3.0)),
                               getattr(SS.chi2, fn)(x, 3.0), rtol=1e-10, atol=1e-12)


def test_gamma_cdf_gradient_and_poisson_cdf():
    g = float(jg.grad(lambda a: ST.gamma.cdf(1.5, a))(2.0))
    fd = (SS.gamma.cdf(1.5, 2.0 + 1e-6) - SS.gamma.cdf(1.5, 2.0 - 1e-6)) / 2e-6
    assert abs(g - fd) < 1e-6
    k = np.array([-1, 0, 2, 3.5, 10])
    np.testing.assert_allclose(np.asarray(ST.poisson.cdf(k, 3.2)), SS.poisson.cdf(k, 3.2),
                               atol=1e-12)
