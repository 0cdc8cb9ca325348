"""Elementwise lax ops: thin layers over jitgrad.numpy with lax's strict dtype/shape rules and
its integer semantics (div rounds toward zero, rem takes the dividend's sign)."""
from __future__ import annotations


import numpy as np

from .. import numpy as jnp
from ..eager.dispatch import apply
from ..ir import Op
from ..numpy._convert import asarray, operands
from ..transforms.autodiff import stop_gradient  # noqa: F401  (lax.stop_gradient)
from .arg_checks import check_same, is_python_scalar
from ..numpy.inverse_error import erf_inv, erfc  # noqa: F401  (lax.erf_inv, lax.erfc)
from ..ir.types import kind_of


def _binary(name, fn):
    def op(x, y):
        return fn(*check_same(name, x, y))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"lax.{name}(x, y): elementwise, both operands of one dtype and shape."
    return op


add = _binary("add", jnp.add)
sub = _binary("sub", jnp.subtract)
mul = _binary("mul", jnp.multiply)
max = _binary("max", jnp.maximum)  # noqa: A001
min = _binary("min", jnp.minimum)  # noqa: A001
atan2 = _binary("atan2", jnp.arctan2)
eq, ne = _binary("eq", jnp.equal), _binary("ne", jnp.not_equal)
lt, le = _binary("lt", jnp.less), _binary("le", jnp.less_equal)
gt, ge = _binary("gt", jnp.greater), _binary("ge", jnp.greater_equal)
bitwise_and = _binary("and", jnp.bitwise_and)
bitwise_or = _binary("or", jnp.bitwise_or)
bitwise_xor = _binary("xor", jnp.bitwise_xor)
shift_left = _binary("shift_left", jnp.left_shift)
shift_right_arithmetic = _binary("shift_right_arithmetic", jnp.right_shift)


def pow(x, y):  # noqa: A001
    """x ** y: y of x's dtype, or an integer y with a float or complex x (lax.pow's two
    forms)."""
    if not is_python_scalar(x) and not is_python_scalar(y):
        x, y = asarray(x), asarray(y)
        if kind_of(x.dtype) in "fc" and kind_of(y.dtype) in "iu":
            y = jnp.astype(y, x.dtype)
    return jnp.power(*check_same("pow", x, y))


def div(x, y):
    """Float division, or integer division rounding toward zero (C's, not floor division)."""
    x, y = check_same("div", x, y)
    if kind_of(x.dtype) not in "iu":
        return jnp.true_divide(x, y)
    q = jnp.floor_divide(jnp.abs(x), jnp.abs(y))
    return jnp.where(jnp.equal(jnp.less(x, 0), jnp.less(y, 0)), q, jnp.negative(q))


def rem(x, y):
    """x - y * trunc(x / y): the result has the sign of x (C's fmod, not Python's %)."""
    x, y = check_same("rem", x, y)
    return jnp.subtract(x, jnp.multiply(div(x, y), y)) if kind_of(x.dtype) in "iu" else \
        jnp.subtract(x, jnp.multiply(jnp.trunc(jnp.true_divide(x, y)), y))


def logistic(x):
    """lax.logistic(x), elementwise: 1 / (1 + exp(-x)) (jax.nn.sigmoid, scipy.special.expit)."""
    (x,) = operands(x, float_only=True)
    return apply(Op.sigmoid, [x])


def _unary(name, fn):
    def op(x):
        return fn(asarray(x))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"lax.{name}(x), elementwise."
    return op


