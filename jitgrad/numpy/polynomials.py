"""NumPy's polynomial functions over coefficient arrays, highest power first: polyval, polyadd,
polysub, polymul, polydiv, polyder, polyint, polyfit, poly, roots and vander, as composites
(Horner's rule, convolutions, a least-squares solve); roots and the characteristic polynomial of
a matrix need eigenvalues of a general matrix, which run on the host (eager only)."""
from __future__ import annotations

import numpy as np

from ..dtypes import default_float
from ..errors import ConcretizationError
from ..ir.types import kind_of
from ..eager.tensor import Tensor
from ._convert import asarray, astype, operands
from .creation import ones, zeros, zeros_like
from .elementwise import true_divide
from .host_values import concrete
from .linalg import pinv
from .products import matmul
from .reductions import sum  # noqa: A004
from .shape import concatenate, pad, reshape, stack
from .signal_functions import convolve
from .spaced import arange
from .ufuncs import add, multiply, power, sqrt, square, subtract


def horner(coeffs, x):
    """sum(coeffs[i] * x**(n-1-i)) for Python-float coefficients, highest power first (as
    np.polyval), unrolled: each coefficient a weak scalar, so x's dtype is kept."""
    p = zeros_like(x) + coeffs[0]
    for c in coeffs[1:]:
        p = add(multiply(p, x), c)
    return p


def _coefficients(p, name):
    p = asarray(p)
    if p.ndim != 1:
        raise ValueError(f"{name}: coefficients must be a 1-d array, got shape {p.shape}")
    return p


def _trimmed(p):
    """p without leading zeros when its values are known (NumPy's trim_leading_zeros)."""
    c = concrete(p)
    if c is None:
        return p
    nz = np.flatnonzero(c)
    return p[int(nz[0]):] if nz.size else p[-1:]


def polyval(p, x, *, unroll=16):
    """numpy.polyval: p[0] * x**(n-1) + ... + p[n-1], by Horner's rule."""
    p = _coefficients(p, "polyval")
    p, x = operands(p, x)
    y = zeros(x.shape, x.dtype)
    for i in range(p.shape[0]):
        y = add(multiply(y, x), p[i])
    return y


def _aligned(a1, a2):
    a1, a2 = operands(_coefficients(a1, "poly"), _coefficients(a2, "poly"))
    n = max(a1.shape[0], a2.shape[0])
    return pad(a1, (n - a1.shape[0], 0)), pad(a2, (n - a2.shape[0], 0))


def polyadd(a1, a2):
    """numpy.polyadd: the sum of two polynomials."""
    return add(*_aligned(a1, a2))


def polysub(a1, a2):
    """numpy.polysub: the difference of two polynomials."""
    return subtract(*_aligned(a1, a2))


def polymul(a1, a2, *, trim_leading_zeros=False):
    """numpy.polymul: the product of two polynomials (a convolution of the coefficients)."""
    a1, a2 = operands(_coefficients(a1, "polymul"), _coefficients(a2, "polymul"))
    if trim_leading_zeros:
        a1, a2 = _trimmed(a1), _trimmed(a2)
    return convolve(a1, a2)


def polydiv(u, v, *, trim_leading_zeros=False):
    """jnp.polydiv: (quotient, remainder) by long division. As in JAX the remainder keeps u's
    length (leading zeros) unless trim_leading_zeros, which needs known values."""
    u, v = operands(_coefficients(u, "polydiv"), _coefficients(v, "polydiv"), float_only=True)
    if v.shape[0] == 0:
        raise ValueError("polydiv: the divisor has no coefficients")
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = true_divide(1, v[0])
    q = []
    for k in range(m - n + 1):
        d = multiply(scale, u[k])
        q.append(d)
        u = u.at[k:k + n + 1].add(multiply(-d, v))
    q = stack(q) if q else zeros(1, u.dtype)
    return q, _trimmed(u) if trim_leading_zeros else u


def polyder(p, m=1):
    """numpy.polyder: the m-th derivative's coefficients."""
    if m < 0:
        raise ValueError(f"polyder: the order of derivative must be positive, got {m}")
    p = _coefficients(p, "polyder")
    for _ in range(m):
        n = p.shape[0] - 1
        p = multiply(p[:-1], arange(n, 0, -1, dtype=p.dtype)) if n > 0 else zeros(1, p.dtype)
    return p


