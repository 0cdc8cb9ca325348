"""PyTorch's elementwise methods (x.add(y, alpha=2), x.div(y, rounding_mode='floor'),
x.clamp(min, max), x.lerp(end, w), x.addcmul(t1, t2, value=), x.eq(y), ...), each the
jitgrad.numpy (or jitgrad.scipy.special) function of the same meaning, listed in tables."""
from __future__ import annotations

import importlib

from .. import numpy as jnp
from ..eager.own_storage import unshared
from ..eager.zero_dim_promotion import ELEMENTWISE_PAIRS, torch_operands
from ..ir.registry import RECORDS
from ..ir.types import kind_of

# torch name -> jitgrad.numpy name: x.name(*args) is jnp.<name>(x, *args)
SAME_AS_NUMPY = {
    "abs": "abs", "absolute": "abs", "neg": "negative", "negative": "negative",
    "positive": "positive", "sign": "sign", "sqrt": "sqrt", "rsqrt": "rsqrt", "exp": "exp",
    "exp2": "exp2", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10",
    "log1p": "log1p", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "arcsin",
    "arcsin": "arcsin", "acos": "arccos", "arccos": "arccos", "atan": "arctan",
    "arctan": "arctan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asinh": "arcsinh",
    "arcsinh": "arcsinh", "acosh": "arccosh", "arccosh": "arccosh", "atanh": "arctanh",
    "arctanh": "arctanh", "ceil": "ceil", "floor": "floor", "trunc": "trunc", "fix": "trunc",
    "reciprocal": "reciprocal", "square": "square", "deg2rad": "deg2rad",
    "rad2deg": "rad2deg", "sinc": "sinc", "logical_not": "logical_not",
    "bitwise_not": "bitwise_not", "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
    "isreal": "isreal", "signbit": "signbit", "angle": "angle", "conj": "conj",
    "resolve_conj": "copy", "resolve_neg": "copy",
    "mul": "multiply", "multiply": "multiply", "true_divide": "true_divide",
    "floor_divide": "floor_divide", "remainder": "remainder", "pow": "power",
    "eq": "equal", "ne": "not_equal", "not_equal": "not_equal", "lt": "less", "less": "less",
    "le": "less_equal", "less_equal": "less_equal", "gt": "greater", "greater": "greater",
    "ge": "greater_equal", "greater_equal": "greater_equal", "maximum": "maximum",
    "minimum": "minimum", "fmax": "fmax", "fmin": "fmin", "atan2": "arctan2",
    "arctan2": "arctan2", "hypot": "hypot", "copysign": "copysign", "logaddexp": "logaddexp",
    "logaddexp2": "logaddexp2", "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or",
    "bitwise_xor": "bitwise_xor", "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift", "logical_and": "logical_and",
    "logical_or": "logical_or", "logical_xor": "logical_xor", "heaviside": "heaviside",
    "nan_to_num": "nan_to_num", "matmul": "matmul", "outer": "outer", "ger": "outer",
    "inner": "inner", "kron": "kron", "vdot": "vdot",
    "broadcast_to": "broadcast_to",
}
# torch name -> jitgrad.scipy.special name (loaded on first call: jitgrad.scipy is lazy)
SAME_AS_SPECIAL = {"erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "lgamma": "gammaln",
                   "digamma": "digamma", "i0": "i0", "xlogy": "xlogy", "polygamma": None,
                   "mvlgamma": None, "igamma": "gammainc", "igammac": "gammaincc"}
SPECIAL_PAIRS = frozenset({"xlogy", "gammainc", "gammaincc"})     # functions of two tensors


def _numpy_method(torch_name, name):
    fn = getattr(jnp, name)

    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    def pair_method(self, other, *args, **kwargs):      # torch's rule for 0-d tensors
        return fn(*torch_operands(name, self, other), *args, **kwargs)
    if name in ELEMENTWISE_PAIRS:
        method = pair_method
    method.__name__ = torch_name
    method.__doc__ = f"torch.Tensor.{torch_name}: jitgrad.numpy.{name}(x, ...)."
    return method


def _special_method(torch_name, name):
    def method(self, *args, **kwargs):
        if name in SPECIAL_PAIRS and args:      # torch's rule for 0-d tensors
            self, other = torch_operands(name, self, args[0])
            args = (other,) + args[1:]
        return getattr(importlib.import_module("jitgrad.scipy.special"), name)(self, *args,
                                                                               **kwargs)
    method.__name__ = torch_name
    method.__doc__ = f"torch.Tensor.{torch_name}: jitgrad.scipy.special.{name}(x, ...)."
    return method


def polygamma(self, n):
    """torch.Tensor.polygamma(n) (torch.polygamma(n, x) at the top level)."""
    return importlib.import_module("jitgrad.scipy.special").polygamma(n, self)


def mvlgamma(self, p):
    """torch.Tensor.mvlgamma(p): jitgrad.scipy.special.multigammaln(x, p), torch's p= spelled."""
    return importlib.import_module("jitgrad.scipy.special").multigammaln(self, p)


