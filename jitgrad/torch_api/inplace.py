"""PyTorch's in-place methods (x.add_(y, alpha=2), x.clamp_(0, 1), x.masked_fill_(m, 0),
x.normal_(), ...), generated from one table: each computes its out-of-place form and writes it
into the tensor's storage with Tensor._assign (views see it; autograd records it). Results are
cast to the tensor's dtype where torch casts (bool -> any, int -> float); eager tensors only:
traced values are immutable, and their in-place methods say so. (x.zero_() is Tensor's own: it
writes storage that recorded ops may need, which backward then reports.)"""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..eager.global_rng import rng_of
from ..ir.types import kind_of

# x.name_(...) writes x.name(...) into x
OUT_OF_PLACE = (
    "abs", "absolute", "neg", "negative", "sign", "sgn", "sqrt", "rsqrt", "exp", "exp2",
    "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "arcsin", "acos",
    "arccos", "atan", "arctan", "sinh", "cosh", "tanh", "asinh", "arcsinh", "acosh", "arccosh",
    "atanh", "arctanh", "ceil", "floor", "round", "trunc", "fix", "frac", "reciprocal",
    "square", "deg2rad", "rad2deg", "sinc", "logical_not", "bitwise_not", "sigmoid", "relu",
    "erf", "erfc", "erfinv", "lgamma", "digamma", "i0", "logit", "nan_to_num", "polygamma",
    "mvlgamma", "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
    "floor_divide", "remainder", "fmod", "pow", "float_power", "atan2", "arctan2", "hypot",
    "copysign", "ldexp", "xlogy", "heaviside", "eq", "ne", "not_equal", "lt", "less", "le",
    "less_equal", "gt", "greater", "ge", "greater_equal", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "logical_and", "logical_or",
    "logical_xor", "clamp", "clip", "clamp_min", "clamp_max", "lerp", "addcmul", "addcdiv",
    "addmm", "addmv", "baddbmm", "addbmm", "addr", "tril", "triu", "scatter", "scatter_add",
    "scatter_reduce", "index_add", "index_copy", "index_fill", "index_put", "masked_fill",
    "masked_scatter", "put", "cumsum", "cumprod", "conj_physical", "index_reduce", "gcd", "lcm",
    "nextafter", "renorm", "igamma", "igammac",
)
# x.name_(...) makes x stand for x.name(...), of another shape (torch changes its view)
RESHAPING = ("squeeze", "unsqueeze", "t", "transpose", "swapaxes", "swapdims")


def _fits(result, dtype):
    """result cast to dtype where torch's in-place ops cast (never float -> int)."""
    if result.dtype == dtype:
        return result
    if kind_of(result.dtype) == "b" or np.can_cast(result.dtype, dtype, "same_kind"):
        return jnp.astype(result, dtype)
    return result          # _assign names both dtypes in its error


def _eager(name, compute):
    def method(self, *args, **kwargs):
        return self._assign(_fits(compute(self, *args, **kwargs), self.dtype), f"{name}()")
    method.__name__ = name
    method.__doc__ = f"torch.Tensor.{name}: the in-place form (eager tensors)."
    return method


def _reshaping(name, compute):
    def method(self, *args, **kwargs):
        self._check_mutable(f"{name}()")
        self._rebind(compute(self, *args, **kwargs))
        return self
    method.__name__ = name
    method.__doc__ = f"torch.Tensor.{name}: the in-place form (eager tensors)."
    return method


def _traced(name):
    def method(self, *args, **kwargs):
        raise TypeError(f"x.{name}(...): a traced value (inside jit/grad/vmap) is immutable; "
                        f"use the out-of-place x.{name[:-1]}(...) and its result, or "
                        f"x.at[index].set(...) for an update")
    method.__name__ = name
    return method


def _drawn(draw):
    def method(self, *args, generator=None, **kw):
        return jnp.asarray(draw(rng_of(generator), tuple(self.shape), *args, **kw),
                           dtype=self.dtype)
    return method


# x.name_(...) fills x with draws from `generator` (default: the one jg.manual_seed seeds)
_RANDOM = {
    "uniform_": lambda rng, shape, a=0.0, b=1.0, *, from_=None, to=None:
        rng.uniform(a if from_ is None else from_, b if to is None else to, shape),
    "normal_": lambda rng, shape, mean=0.0, std=1.0: rng.normal(mean, std, shape),
    "bernoulli_": lambda rng, shape, p=0.5: rng.random(shape) < np.asarray(p),
    "exponential_": lambda rng, shape, lambd=1.0: rng.exponential(1 / lambd, shape),
    "geometric_": lambda rng, shape, p: rng.geometric(p, shape),
    "cauchy_": lambda rng, shape, median=0.0, sigma=1.0:
        median + sigma * rng.standard_cauchy(shape),
    "log_normal_": lambda rng, shape, mean=1.0, std=2.0: rng.lognormal(mean, std, shape),
    "random_": lambda rng, shape, low=None, high=None, *, to=None:
        _integers(rng, shape, low, high if to is None else to),
}


def _integers(rng, shape, low, high):
    """torch's random_(), random_(to), random_(from, to): [0, 2**24) by default."""
    if high is None:
        low, high = 0, 2 ** 24 if low is None else low
    return rng.integers(low, high, shape)


def fill_(self, value):
    """torch.Tensor.fill_(value)."""
    return jnp.full(self.shape, value, dtype=self.dtype)


def fill_diagonal_(self, fill_value, wrap=False):
    """torch.Tensor.fill_diagonal_: fill_value on the main diagonal (all dims equal, or a tall
    matrix; wrap=True restarts the diagonal every ncols+1 rows as NumPy's fill_diagonal)."""
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise ValueError(f"fill_diagonal_: all dims must be equal for a {self.ndim}-d tensor, "
                         f"got shape {tuple(self.shape)}")
    rows = np.arange(self.shape[0] if wrap and self.ndim == 2 else min(self.shape))
    cols = rows % (self.shape[-1] + 1) if wrap else rows
    rows, cols = rows[cols < self.shape[-1]], cols[cols < self.shape[-1]]
    key = (rows,) * (self.ndim - 1) + (cols,)
    return self.at[key].set(jnp.asarray(fill_value, dtype=self.dtype))


def copy_(self, src, non_blocking=False):
    """torch.Tensor.copy_(src): src, broadcast and cast to x's dtype."""
    return jnp.broadcast_to(jnp.asarray(src, dtype=self.dtype), self.shape)


def _computations(methods):
    """name_ -> the function computing its new value."""
    table = {f"{name}_": methods[name] for name in OUT_OF_PLACE if name in methods}
    table.update({name: _drawn(draw) for name, draw in _RANDOM.items()})
    table.update({"fill_": fill_, "fill_diagonal_": fill_diagonal_, "copy_": copy_})
    return table


def tensor_methods(methods) -> dict:
    """The in-place methods of eager Tensors, from `methods` (name -> out-of-place method)."""
    table = {name: _eager(name, fn) for name, fn in _computations(methods).items()}
    table.update({f"{name}_": _reshaping(f"{name}_", methods[name]) for name in RESHAPING})
    return table


def traced_methods(methods) -> dict:
    """The same names on traced values: each raises, pointing to the out-of-place form."""
    return {name: _traced(name) for name in [*_computations(methods),
                                             *(f"{n}_" for n in RESHAPING)]}