def polyint(p, m=1, k=None):
    """numpy.polyint: the m-th antiderivative, with integration constants k (default 0)."""
    if m < 0:
        raise ValueError(f"polyint: the order of integral must be positive, got {m}")
    p = _coefficients(p, "polyint")
    if kind_of(p.dtype) not in "fc":
        p = astype(p, default_float())
    ks = np.zeros(m) if k is None else np.atleast_1d(np.asarray(concrete(asarray(k))))
    if ks.size == 1 and m > 1:
        ks = np.full(m, ks[0])
    if ks.size != m:
        raise ValueError(f"polyint: k must have m = {m} values, got {ks.size}")
    for i in range(m):
        n = p.shape[0]
        p = concatenate([true_divide(p, arange(n, 0, -1, dtype=p.dtype)),
                         asarray([ks[i]], dtype=p.dtype)])
    return p


def vander(x, N=None, increasing=False):
    """numpy.vander: columns x**(N-1), ..., x, 1 (reversed when increasing)."""
    x = asarray(x)
    if x.ndim != 1:
        raise ValueError(f"vander: x must be 1-d, got shape {x.shape}")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise ValueError(f"vander: N must be non-negative, got {n}")
    powers = arange(n) if increasing else arange(n - 1, -1, -1)
    return power(x[:, None], astype(powers, x.dtype)[None, :]) if n else zeros((x.shape[0], 0),
                                                                               x.dtype)


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """numpy.polyfit: least-squares coefficients of a degree-deg polynomial through (x, y),
    through the pseudo-inverse of the column-scaled Vandermonde matrix (as NumPy's lstsq).
    full=True also gives (residuals, rank, singular values, rcond); cov is not supported."""
    if deg < 0:
        raise ValueError(f"polyfit: expected deg >= 0, got {deg}")
    if cov:
        raise NotImplementedError("polyfit: cov=True is not supported")
    x, y = operands(x, y, float_only=True)
    lhs, rhs = vander(x, deg + 1), y
    if w is not None:
        w = asarray(w, dtype=x.dtype)
        lhs = multiply(lhs, w[:, None])
        rhs = multiply(rhs, w if rhs.ndim == 1 else w[:, None])
    scale = sqrt(sum(square(lhs), axis=0))
    c = matmul(pinv(true_divide(lhs, scale)), rhs)
    c = true_divide(c, scale if c.ndim == 1 else scale[:, None])
    if not full:
        return c
    resid = sum(square(subtract(matmul(lhs, c), rhs)), axis=0)
    rcond = x.shape[0] * np.finfo(np.dtype(str(x.dtype))).eps if rcond is None else rcond
    sv = np.linalg.svd(np.asarray(concrete(true_divide(lhs, scale))), compute_uv=False)
    return c, reshape(resid, (-1,)), deg + 1, asarray(sv), rcond


def _host(x, name):
    c = concrete(asarray(x))
    if c is None:
        raise ConcretizationError(f"{name} needs the eigenvalues of a general matrix, which run "
                                  "on the host: call it outside jg.jit (or on known values)")
    return c


def roots(p, *, strip_zeros=True):
    """numpy.roots: the roots of a polynomial (complex), as eigenvalues of its companion matrix,
    computed on the host (no derivatives; eager only). strip_zeros=False keeps len(p) - 1 roots,
    a NaN for each leading zero, as jax.numpy."""
    c = _host(_coefficients(p, "roots"), "roots")
    r = np.roots(c)
    if not strip_zeros:
        r = np.concatenate([r, np.full(max(len(c) - 1 - len(r), 0), np.nan)])
    return Tensor._wrap(r.astype(np.result_type(r.dtype, np.complex64)))


def poly(seq_of_zeros):
    """numpy.poly: the coefficients of the monic polynomial with the given roots, or the
    characteristic polynomial of a square matrix (its eigenvalues on the host)."""
    z = asarray(seq_of_zeros)
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] > 0:
        return asarray(np.poly(_host(z, "poly of a matrix")))
    if z.ndim != 1:
        raise ValueError(f"poly: input must be 1-d or a non-empty square 2-d array, got shape "
                         f"{z.shape}")
    out = ones(1, z.dtype if kind_of(z.dtype) in "fc" else default_float())
    for i in range(z.shape[0]):
        out = convolve(out, stack([ones((), out.dtype), -z[i]]))
    return out