def cross(self, other, dim=None):
    """torch.Tensor.cross(other, dim=None): dim None is the first dim of length 3 (torch.cross's
    rule; torch.linalg.cross and jitgrad.numpy.cross take the last)."""
    if dim is None:
        shape = jnp.broadcast_shapes(self.shape, jnp.shape(other))
        dim = next((d for d, n in enumerate(shape) if n == 3), -1)
    return jnp.cross(self, other, axis=dim)


def _scaled(other, alpha):
    return other if alpha == 1 else jnp.multiply(other, alpha)


def add(self, other, *, alpha=1):
    """torch.Tensor.add(other, alpha=1): self + alpha * other."""
    return jnp.add(*torch_operands("add", self, _scaled(other, alpha)))


def sub(self, other, *, alpha=1):
    """torch.Tensor.sub(other, alpha=1): self - alpha * other."""
    return jnp.subtract(*torch_operands("subtract", self, _scaled(other, alpha)))


def rsub(self, other, *, alpha=1):
    """torch.rsub: other - alpha * self."""
    return jnp.subtract(*torch_operands("subtract", other, _scaled(self, alpha)))


def _trunc_divide(a, b):
    a, b = jnp.asarray(a), jnp.asarray(b)
    if kind_of(jnp.result_type(a, b)) in "iu":     # integers: round the quotient towards 0
        q = jnp.floor_divide(a, b)
        inexact = jnp.logical_and(jnp.not_equal(jnp.remainder(a, b), 0),
                                  jnp.not_equal(jnp.less(a, 0), jnp.less(b, 0)))
        return jnp.where(inexact, q + 1, q)
    return jnp.trunc(jnp.true_divide(a, b))


_ROUNDING = {None: jnp.true_divide, "trunc": _trunc_divide, "floor": jnp.floor_divide}


def div(self, other, *, rounding_mode=None):
    """torch.Tensor.div(other, rounding_mode=None | 'trunc' | 'floor')."""
    if rounding_mode not in _ROUNDING:
        raise ValueError(f"div: rounding_mode must be None, 'trunc' or 'floor', got "
                         f"{rounding_mode!r}")
    return _ROUNDING[rounding_mode](
        *torch_operands("floor_divide" if rounding_mode else "true_divide", self, other))


def fmod(self, other):
    """torch.fmod: the remainder with the sign of the dividend (C's fmod)."""
    self, other = torch_operands("remainder", self, other)
    return jnp.subtract(self, jnp.multiply(_trunc_divide(self, other), other))


def frac(self):
    """torch.Tensor.frac: x - trunc(x)."""
    return jnp.subtract(self, jnp.trunc(self))


def float_power(self, exponent):
    """torch.float_power: the power in float64 (complex128 for complex)."""
    wide = "complex128" if kind_of(jnp.result_type(self, exponent)) == "c" else "float64"
    return jnp.power(jnp.asarray(self, dtype=wide), jnp.asarray(exponent, dtype=wide))


def ldexp(self, other):
    """torch.ldexp: self * 2 ** other."""
    return jnp.multiply(self, jnp.exp2(jnp.asarray(other, dtype=jnp.result_type(self, 1.0))))


def sgn(self):
    """torch.sgn: sign for reals, x / |x| for complex."""
    if kind_of(self.dtype) != "c":
        return jnp.sign(self)
    mag = jnp.abs(self)
    return jnp.where(jnp.equal(mag, 0), 0, jnp.true_divide(self, jnp.where(mag == 0, 1, mag)))


def logit(self, eps=None):
    """torch.logit(x, eps=None): log(x / (1 - x)), x clamped to [eps, 1 - eps] when given."""
    x = self if eps is None else jnp.clip(self, eps, 1 - eps)
    return jnp.log(jnp.true_divide(x, jnp.subtract(1, x)))


def clamp(self, min=None, max=None):  # noqa: A002
    """torch.Tensor.clamp(min=None, max=None) (also clip; tensors or numbers)."""
    if min is None and max is None:
        raise ValueError("clamp: at least one of min and max must not be None")
    # torch promotes over the input and both bounds (clamp(int tensor, min=0.5) is float), with
    # its rule for 0-d tensors; Python numbers are weak
    given = [b for b in (min, max) if b is not None]
    self, *given = torch_operands("maximum", self, *given)
    if min is not None:
        min, given = given[0], given[1:]
        self = jnp.maximum(self, min)
    return self if max is None else jnp.minimum(self, given[0])


def clamp_min(self, min):  # noqa: A002
    return clamp(self, min=min)


def clamp_max(self, max):  # noqa: A002
    return clamp(self, max=max)


def lerp(self, end, weight):
    """torch.Tensor.lerp(end, weight): self + weight * (end - self)."""
    self, end, weight = torch_operands("add", self, end, weight)
    return jnp.add(self, jnp.multiply(weight, jnp.subtract(end, self)))


def addcmul(self, tensor1, tensor2, *, value=1):
    """torch.Tensor.addcmul: self + value * tensor1 * tensor2."""
    self, tensor1, tensor2 = torch_operands("add", self, tensor1, tensor2)
    return jnp.add(self, _scaled(jnp.multiply(tensor1, tensor2), value))


