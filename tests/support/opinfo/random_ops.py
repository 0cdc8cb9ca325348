"""jitgrad.random's records (JAX owns the names; key-based draws). A draw is compared
statistically but deterministically: from a fixed key, its quartiles (continuous laws) or mean
and variance (discrete and multivariate ones) on N draws against SciPy's / the law's exact
values, within the record's tolerance (several standard errors at this N), and its shape and
dtype through `draw - draw again` (zeros: the same key gives the same bits, on every path).
The key functions compare with jax.random's values (constants computed with jax 0.10.2)."""
import numpy as np
import scipy.stats as st

import jitgrad.numpy as jnp
import jitgrad.random as jr
from .core import I64, Ints, err, table

RECORDS, record = table("jax")
KEY = np.array([0, 42], np.uint32)          # jr.PRNGKey(42)
N = 8000
Q = np.array([0.25, 0.5, 0.75])
STAT = dict(dtypes=(I64,), differentiable=False, batchable=False)


def _same_twice(draw, shape):
    """Zeros of the draw's shape and dtype when the same key gives the same draw."""
    a, b = draw(KEY, shape), draw(KEY, shape)
    return jnp.where(a == b, jnp.zeros_like(a), a)


def quartiles(name, draw, law, shape=(2, 3), dtype=np.float32, tol=0.03, **kw):
    """A continuous law: the quartiles of N draws against `law` (a frozen scipy.stats law)."""
    record(name, lambda: [_same_twice(draw, shape), jnp.quantile(
        jnp.asarray(draw(KEY, (N,)), np.float32), Q)],
        lambda: [np.zeros(shape, dtype), law.ppf(Q)], [()], tol=tol, **{**STAT, **kw})


def moments(name, draw, mean, var, shape=(2, 3), dtype=np.float32, tol=0.05, axis=0, **kw):
    """The mean and variance of N draws (along `axis`) against the law's."""
    def got():
        x = jnp.asarray(draw(KEY, (N,)), np.float32)
        return [_same_twice(draw, shape), jnp.mean(x, axis), jnp.var(x, axis)]
    record(name, got, lambda: [np.zeros(shape, dtype), np.asarray(mean, np.float32),
                               np.asarray(var, np.float32)], [()], tol=tol, **{**STAT, **kw})


_F12 = np.arange(12, dtype=np.float32)
_LAWS = (   # name, draw(key, shape), the scipy law
    ("uniform", lambda k, s: jr.uniform(k, s), st.uniform()),
    ("uniform", lambda k, s: jr.uniform(k, s, minval=-2.0, maxval=3.0), st.uniform(-2, 5)),
    ("normal", lambda k, s: jr.normal(k, s), st.norm()),
    ("truncated_normal", lambda k, s: jr.truncated_normal(k, -1.0, 2.0, s), st.truncnorm(-1, 2)),
    ("beta", lambda k, s: jr.beta(k, 2.0, 3.0, s), st.beta(2, 3)),
    ("cauchy", lambda k, s: jr.cauchy(k, s), st.cauchy()),
    ("chisquare", lambda k, s: jr.chisquare(k, 3.0, s), st.chi2(3)),
    ("exponential", lambda k, s: jr.exponential(k, s), st.expon()),
    ("f", lambda k, s: jr.f(k, 5.0, 10.0, s), st.f(5, 10)),
    ("gamma", lambda k, s: jr.gamma(k, 2.5, s), st.gamma(2.5)),
    ("gamma", lambda k, s: jr.gamma(k, 0.3, s), st.gamma(0.3)),
    ("loggamma", lambda k, s: jnp.exp(jr.loggamma(k, 2.5, s)), st.gamma(2.5)),
    ("generalized_normal", lambda k, s: jr.generalized_normal(k, 1.5, s), st.gennorm(1.5)),
    ("gumbel", lambda k, s: jr.gumbel(k, s), st.gumbel_r()),
    ("laplace", lambda k, s: jr.laplace(k, s), st.laplace()),
    ("logistic", lambda k, s: jr.logistic(k, s), st.logistic()),
    ("lognormal", lambda k, s: jr.lognormal(k, 0.5, s), st.lognorm(0.5)),
    ("maxwell", lambda k, s: jr.maxwell(k, s), st.maxwell()),
    ("pareto", lambda k, s: jr.pareto(k, 3.0, s), st.pareto(3)),
    ("rayleigh", lambda k, s: jr.rayleigh(k, 2.0, s), st.rayleigh(scale=2)),
    ("t", lambda k, s: jr.t(k, 4.0, s), st.t(4)),
    ("triangular", lambda k, s: jr.triangular(k, -1.0, 0.5, 2.0, s), st.triang(0.5, -1, 3)),
    ("wald", lambda k, s: jr.wald(k, 1.5, s), st.invgauss(1.5)),
    ("weibull_min", lambda k, s: jr.weibull_min(k, 2.0, 1.5, s), st.weibull_min(1.5, scale=2)),
)
for _n, _draw, _law in _LAWS:
    quartiles(_n, _draw, _law)