neg = _unary("neg", jnp.negative)
abs = _unary("abs", jnp.abs)  # noqa: A001
sign = _unary("sign", jnp.sign)
square = _unary("square", jnp.square)
exp = _unary("exp", jnp.exp)
exp2 = _unary("exp2", jnp.exp2)
expm1 = _unary("expm1", jnp.expm1)
log = _unary("log", jnp.log)
log1p = _unary("log1p", jnp.log1p)
sqrt = _unary("sqrt", jnp.sqrt)
rsqrt = _unary("rsqrt", jnp.rsqrt)
cbrt = _unary("cbrt", jnp.cbrt)
tanh = _unary("tanh", jnp.tanh)
sin, cos, tan = _unary("sin", jnp.sin), _unary("cos", jnp.cos), _unary("tan", jnp.tan)
asin, acos, atan = _unary("asin", jnp.arcsin), _unary("acos", jnp.arccos), _unary("atan", jnp.arctan)
sinh, cosh = _unary("sinh", jnp.sinh), _unary("cosh", jnp.cosh)
asinh, acosh, atanh = (_unary("asinh", jnp.arcsinh), _unary("acosh", jnp.arccosh),
                       _unary("atanh", jnp.arctanh))
floor, ceil = _unary("floor", jnp.floor), _unary("ceil", jnp.ceil)
is_finite = _unary("is_finite", jnp.isfinite)
erf = _unary("erf", jnp.erf)
bitwise_not = _unary("not", jnp.bitwise_not)
real, imag, conj = _unary("real", jnp.real), _unary("imag", jnp.imag), _unary("conj", jnp.conj)


def round(x, rounding_method=0):  # noqa: A001
    """lax.round: rounding_method 0 (AWAY_FROM_ZERO, JAX's default) or 1 (TO_NEAREST_EVEN)."""
    x = asarray(x)
    if int(rounding_method) == 1:
        return jnp.round(x)
    if int(rounding_method) != 0:
        raise ValueError(f"lax.round: rounding_method must be 0 (AWAY_FROM_ZERO) or 1 "
                         f"(TO_NEAREST_EVEN), got {rounding_method!r}")
    return jnp.multiply(jnp.sign(x), jnp.floor(jnp.add(jnp.abs(x), 0.5)))


def integer_pow(x, y):
    """x ** y for a Python int y (negative y gives the reciprocal power), by repeated squaring
    so the derivative is exact and no log is taken."""
    if not isinstance(y, (int, np.integer)) or isinstance(y, bool):
        raise TypeError(f"lax.integer_pow: the exponent must be a Python int, got {y!r}")
    x = asarray(x)
    y = int(y)
    if y == 0:
        return jnp.ones_like(x)
    result, base, n = None, x, -y if y < 0 else y
    while n:
        if n & 1:
            result = base if result is None else jnp.multiply(result, base)
        n >>= 1
        if n:
            base = jnp.multiply(base, base)
    return result if y > 0 else jnp.true_divide(1, result)


def clamp(min, x, max):  # noqa: A002
    """min <= x <= max elementwise (lax.clamp's argument order: min first)."""
    x = asarray(x)
    return jnp.minimum(jnp.maximum(x, asarray(min, dtype=x.dtype)), asarray(max, dtype=x.dtype))


def select(pred, on_true, on_false):
    """on_true where pred else on_false; pred is boolean of the operands' shape (or scalar)."""
    pred = asarray(pred)
    if kind_of(pred.dtype) != "b":
        raise TypeError(f"lax.select: pred must be boolean, got {pred.dtype}")
    on_true, on_false = check_same("select", on_true, on_false)
    if pred.ndim and tuple(pred.shape) != tuple(on_true.shape):
        raise TypeError(f"select pred must be scalar or have the same shape as cases, got pred "
                        f"shape {tuple(pred.shape)} for cases of shape {tuple(on_true.shape)}.")
    return jnp.where(pred, on_true, on_false)


def select_n(which, *cases):
    """cases[which] elementwise: which is boolean (two cases) or an integer array."""
    if not cases:
        raise ValueError("lax.select_n: at least one case is required")
    which = asarray(which)
    cases = check_same("select_n", *cases)
    out = cases[0]
    for i, c in enumerate(cases[1:], 1):
        hit = which if kind_of(which.dtype) == "b" else jnp.equal(which, i)
        out = jnp.where(hit, c, out)
    return out


def convert_element_type(operand, new_dtype):
    """operand cast to new_dtype (floats to ints truncate toward zero, as JAX)."""
    return jnp.astype(asarray(operand), new_dtype)
