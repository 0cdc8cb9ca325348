"""PyTorch's linear-algebra and statistics methods (x.det(), x.inverse(), x.svd(), x.qr(),
x.cholesky(), x.matrix_power(n), x.cov(), x.quantile(q, dim), x.bincount(), x.histc(), ...),
each written with jitgrad.numpy / jitgrad.numpy.linalg (jitgrad.scipy.linalg for expm)."""
from __future__ import annotations

import importlib
from collections import namedtuple

from .. import numpy as jnp
from ..eager.own_storage import own_storage
from ..eager.zero_dim_promotion import torch_operands
from . import return_types
from .spelling import dims

slogdet_result = namedtuple("slogdet", ("sign", "logabsdet"))
svd_result = namedtuple("svd", ("U", "S", "V"))
qr_result = namedtuple("qr", ("Q", "R"))


def det(self):
    """torch.det."""
    return jnp.linalg.det(self)


def logdet(self):
    """torch.logdet: log(det(x)) (nan for a negative determinant)."""
    sign, logabs = jnp.linalg.slogdet(self)
    return jnp.where(sign < 0, jnp.nan, jnp.where(sign == 0, -jnp.inf, logabs))


def slogdet(self):
    """torch.slogdet -> (sign, logabsdet)."""
    sign, logabs = jnp.linalg.slogdet(self)
    return slogdet_result(sign, logabs)


def inverse(self):
    """torch.inverse."""
    return jnp.linalg.inv(self)


def pinverse(self, rcond=1e-15):
    """torch.pinverse."""
    return jnp.linalg.pinv(self, rcond)


def matrix_power(self, n):
    """torch.matrix_power."""
    return jnp.linalg.matrix_power(self, n)


def matrix_exp(self):
    """torch.matrix_exp: the matrix exponential (jitgrad.scipy.linalg.expm)."""
    return importlib.import_module("jitgrad.scipy.linalg").expm(self)   # jitgrad.scipy is lazy


def cholesky(self, upper=False):
    """torch.cholesky(upper=False): the lower (or upper) Cholesky factor."""
    low = jnp.linalg.cholesky(self)
    return jnp.conj(jnp.swapaxes(low, -1, -2)) if upper else low


def cholesky_inverse(self, upper=False):
    """torch.cholesky_inverse: the inverse of A from its Cholesky factor."""
    low = jnp.conj(jnp.swapaxes(self, -1, -2)) if upper else self
    return jnp.linalg.inv(jnp.matmul(low, jnp.conj(jnp.swapaxes(low, -1, -2))))


def cholesky_solve(self, L, upper=False):  # noqa: N803
    """torch.cholesky_solve(B, L): A^-1 B for A = L L^H."""
    return jnp.matmul(cholesky_inverse(L, upper), self)


def qr(self, some=True):
    """torch.qr(some=True) -> (Q, R)."""
    q, r = jnp.linalg.qr(self, mode="reduced" if some else "complete")
    return qr_result(q, r)


def svd(self, some=True, compute_uv=True):
    """torch.svd -> (U, S, V) with V (not V^H), as torch's."""
    u, s, vh = jnp.linalg.svd(self, full_matrices=not some)
    return svd_result(u, s, jnp.conj(jnp.swapaxes(vh, -1, -2)))


def dist(self, other, p=2):
    """torch.dist: the p-norm of self - other."""
    return jnp.linalg.vector_norm(jnp.subtract(self, other), ord=p)


def renorm(self, p, dim, maxnorm):
    """torch.renorm: each slice along dim scaled down to p-norm <= maxnorm."""
    others = tuple(d for d in range(self.ndim) if d != dim % self.ndim)
    norms = jnp.linalg.vector_norm(self, ord=p, axis=others, keepdims=True)
    scale = jnp.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    return jnp.multiply(self, jnp.asarray(scale, dtype=self.dtype))


def cov(self, *, correction=1, fweights=None, aweights=None):
    """torch.cov: rows are variables, columns observations."""
    return jnp.cov(self, ddof=correction, fweights=fweights, aweights=aweights)


def corrcoef(self):
    """torch.corrcoef."""
    return jnp.corrcoef(self)


def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
    """torch.quantile(q, dim=None, keepdim=False, interpolation='linear')."""
    return jnp.quantile(self, q, axis=dims(dim), method=interpolation, keepdims=keepdim)


