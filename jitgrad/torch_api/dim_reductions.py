"""PyTorch's reductions as Tensor methods: x.sum(dim, keepdim=False, dtype=None), ...; NumPy's
keywords (axis=, keepdims=) keep working, and std/var are torch's (unbiased, correction=1)
unless called with NumPy's ddof=/axis=/keepdims= (then ddof defaults to 0, as NumPy)."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..nn import functional as F
from ..nn.distance import p_norm
from .spelling import UNSET, dims, numpy_axis, numpy_spelled, reduced_dims

# method -> (jitgrad.numpy function, takes dtype=)
_REDUCTIONS = {"sum": ("sum", True), "mean": ("mean", True), "prod": ("prod", True),
               "any": ("any", False), "all": ("all", False), "amax": ("amax", False),
               "amin": ("amin", False), "argmax": ("argmax", False),
               "argmin": ("argmin", False), "count_nonzero": ("count_nonzero", False)}


def _reduction(name, jnp_name, has_dtype):
    fn = getattr(jnp, jnp_name)

    def method(self, dim=None, keepdim=False, *, dtype=None, axis=UNSET, keepdims=UNSET,
               **numpy_kw):
        if numpy_spelled(axis, keepdims):
            dim = numpy_axis(f"x.{name}", dim, axis)
            keepdim = keepdims is not UNSET and keepdims
        else:       # torch: an empty dim reduces every dim, except in any/all
            dim = dims(dim) if name in ("any", "all") else reduced_dims(dim)
        kw = {"dtype": dtype} if has_dtype else {}
        if name == "count_nonzero":
            return fn(self, axis=dim, keepdims=keepdim)
        return fn(self, dim, keepdims=keepdim, **kw, **numpy_kw)
    method.__name__ = name
    method.__doc__ = (f"torch.Tensor.{name}(dim=None, keepdim=False{', dtype=None' * has_dtype})"
                      f"; axis=/keepdims= as jitgrad.numpy.{jnp_name}.")
    return method


def _moment(name):
    fn = getattr(jnp, name)

    def method(self, dim=None, unbiased=None, keepdim=False, *, correction=None,
               axis=UNSET, ddof=UNSET, keepdims=UNSET, dtype=None):
        if numpy_spelled(axis, ddof, keepdims):
            if unbiased is not None or keepdim:
                raise TypeError(f"x.{name}: NumPy's spelling (ddof=, axis=, keepdims=) takes "
                                f"the axis as its only positional argument")
            return fn(self, numpy_axis(f"x.{name}", dim, axis), dtype=dtype,
                      ddof=0 if ddof is UNSET else ddof,
                      keepdims=keepdims is not UNSET and keepdims, correction=correction)
        if isinstance(dim, bool):           # x.std(False): torch's x.std(unbiased)
            dim, unbiased = None, dim
        if unbiased is not None and correction is not None:
            raise TypeError(f"x.{name}: pass unbiased= or correction=, not both")
        ddof = correction if correction is not None else int(unbiased is not False)
        return fn(self, reduced_dims(dim), dtype=dtype, ddof=ddof, keepdims=keepdim)
    method.__name__ = name
    method.__doc__ = (f"torch.Tensor.{name}(dim=None, unbiased=True, keepdim=False, *, "
                      f"correction=1): unbiased by default; NumPy's ddof=/axis=/keepdims= give "
                      f"NumPy's {name} (ddof=0 by default).")
    return method


def _moment_mean(name):
    moment = _moment(name)

    def method(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return (moment(self, dim, unbiased, keepdim, correction=correction),
                jnp.mean(self, reduced_dims(dim), keepdims=keepdim))
    method.__name__ = f"{name}_mean"
    method.__doc__ = f"torch.{name}_mean: ({name}, mean) with torch's {name}."
    return method


def logsumexp(self, dim, keepdim=False):
    """torch.Tensor.logsumexp(dim, keepdim=False): nn.functional's, over dim."""
    return F.logsumexp(self, axis=dims(dim), keepdims=keepdim)


def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.Tensor.norm: the p-norm over dim (all elements by default); 'fro' is p=2."""
    x = self if dtype is None else jnp.astype(self, dtype)
    order = 2 if p in ("fro", None) else p
    if order == "nuc":
        return jnp.linalg.matrix_norm(x, ord="nuc", keepdims=keepdim)
    if jnp.issubdtype(x.dtype, jnp.floating) and order not in (0, 1, np.inf, -np.inf):
        # torch's gradient at a zero vector is 0 (jnp's, as JAX's, is NaN); 16-bit sums in f32
        wide = jnp.astype(x, jnp.promote_types(x.dtype, jnp.float32))
        return jnp.astype(p_norm(wide, order, reduced_dims(dim), keepdim), x.dtype)
    return jnp.linalg.vector_norm(x, ord=order, axis=reduced_dims(dim), keepdims=keepdim)


def nansum(self, dim=None, keepdim=False, *, dtype=None):
    """torch.nansum: the sum with NaNs counted as zero."""
    return jnp.sum(jnp.where(jnp.isnan(self), 0, self), reduced_dims(dim), dtype=dtype,
                   keepdims=keepdim)


def nanmean(self, dim=None, keepdim=False, *, dtype=None):
    """torch.nanmean: the mean of the elements that are not NaN."""
    kept = jnp.astype(jnp.logical_not(jnp.isnan(self)), self.dtype)    # float32 stays float32
    return jnp.true_divide(nansum(self, dim, keepdim, dtype=dtype),
                           jnp.sum(kept, reduced_dims(dim), keepdims=keepdim))


METHODS = {name: _reduction(name, *spec) for name, spec in _REDUCTIONS.items()}
METHODS.update({"std": _moment("std"), "var": _moment("var"), "logsumexp": logsumexp,
                "norm": norm, "nansum": nansum, "nanmean": nanmean})
FUNCTIONS = {"std_mean": _moment_mean("std"), "var_mean": _moment_mean("var")}


def _cumulative(name):
    fn = getattr(jnp, name)

    def method(self, dim=None, *, dtype=None, axis=UNSET):
        return fn(self, axis=dim if axis is UNSET else axis, dtype=dtype)
    method.__name__ = name
    method.__doc__ = f"torch.Tensor.{name}(dim, dtype=None) (NumPy's axis= too)."
    return method


def logcumsumexp(self, dim):
    """torch.Tensor.logcumsumexp(dim): log(cumsum(exp(x))) without overflow."""
    m = jnp.max(self, axis=dim, keepdims=True)
    m = jnp.where(jnp.isfinite(m), m, 0)
    return jnp.log(jnp.cumsum(jnp.exp(self - m), axis=dim)) + m


def _activation(name):
    fn = getattr(F, name)

    def method(self, dim=None, dtype=None, *, axis=UNSET):
        x = self if dtype is None else jnp.astype(self, dtype)
        return fn(x, -1 if dim is None and axis is UNSET else dim if axis is UNSET else axis)
    method.__name__ = name
    method.__doc__ = f"torch.Tensor.{name}(dim, dtype=None): nn.functional.{name} over dim."
    return method


METHODS.update({"cumsum": _cumulative("cumsum"), "cumprod": _cumulative("cumprod"),
                "logcumsumexp": logcumsumexp, "softmax": _activation("softmax"),
                "log_softmax": _activation("log_softmax")})