def addcdiv(self, tensor1, tensor2, *, value=1):
    """torch.Tensor.addcdiv: self + value * tensor1 / tensor2."""
    self, tensor1, tensor2 = torch_operands("true_divide", self, tensor1, tensor2)
    return jnp.add(self, _scaled(jnp.true_divide(tensor1, tensor2), value))


def _beta_alpha(self, product, beta, alpha):
    scaled = _scaled(product, alpha)
    return scaled if beta == 0 else jnp.add(_scaled(self, beta), scaled)


def addmm(self, mat1, mat2, *, beta=1, alpha=1):
    """torch.addmm: beta * self + alpha * (mat1 @ mat2) (self ignored when beta == 0)."""
    return _beta_alpha(self, jnp.matmul(mat1, mat2), beta, alpha)


addmv = addmm
baddbmm = addmm


def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
    """torch.addbmm: beta * self + alpha * sum_b batch1[b] @ batch2[b]."""
    return _beta_alpha(self, jnp.sum(jnp.matmul(batch1, batch2), axis=0), beta, alpha)


def addr(self, vec1, vec2, *, beta=1, alpha=1):
    """torch.addr: beta * self + alpha * outer(vec1, vec2)."""
    return _beta_alpha(self, jnp.outer(vec1, vec2), beta, alpha)


def _matrix_op(name, lhs_ndim, rhs_ndim):
    def method(self, other):
        if self.ndim != lhs_ndim or jnp.ndim(other) != rhs_ndim:
            raise ValueError(f"{name}: expected a {lhs_ndim}-d tensor and a {rhs_ndim}-d "
                             f"tensor, got shapes {tuple(self.shape)} and "
                             f"{tuple(jnp.shape(other))}")
        return jnp.matmul(self, other)
    method.__name__ = name
    method.__doc__ = f"torch.Tensor.{name}: the matmul of a {lhs_ndim}-d and a {rhs_ndim}-d tensor."
    return method


def dot(self, other):
    """torch.Tensor.dot: the inner product of two 1-d tensors (NumPy's dot otherwise)."""
    return jnp.dot(self, other)


def nonzero(self, *, as_tuple=False):
    """torch.Tensor.nonzero: the (n, ndim) tensor of indices; as_tuple=True gives NumPy's tuple
    of index arrays (jitgrad.numpy.nonzero(x))."""
    return jnp.nonzero(self) if as_tuple else jnp.argwhere(self)


def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.isclose."""
    return jnp.isclose(self, other, rtol, atol, equal_nan)


def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.allclose -> bool."""
    return jnp.allclose(self, other, rtol, atol, equal_nan)


def equal(self, other):
    """torch.equal: True if same shape and elements."""
    return tuple(self.shape) == tuple(jnp.shape(other)) and bool(jnp.all(jnp.equal(self, other)))


def isposinf(self):
    """torch.isposinf: x == +inf."""
    return jnp.logical_and(jnp.isinf(self), jnp.greater(self, 0))


def isneginf(self):
    """torch.isneginf: x == -inf."""
    return jnp.logical_and(jnp.isinf(self), jnp.less(self, 0))


def is_nonzero(self):
    """torch.is_nonzero: bool of a one-element tensor."""
    if self.size != 1:
        raise RuntimeError(f"is_nonzero: expected a tensor with one element, got "
                           f"{self.size} elements")
    return bool(self.item())


def conj_physical(self):
    """torch.Tensor.conj_physical: the conjugate in storage of its own (of a real tensor, a
    copy; NumPy's conj of one is the array itself)."""
    return unshared(jnp.conj(self), self)


# names one primitive's record already installs (jitgrad.numpy's same function, flat)
_FROM_RECORDS = {m for r in RECORDS.values() if r.numpy for m in r.method}
METHODS = {name: _numpy_method(name, np_name) for name, np_name in SAME_AS_NUMPY.items()
           if name not in _FROM_RECORDS or np_name in ELEMENTWISE_PAIRS}
METHODS.update({name: _special_method(name, sp) for name, sp in SAME_AS_SPECIAL.items() if sp})
METHODS.update({
    "polygamma": polygamma, "mvlgamma": mvlgamma, "cross": cross, "add": add, "sub": sub,
    "subtract": sub, "div": div, "divide": div, "fmod": fmod, "frac": frac,
    "float_power": float_power, "ldexp": ldexp,
    "sgn": sgn, "logit": logit, "clamp": clamp, "clip": clamp, "clamp_min": clamp_min,
    "clamp_max": clamp_max, "lerp": lerp, "addcmul": addcmul, "addcdiv": addcdiv,
    "addmm": addmm, "addmv": addmv, "baddbmm": baddbmm, "addbmm": addbmm, "addr": addr,
    "mm": _matrix_op("mm", 2, 2), "mv": _matrix_op("mv", 2, 1), "bmm": _matrix_op("bmm", 3, 3),
    "dot": dot, "nonzero": nonzero, "isclose": isclose, "allclose": allclose,
    "equal": equal, "is_nonzero": is_nonzero, "isposinf": isposinf, "isneginf": isneginf,
    "rsub": rsub, "conj_physical": conj_physical,
})
