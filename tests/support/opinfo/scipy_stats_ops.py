"""jitgrad.scipy.stats' records: SciPy owns the names and is the reference. Each law's functions
are called as law.fn(x, *params) with fixed parameters (shape parameters, then loc and scale),
x drawn inside the support; discrete laws take int64 counts."""
import numpy as np
import scipy.stats as ss

import jitgrad.scipy.stats as jst
from .core import FLOATS, I64, Ints, table

RECORDS, record = table("scipy")
X = [((),), ((5,),), ((3, 4),), ((0,),)]
_CONT = "pdf logpdf cdf logcdf sf logsf ppf isf".split()

# law -> (parameters, domain of x, what to skip: those jitgrad lacks or SciPy's names it has not)
_CONTINUOUS = {
    "norm": ((0.3, 1.5), "any"), "cauchy": ((0.3, 1.5), "any"),
    "expon": ((0.3, 1.5), "positive"), "gumbel_l": ((0.3, 1.5), "any"),
    "gumbel_r": ((0.3, 1.5), "any"), "logistic": ((0.3, 1.5), "any"),
    "laplace": ((0.3, 1.5), "any"), "pareto": ((3.0, 0.0, 1.0), "ge1"),
    "uniform": ((-1.0, 3.0), "unit"), "chi2": ((3.0,), "positive"),
    "beta": ((2.0, 3.0), "prob"), "gamma": ((2.5,), "positive"), "t": ((4.0,), "any"),
    "vonmises": ((1.5,), "any"), "wrapcauchy": ((0.4,), "positive"),
    "truncnorm": ((-1.0, 2.0), "unit"), "gennorm": ((1.5,), "any"),
}
for _law, (_params, _dom) in _CONTINUOUS.items():
    for _fn in _CONT:
        if not hasattr(getattr(jst, _law), _fn):
            continue
        _x_dom = "prob" if _fn in ("ppf", "isf") else _dom
        # the incomplete gamma function has a reverse-mode rule only (custom_vjp, as in JAX)
        _fwd_ok = not (_law in ("chi2", "gamma") and _fn in ("cdf", "logcdf", "sf", "logsf"))
        record(f"{_law}.{_fn}", lambda x, _l=_law, _f=_fn, _p=_params: getattr(
            getattr(jst, _l), _f)(x, *_p),
            lambda x, _l=_law, _f=_fn, _p=_params: getattr(getattr(ss, _l), _f)(x, *_p),
            X, dtypes=FLOATS, domain=_x_dom, tol=1e-4, lowp=(), differentiable=_fwd_ok
            and _law != "uniform")

_DISCRETE = {
    "bernoulli": ((0.3,), 0, 2), "binom": ((5, 0.3), 0, 7), "betabinom": ((5, 2.0, 3.0), 0, 7),
    "geom": ((0.4,), 1, 7), "nbinom": ((3, 0.4), 0, 7), "poisson": ((2.5,), 0, 8),
}
for _law, (_params, _lo, _hi) in _DISCRETE.items():
    for _fn in ("pmf", "logpmf", "cdf"):
        if not hasattr(getattr(jst, _law), _fn):
            continue
        record(f"{_law}.{_fn}", lambda k, _l=_law, _f=_fn, _p=_params: getattr(
            getattr(jst, _l), _f)(k, *_p),
            lambda k, _l=_law, _f=_fn, _p=_params: getattr(getattr(ss, _l), _f)(k, *_p),
            [(Ints((), _lo, _hi),), (Ints((6,), _lo, _hi),), (Ints((2, 3), _lo, _hi),)],
            dtypes=(I64,), differentiable=False, float_result=True, tol=1e-4)
record("bernoulli.ppf", lambda q: jst.bernoulli.ppf(q, 0.3), lambda q: ss.bernoulli.ppf(q, 0.3),
       X[:3], dtypes=FLOATS, domain="prob", differentiable=False)

# multivariate laws: float32 parameters (the result has x's dtype); SciPy gets them in float64
# (given float32 ones, it computes partly in float32)
_ALPHA, _MU = np.array([1.5, 2.0, 3.0]), np.array([0.5, -0.5])
_COV, _P = np.array([[2.0, 0.25], [0.25, 1.0]]), np.array([0.2, 0.3, 0.5])   # exact in float32
_K = np.array([[2, 1, 2], [0, 0, 5]])
_F = np.float32
for _fn in ("pdf", "logpdf"):
    record(f"dirichlet.{_fn}", lambda x, _f=_fn: getattr(jst.dirichlet, _f)(
        x / x.sum(0), _ALPHA.astype(_F)),
        lambda x, _f=_fn: getattr(ss.dirichlet, _f)(_simplex(x), _ALPHA),
        [((3,),), ((3, 4),)], dtypes=FLOATS, domain="positive", tol=1e-4, lowp=())
    record(f"multivariate_normal.{_fn}", lambda x, _f=_fn: getattr(jst.multivariate_normal, _f)(
        x, _MU.astype(_F), _COV.astype(_F)),
        lambda x, _f=_fn: getattr(ss.multivariate_normal, _f)(x, _MU, _COV),
        [((2,),), ((4, 2),)], dtypes=FLOATS, tol=1e-4, lowp=())
    _pm = _fn.replace("pdf", "pmf")
    record(f"multinomial.{_pm}", lambda _f=_pm: getattr(jst.multinomial, _f)(
        _K.astype(_F), 5, _P.astype(_F)),
        lambda _f=_pm: getattr(ss.multinomial, _f)(_K, 5, _P),
        [()], dtypes=(I64,), differentiable=False, batchable=False, tol=1e-4)

def _simplex(x):
    """x / x.sum(0) in float64 (SciPy checks the sum to 1 tighter than float32 holds)."""
    x = np.asarray(x, np.float64)
    return x / x.sum(0)


record("sem", jst.sem, ss.sem, [((5,),), ((3, 4),)], dtypes=FLOATS, tol=1e-4)


def _simplex(x):
    """x / x.sum(0) in float64 (SciPy checks the sum to 1 tighter than float32 holds)."""
    x = np.asarray(x, np.float64)
    return x / x.sum(0)


record("sem", jst.sem, ss.sem, [((3, 4),)], dtypes=FLOATS, kwargs={"axis": 1, "ddof": 0},
       tol=1e-4)

UNRECORDED = {"jitgrad.scipy.stats": {}}
