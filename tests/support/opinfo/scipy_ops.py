"""jitgrad.scipy.special's records: SciPy owns the names and is the reference (CI has SciPy)."""
import numpy as np
import scipy.special as ss

import jitgrad.scipy.special as jss
from .core import BINARY, FLOATS, UNARY, err, table

RECORDS, record = table("scipy")

# name -> (domain, differentiable in jitgrad)
_UNARY = {
    "erf": ("any", True), "erfc": ("any", True), "erfinv": ("unit", True),
    "erfcx": ("nonneg_small", True), "expit": ("any", True), "logit": ("prob", True),
    "gammaln": ("positive", True), "digamma": ("positive", True), "gamma": ("positive", True),
    "loggamma": ("positive", True), "ndtr": ("any", True), "ndtri": ("prob", True),
    "log_ndtr": ("any", True), "i0": ("any", True), "i0e": ("any", True), "i1": ("any", True),
    "i1e": ("any", True), "entr": ("positive", True), "factorial": ("nonneg_small", False),
}
# smooth on the fuzzer's inputs mapped into the domain, and short (the series and rational
# approximations, gammaln, digamma, erfinv, i0e, ..., make kernels that take seconds to compile)
_FUZZED = {"erf", "erfc", "expit", "logit", "ndtr", "entr"}
for _n, (_dom, _d) in _UNARY.items():
    record(_n, getattr(jss, _n), getattr(ss, _n), UNARY, dtypes=FLOATS, domain=_dom,
           differentiable=_d, tol=1e-4 if _n in ("gamma", "erfcx", "ndtri") else 1e-5,
           fuzz="unary" if _n in _FUZZED else None)
_BINARY = {
    "xlogy": (("any", "positive"), True), "xlog1py": (("any", "positive"), True),
    "rel_entr": (("positive", "positive"), True), "betaln": (("positive", "positive"), True),
    "beta": (("positive", "positive"), True), "gammainc": (("positive", "positive"), False),
    "gammaincc": (("positive", "positive"), False), "poch": (("positive", "nonneg_small"), False),
    "kl_div": (("positive", "positive"), True),
}
for _n, (_dom, _d) in _BINARY.items():
    record(_n, getattr(jss, _n), getattr(ss, _n), BINARY, dtypes=FLOATS, domain=_dom,
           differentiable=_d, tol=1e-4, fuzz="binary" if _n in ("xlogy", "xlog1py") else None)
record("zeta", jss.zeta, ss.zeta, [((5,), (5,)), ((3, 4), (4,))], dtypes=FLOATS,
       domain=("ge1", "positive"), differentiable=False, tol=1e-4)
record("polygamma", lambda x: jss.polygamma(1, x), lambda x: ss.polygamma(1, x), UNARY,
       dtypes=FLOATS, domain="positive", tol=1e-4)
record("multigammaln", lambda x: jss.multigammaln(x, 3), lambda x: ss.multigammaln(x, 3),
       [((),)], dtypes=FLOATS, domain="ge1", tol=1e-4, lowp=(), batchable=False,
       note="multigammaln checks a > (d - 1) / 2 on the value: not traceable inside vmap")
for _n in ("softmax", "log_softmax"):
    record(_n, getattr(jss, _n), getattr(ss, _n), [((3, 4),), ((5,),)], dtypes=FLOATS,
           kwargs={"axis": -1})
record("logsumexp", jss.logsumexp, ss.logsumexp, [((3, 4),), ((),)], dtypes=FLOATS)
record("logsumexp", jss.logsumexp, ss.logsumexp, [((3, 4),)], dtypes=FLOATS,
       kwargs={"axis": 0, "keepdims": True},
       errors=(err([(3, 4)], ValueError, "axis|out of", kwargs={"axis": 3}),))

# the rest of jitgrad.scipy.special's names
record("boxcox", jss.boxcox, ss.boxcox, BINARY, dtypes=FLOATS, domain=("positive", "any"),
       tol=1e-4)
record("boxcox", lambda x: jss.boxcox(x, 0.0), lambda x: ss.boxcox(x, 0.0), UNARY,
       dtypes=FLOATS, domain="positive")
record("boxcox1p", jss.boxcox1p, ss.boxcox1p, BINARY, dtypes=FLOATS,
       domain=("nonneg_small", "any"), tol=1e-4)
record("gammasgn", jss.gammasgn, ss.gammasgn, UNARY, dtypes=FLOATS, domain="nonzero",
       differentiable=False)
record("gammasgn", lambda x: jss.gammasgn(x - 2.0), lambda x: ss.gammasgn(x - 2.0), UNARY,
       dtypes=FLOATS, domain="unit", differentiable=False)
_COMB = {"N": np.array([5.0, 4.0, 7.0, 3.0, 0.0], np.float32),
         "k": np.array([2.0, 4.0, 3.0, 5.0, 1.0], np.float32)}
# repetition=True with N < 1: jitgrad gives 0 as jax.scipy.special.comb (SciPy 1.17 does not)
for _kw in ({}, {"repetition": True}):
    record("comb", lambda n, k, **kw: jss.comb(n, k, **kw), lambda n, k, **kw: ss.comb(n, k, **kw),
           [((5,), (5,))], dtypes=FLOATS, domain=("ge1", "nonneg_small"), kwargs=_kw,
           differentiable=False, tol=1e-4)
    record("comb", lambda **kw: jss.comb(_COMB["N"], _COMB["k"], **kw),
           lambda **kw: ss.comb(_COMB["N"], _COMB["k"], **kw), [()], dtypes=(np.dtype("int64"),),
           kwargs=_kw, differentiable=False, batchable=False)
for _n in (0, 1, 6):
    record(f"bernoulli({_n})", lambda _n=_n: jss.bernoulli(_n), lambda _n=_n: ss.bernoulli(_n),
           [()], dtypes=(np.dtype("int64"),), differentiable=False, batchable=False)

UNRECORDED = {"jitgrad.scipy.special": {}}
