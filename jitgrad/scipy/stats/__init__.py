"""jitgrad.scipy.stats: jax.scipy.stats's distributions (logpdf/pdf/cdf/... with scipy's
signatures) and summaries, written in jitgrad ops, so they trace, vmap and differentiate.

Names of jax.scipy.stats not here, and the distributions' functions left out, are in
EXCLUDED with the reason."""
from . import multivariate_normal, norm  # noqa: F401
from .continuous import cauchy, expon, gumbel_l, gumbel_r, laplace, logistic, uniform  # noqa: F401
from .discrete import (bernoulli, betabinom, binom, dirichlet, geom, multinomial,  # noqa: F401
                       nbinom, poisson)
from .shaped import beta, chi2, gamma, gennorm, pareto, t, truncnorm, vonmises, wrapcauchy  # noqa: F401
from .summaries import sem  # noqa: F401

_INCOMPLETE = "needs the regularized incomplete beta function (not yet written)"
EXCLUDED = {
    "beta.cdf": _INCOMPLETE, "beta.logcdf": _INCOMPLETE, "beta.sf": _INCOMPLETE,
    "beta.logsf": _INCOMPLETE,
    "gennorm.cdf": "needs the incomplete gamma function of |z|^beta with the sign's halves; "
                   "not yet written",
    "poisson.entropy": "an infinite sum over the support; not yet written",
    "gaussian_kde": "a stateful estimator class; not yet written",
    "mode": "needs sorting with run-length counting of ties; not yet written",
    "rankdata": "needs tie-aware ranks (average/min/max/dense); not yet written",
}
