"""The regularized incomplete gamma functions P(a, x) and Q(a, x) (scipy.special.gammainc and
gammaincc, jax.scipy.special's), with their derivative in a, as XLA's Igamma and IgammaGradA:
the power series of P for x <= max(a, 1), the continued fraction of Q beyond, each iterated in
a while_loop until every element has converged (or 2000 terms), carrying d/da alongside the
value. Both are custom_vjp functions (d/da from that series, d/dx the gamma density), and
`log_sample_grad_a` is the implicit reparameterization gradient of gamma draws
(lax.random_gamma_grad) that jitgrad.random's gamma family uses."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ...transforms.control import while_loop
from ...transforms.custom_vjp import custom_vjp
from .gamma_functions import digamma, gammaln
from .series import floats

_MAX_TERMS = 2000


def _eps(x):
    return float(np.finfo(np.dtype(x.dtype.name)).eps)


def _series(a, x, live):
    """sum_n x^n / ((a+1)...(a+n)) and its derivative in a, where `live` (else 1 and 0)."""
    eps = _eps(x)

    def step(s):
        i, r, c, ans, dc, dans, on = s
        r = r + 1.0
        dc = dc * (x / r) - c * x / (r * r)
        c = c * (x / r)
        going = on & ((jnp.abs(c) > eps * jnp.abs(ans + c))
                      | (jnp.abs(dc) > eps * jnp.abs(dans + dc)))
        return (i + 1, r, jnp.where(on, c, 0.0), jnp.where(on, ans + c, ans),
                jnp.where(on, dc, 0.0), jnp.where(on, dans + dc, dans), going)

    one, zero = jnp.ones_like(x), jnp.zeros_like(x)
    start = (jnp.asarray(0, "int32"), a, one, one, zero, zero, live)
    out = while_loop(lambda s: (s[0] < _MAX_TERMS) & jnp.any(s[6]), step, start)
    return out[3], out[5]


def _continued_fraction(a, x, live):
    """Q(a, x) / (x^a e^-x / Gamma(a)) by its continued fraction, and its derivative in a, where
    `live` (XLA's IgammacContinuedFraction, rescaled as it grows)."""
    eps = _eps(x)
    big = 1.0 / eps
    y, z = 1.0 - a, x + 2.0 - a
    pkm2, qkm2, pkm1, qkm1 = jnp.ones_like(x), x, x + 1.0, z * x
    ans = pkm1 / qkm1
    zero = jnp.zeros_like(x)
    dqkm1 = -x
    dans = -ans * dqkm1 / qkm1

    def step(s):
        i, c, y, z, ans, dans, p2, q2, p1, q1, dp2, dq2, dp1, dq1, on = s
        c, y, z = c + 1.0, y + 1.0, z + 2.0
        yc = y * c
        pk, qk = p1 * z - p2 * yc, q1 * z - q2 * yc
        dpk = dp1 * z - p1 - dp2 * yc + p2 * c
        dqk = dq1 * z - q1 - dq2 * yc + q2 * c
        ok = on & (qk != 0)
        qs = jnp.where(ok, qk, 1.0)
        r = pk / qs
        dr = (dpk - r * dqk) / qs
        going = on & ((qk == 0) | (jnp.abs(ans - r) > eps * jnp.abs(r))
                      | (jnp.abs(dans - dr) > eps * jnp.abs(dr)))
        ans, dans = jnp.where(ok, r, ans), jnp.where(ok, dr, dans)
        scale = jnp.where(jnp.abs(pk) > big, eps, 1.0)
        return (i + 1, c, y, z, ans, dans, p1 * scale, q1 * scale, pk * scale, qk * scale,
                dp1 * scale, dq1 * scale, dpk * scale, dqk * scale, going)

    start = (jnp.asarray(0, "int32"), zero, y, z, ans, dans, pkm2, qkm2, pkm1, qkm1,
             zero, zero, zero, dqkm1, live)
    out = while_loop(lambda s: (s[0] < _MAX_TERMS) & jnp.any(s[-1]), step, start)
    return out[4], out[5]


def _parts(a, x, log_x):
    """(use_cf, ans, d ans/da, d log(x^a e^-x / Gamma(a+[series])) / da) for a > 0, x >= 0: P is
    ans x^a e^-x / Gamma(a+1) by the series, Q is ans x^a e^-x / Gamma(a) by the fraction."""
    use_cf = (x > 1.0) & (x > a)
    fine = (a > 0) & (x >= 0) & jnp.isfinite(x)
    sa, sx = jnp.where(fine, a, 1.0), jnp.where(fine, x, 1.0)
    s_ans, s_dans = _series(sa, jnp.where(use_cf, 0.0, sx), fine & ~use_cf)
    c_ans, c_dans = _continued_fraction(sa, jnp.where(use_cf, sx, 2.0), fine & use_cf)
    ans, dans = jnp.where(use_cf, c_ans, s_ans), jnp.where(use_cf, c_dans, s_dans)
    dlog = log_x - digamma(jnp.where(use_cf, sa, sa + 1.0))
    return use_cf, ans, dans, dlog


def _prefactor(a, x, ans):
    """ans x^a e^-x / Gamma(a), 0 where that underflows (ans may be NaN there: the fraction of
    a huge x overflows); the log in float64, where a log x and log Gamma(a) cancel."""
    a64, x64 = jnp.astype(a, "float64"), jnp.astype(x, "float64")
    log_ax = jnp.astype(a64 * jnp.log(x64) - x64 - gammaln(a64), a.dtype)
    under = log_ax < float(np.log(np.finfo(np.dtype(a.dtype.name)).tiny))
    return jnp.where(under, 0.0, ans * jnp.exp(jnp.where(under, 0.0, log_ax)))


def _lower_and_upper(a, x):
    """(P, Q) at a > 0, x >= 0 (finite); the caller fixes the edges."""
    use_cf, ans, _, _ = _parts(a, x, jnp.log(x))
    frac = _prefactor(a, x, ans)
    series = frac / a
    return jnp.where(use_cf, 1.0 - frac, series), jnp.where(use_cf, frac, 1.0 - series)


def _with_edges(a, x, value, at_zero, at_inf):
    """scipy's values: NaN for a < 0, x < 0, NaN inputs or a = x = 0; P is 1 at a = 0 < x."""
    out = jnp.where(x == 0, at_zero, jnp.where(jnp.isinf(x), at_inf, value))
    out = jnp.where((a == 0) & (x > 0), at_inf, out)
    bad = (a < 0) | (x < 0) | jnp.isnan(a) | jnp.isnan(x) | ((a == 0) & (x == 0))
    return jnp.where(bad, np.nan, out)


def grad_a(a, x):
    """dP(a, x)/da (XLA's IgammaGradA); -dQ/da."""
    use_cf, ans, dans, dlog = _parts(a, x, jnp.log(x))
    dfrac = _prefactor(a, x, dans + ans * dlog)
    dseries = dfrac / a
    inside = (x > 0) & jnp.isfinite(x)       # P is flat in a at x = 0 and x = inf
    return jnp.where(inside, jnp.where(use_cf, -dfrac, dseries), 0.0)


def log_sample_grad_a(a, log_x):
    """d log(x)/da of a Gamma(a, 1) draw x holding P(a, x) fixed: -(dP/da) / (x dP/dx) (JAX's
    _gamma_grad in log space, XLA's RandomGammaGrad), from log x so underflowed draws of tiny
    a keep their gradient."""
    x = jnp.exp(log_x)
    use_cf, ans, dans, dlog = _parts(a, x, log_x)
    d = dans + ans * dlog
    return jnp.where(use_cf, d, -d / a)


def _density(a, x):
    """dP/dx = x^(a-1) e^-x / Gamma(a)."""
    return _prefactor(a, x, 1.0 / x)


@custom_vjp
def _gammainc(a, x):
    return _with_edges(a, x, _lower_and_upper(a, x)[0], 0.0, 1.0)


@custom_vjp
def _gammaincc(a, x):
    return _with_edges(a, x, _lower_and_upper(a, x)[1], 1.0, 0.0)


def _fwd(fn):
    return lambda a, x: (fn(a, x), (a, x))


def _bwd(sign):
    return lambda res, ct: (ct * sign * grad_a(*res), ct * sign * _density(*res))


_gammainc.defvjp(_fwd(_gammainc), _bwd(1.0))
_gammaincc.defvjp(_fwd(_gammaincc), _bwd(-1.0))


def _broadcast(a, x):
    a, x = floats(a, x)
    shape = jnp.broadcast_shapes(tuple(a.shape), tuple(x.shape))
    return jnp.broadcast_to(a, shape), jnp.broadcast_to(x, shape)


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x) (scipy.special.gammainc),
    differentiable in both arguments."""
    return _gammainc(*_broadcast(a, x))


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)
    (scipy.special.gammaincc), differentiable in both arguments."""
    return _gammaincc(*_broadcast(a, x))