def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
    """torch.nanquantile."""
    return jnp.nanquantile(self, q, axis=dims(dim), method=interpolation, keepdims=keepdim)


def nanmedian(self, dim=None, keepdim=False):
    """torch.nanmedian: the lower middle value of the non-NaN elements; with dim a (values,
    indices) tuple (NumPy's mean of the middle two: jitgrad.numpy.nanmedian)."""
    if dim is not None:
        d = dim % self.ndim if self.ndim else 0
        x = self if self.ndim else jnp.reshape(self, (1,))
        kept = jnp.sum(jnp.logical_not(jnp.isnan(x)), axis=d, keepdims=True)
        middle = jnp.where(kept > 0, (kept - 1) // 2, (x.shape[d] - 1) // 2)  # all NaN: torch's
        at = jnp.take_along_axis(jnp.argsort(x, axis=d), middle, axis=d)    # NaNs sort last
        values = jnp.take_along_axis(x, at, axis=d)
        if not keepdim or not self.ndim:
            values, at = jnp.squeeze(values, d), jnp.squeeze(at, d)
        return return_types.nanmedian(values, at)
    flat = jnp.sort(jnp.ravel(self))            # NaNs sort last
    n = jnp.sum(jnp.logical_not(jnp.isnan(flat)))
    return flat[jnp.maximum((n - 1) // 2, 0)]


def diff(self, n=1, dim=-1, prepend=None, append=None):
    """torch.diff(n=1, dim=-1, prepend=None, append=None)."""
    kw = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    out = jnp.diff(self, n, axis=dim, **kw)
    return own_storage(out) if out is self else out      # n=0: torch's a copy, NumPy's self


def bincount(self, weights=None, minlength=0):
    """torch.bincount."""
    return jnp.bincount(self, weights, minlength)


def histc(self, bins=100, min=0, max=0):  # noqa: A002
    """torch.histc: counts in `bins` equal bins over [min, max] (the data's range when both
    are 0), as a float tensor of x's dtype."""
    lo, hi = (float(jnp.min(self)), float(jnp.max(self))) if min == max == 0 else (min, max)
    counts, _ = jnp.histogram(self, bins, (lo, hi))
    return jnp.asarray(counts, dtype=self.dtype)


histogram_result = namedtuple("histogram", ("hist", "bin_edges"))


def histogram(self, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
    """torch.histogram -> (hist, bin_edges), both of x's dtype."""
    hist, edges = jnp.histogram(self, bins, range, weights=weight, density=density)
    return histogram_result(jnp.asarray(hist, dtype=self.dtype), jnp.asarray(edges, dtype=self.dtype))


def frexp(self):
    """torch.frexp -> (mantissa, exponent)."""
    m, e = jnp.frexp(self)
    return return_types.frexp(m, e)


def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """torch.unique (sorted; eager tensors only: the length depends on the values)."""
    if return_inverse or dim is not None:
        raise ValueError("unique: return_inverse and dim are not supported; use "
                         "jitgrad.numpy.unique_inverse / unique_all")
    return jnp.unique(self, return_counts=return_counts)


METHODS = {"det": det, "logdet": logdet, "slogdet": slogdet, "inverse": inverse,
           "pinverse": pinverse, "matrix_power": matrix_power, "matrix_exp": matrix_exp,
           "cholesky": cholesky, "cholesky_inverse": cholesky_inverse,
           "cholesky_solve": cholesky_solve, "qr": qr, "svd": svd, "dist": dist,
           "renorm": renorm, "cov": cov, "corrcoef": corrcoef, "quantile": quantile,
           "nanquantile": nanquantile, "nanmedian": nanmedian, "diff": diff,
           "bincount": bincount, "histc": histc, "histogram": histogram, "frexp": frexp, "unique": unique,
           "gcd": lambda self, other: jnp.gcd(*torch_operands("gcd", self, other)),
           "lcm": lambda self, other: jnp.lcm(*torch_operands("lcm", self, other)),
           "nextafter": lambda self, other: jnp.nextafter(*torch_operands("nextafter", self,
                                                                          other)),
           "isin": lambda self, test_elements, *, assume_unique=False, invert=False:
               jnp.isin(self, test_elements, invert=invert)}