record("normal", lambda k: jr.normal(jnp.asarray(k).astype(np.uint32), (3,)) * 0.0,
       lambda k: np.zeros(3, np.float32), [(Ints((2,), 0, 9),)], **STAT,
       errors=(err([Ints((3,), 0, 9)], TypeError, "expected a PRNG key"),))

_P = np.array([0.2, 0.3, 0.5])
for _n, _draw, _mean, _var, _dt in (
        ("bernoulli", lambda k, s: jr.bernoulli(k, 0.3, s), 0.3, 0.21, bool),
        ("double_sided_maxwell", lambda k, s: jr.double_sided_maxwell(k, 0.5, 2.0, s), 0.5,
         12.0, np.float32),      # bimodal: its median is not determined by the draws
        ("binomial", lambda k, s: jr.binomial(k, 10.0, 0.3, s), 3.0, 2.1, np.float32),
        ("geometric", lambda k, s: jr.geometric(k, 0.4, s), 2.5, 3.75, np.int64),
        ("poisson", lambda k, s: jr.poisson(k, 3.5, s), 3.5, 3.5, np.int64),
        ("rademacher", lambda k, s: jr.rademacher(k, s), 0.0, 1.0, np.int64),
        ("randint", lambda k, s: jr.randint(k, s, -3, 5), 0.5, 5.25, np.int64),
        ("categorical", lambda k, s: jr.categorical(k, np.log(_P), shape=s), 1.3, 0.61, np.int64),
        ("choice", lambda k, s: jr.choice(k, 3, s, p=_P), 1.3, 0.61, np.int64)):
    moments(_n, _draw, _mean, _var, dtype=_dt)
_MU, _COV = np.array([1.0, -1.0]), np.array([[2.0, 0.6], [0.6, 1.0]])
for _n, _draw, _mean, _var, _shape in (
        ("multivariate_normal", lambda k, s: jr.multivariate_normal(k, _MU, _COV, s),
         _MU, np.diag(_COV), (2, 3, 2)),
        ("dirichlet", lambda k, s: jr.dirichlet(k, np.array([1.0, 2.0, 3.0]), s),
         st.dirichlet([1, 2, 3]).mean(), st.dirichlet([1, 2, 3]).var(), (2, 3, 3)),
        ("multinomial", lambda k, s: jr.multinomial(k, 10.0, _P, shape=s),
         10 * _P, 10 * _P * (1 - _P), (2, 3, 3))):
    moments(_n, lambda k, s, _d=_draw: _d(k, s if len(s) == 1 else s[:-1]), _mean, _var,
            shape=_shape)

# whole-array draws: a permutation sorts back, an orthogonal matrix is orthogonal, a ball holds
for _n, _got, _want in (
        ("permutation", lambda: jnp.sort(jr.permutation(KEY, 10)), np.arange(10)),
        ("permutation", lambda: jnp.sort(jr.permutation(KEY, _F12.reshape(4, 3)),
                                         axis=0), _F12.reshape(4, 3)),
        ("permutation", lambda: jnp.sort(jr.permutation(KEY, np.arange(12).reshape(3, 4), 1,
                                                        independent=True), 1),
         np.arange(12).reshape(3, 4)),
        ("shuffle", lambda: jnp.sort(jr.shuffle(KEY, np.arange(8))), np.arange(8)),
        ("choice", lambda: jnp.sort(jr.choice(KEY, 5, (5,), replace=False)), np.arange(5)),
        ("orthogonal", lambda: (lambda q: jnp.matmul(jnp.swapaxes(q, -1, -2), q))(
            jr.orthogonal(KEY, 3, (2,))), np.broadcast_to(np.eye(3, dtype=np.float32),
                                                          (2, 3, 3))),
        ("ball", lambda: jnp.all(jnp.linalg.norm(jr.ball(KEY, 3, shape=(500,)), axis=-1) <= 1),
         np.array(True))):
    record(_n, _got, lambda _w=_want: _w, [()], tol=1e-5, **STAT)

# keys (jax.random's values for these seeds: jax 0.10.2)
_K0 = np.array([0, 0], np.uint32)
for _n, _got, _want in (
        ("PRNGKey", lambda: jr.PRNGKey(0), _K0),
        ("key", lambda: jr.key_data(jr.key(42)), KEY),
        ("key_data", lambda: jr.key_data(jr.PRNGKey(42)), KEY),
        ("wrap_key_data", lambda: jr.wrap_key_data(KEY), KEY),
        ("clone", lambda: jr.clone(KEY), KEY),
        ("split", lambda: jr.split(_K0), np.array([[1797259609, 2579123966],
                                                   [928981903, 3453687069]], np.uint32)),
        ("fold_in", lambda: jr.fold_in(_K0, 7), np.array([2716826189, 292468403], np.uint32)),
        ("bits", lambda: jr.bits(_K0, (3,)), np.array([4070199207, 4202968722, 1427181096],
                                                      np.uint32))):
    record(_n, _got, lambda _w=_want: _w, [()], **STAT)
record("key_impl", lambda: np.asarray(jr.key_impl(KEY) == "threefry2x32"), lambda: np.array(True),
       [()], **STAT, traceable=False, note="a Python string, the implementation's name")

UNRECORDED = {"jitgrad.random": {
    "EXCLUDED": "the table of jax.random's names left out (with reasons), not a function"}}
