"""jitgrad.scipy.special: scipy.special's (and jax.scipy.special's) commonly used functions,
written in jitgrad ops, so each runs eagerly, under jit, grad and vmap.

Names of jax.scipy.special not here are listed with the reason in EXCLUDED."""
from ...numpy.bessel import i0, i0e, i1, i1e  # noqa: F401
from .error_functions import erf, erfc, erfcx, erfinv, log_ndtr, ndtr, ndtri  # noqa: F401
from .gamma_functions import (beta, betaln, comb, digamma, factorial, gamma,  # noqa: F401
                              gammaln, gammasgn, loggamma, multigammaln, poch)
from .incomplete_gamma import gammainc, gammaincc  # noqa: F401
from .information import entr, kl_div, rel_entr, xlog1py, xlogy  # noqa: F401
from .logistic import boxcox, boxcox1p, expit, logit  # noqa: F401
from .logsumexp import log_softmax, logsumexp, softmax  # noqa: F401
from .numbers import bernoulli  # noqa: F401
from .zeta import polygamma, zeta  # noqa: F401

_SERIES = "needs an iterated series or continued fraction with a data-dependent term count"
EXCLUDED = {
    "betainc": _SERIES,
    "hyp1f1": _SERIES, "hyp2f1": _SERIES, "owens_t": "needs quadrature tables; not yet written",
    "bessel_jn": "needs a backward recurrence; not yet written",
    "dawsn": "rational approximations not yet written", "fresnel": "complex-free Cephes "
    "approximations not yet written", "sici": "Cephes approximations not yet written",
    "exp1": "Cephes approximations not yet written", "expi": "Cephes approximations not yet "
    "written", "expn": "Cephes approximations not yet written", "spence": "Cephes "
    "approximations not yet written",
    "wofz": "complex-valued (the Faddeeva function); jitgrad's special functions are real",
    "sph_harm_y": "complex-valued spherical harmonics; jitgrad's special functions are real",
}

from ...errors import wrap_public_functions as _wrap  # noqa: E402

_wrap(globals(), "jitgrad")   # errors show the user's call, not jitgrad's frames
