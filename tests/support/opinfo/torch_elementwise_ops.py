"""torch's elementwise math as jitgrad.* functions, jg.Tensor methods and their in-place forms
(torch.exp / x.exp() / torch.exp_ / x.exp_()): NumPy / SciPy references of torch's definitions
(int inputs of float math give float32, torch's default dtype); torch's own function compared
when it is installed. Names already recorded as functions in torch_ops.py get function=False."""
import numpy as np
import scipy.special as sps

import jitgrad as jg
from .core import ALL, BINARY, F64, FLOATS, INTS, NUMERIC, TERNARY, UNARY, Bools, err
from .torch_records import function_record, op

_B = np.dtype("bool")


def _bad_broadcast(dtype="float32"):
    return (err([(3,), (4,)], (ValueError, TypeError), "broadcast", dtype=dtype),)


def _elu(x, alpha):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


# name -> (reference, domain, dtypes, extra flags); float math on ints computes in float32
_FLOAT_UNARY = {
    "acos": (np.arccos, "unit"), "arccos": (np.arccos, "unit"),
    "acosh": (np.arccosh, "ge1"), "arccosh": (np.arccosh, "ge1"),
    "asin": (np.arcsin, "unit"), "arcsin": (np.arcsin, "unit"),
    "asinh": (np.arcsinh, "any"), "arcsinh": (np.arcsinh, "any"),
    "atan": (np.arctan, "any"), "arctan": (np.arctan, "any"),
    "atanh": (np.arctanh, "unit"), "arctanh": (np.arctanh, "unit"),
    "cos": (np.cos, "any"), "cosh": (np.cosh, "any"), "sin": (np.sin, "any"),
    "sinh": (np.sinh, "any"), "tan": (np.tan, "unit"), "tanh": (np.tanh, "any"),
    "exp": (np.exp, "any"), "exp2": (np.exp2, "any"), "expm1": (np.expm1, "any"),
    "log": (np.log, "positive"), "log10": (np.log10, "positive"),
    "log1p": (np.log1p, "positive"), "log2": (np.log2, "positive"),
    "sqrt": (np.sqrt, "positive"), "rsqrt": (lambda x: 1 / np.sqrt(x), "positive"),
    "reciprocal": (lambda x: 1.0 / x, "nonzero"), "sigmoid": (sps.expit, "any"),
    "erf": (sps.erf, "any"), "erfc": (sps.erfc, "any"), "erfinv": (sps.erfinv, "unit"),
    "lgamma": (sps.gammaln, "positive"), "digamma": (sps.psi, "positive"),
    "i0": (sps.i0, "any"), "sinc": (np.sinc, "nonzero"), "logit": (sps.logit, "prob"),
    "deg2rad": (np.deg2rad, "any"), "rad2deg": (np.rad2deg, "any"),
    "angle": (lambda x: np.where(x < 0, np.pi, 0.0), "nonzero"),
}
_EXACT_UNARY = {   # int / bool stay their dtype
    "abs": np.abs, "absolute": np.abs, "neg": np.negative, "negative": np.negative,
    "positive": np.positive, "square": np.square, "relu": lambda x: np.maximum(x, 0),
    "conj": np.conj, "conj_physical": np.conj, "resolve_conj": np.asarray,
    "resolve_neg": np.asarray,
}
_ROUNDING = {"ceil": np.ceil, "floor": np.floor, "round": np.round, "trunc": np.trunc,
             "fix": np.trunc, "frac": lambda x: x - np.trunc(x)}
_PREDICATES = {"isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan,
               "isneginf": np.isneginf, "isposinf": np.isposinf, "isreal": np.isreal,
               "signbit": np.signbit}
_ACTIVATIONS = {
    "selu": lambda x: 1.0507009873554805 * _elu(x, 1.6732632423543772),
    "celu": lambda x: _elu(x, 1.0),
    "hardshrink": lambda x: np.where(np.abs(x) > 0.5, x, 0),
}
_RECORDED = {"exp", "sigmoid", "erf", "tanh", "square", "neg", "abs", "rsqrt"}   # torch_ops.py

for _n, (_ref, _dom) in _FLOAT_UNARY.items():
    op(_n, _ref, UNARY, dtypes=FLOATS + INTS, domain=_dom, float_result=True,
       function=_n not in _RECORDED)
for _n, _ref in _EXACT_UNARY.items():
    op(_n, _ref, UNARY, dtypes=NUMERIC, domain="nonzero", function=_n not in _RECORDED)
for _n, _ref in _ROUNDING.items():
    op(_n, _ref, UNARY, dtypes=FLOATS, differentiable=False)
for _n, _ref in _PREDICATES.items():
    op(_n, _ref, UNARY, dtypes=NUMERIC, differentiable=False)
for _n, _ref in _ACTIVATIONS.items():       # torch.selu / torch.celu: no Tensor methods
    op(_n, _ref, UNARY, dtypes=FLOATS, domain="nonzero", method=_n == "hardshrink")
op("real", np.real, UNARY, dtypes=NUMERIC, method=False)   # x.real is a property
for _n in ("sign", "sgn"):
    op(_n, np.sign, UNARY, dtypes=NUMERIC, domain="nonzero", differentiable=False)
op("logical_not", np.logical_not, UNARY, dtypes=ALL, differentiable=False)
op("bitwise_not", np.invert, UNARY, dtypes=INTS + (_B,), differentiable=False)
op("nan_to_num", np.nan_to_num, UNARY, dtypes=FLOATS)
op("mvlgamma", lambda x, p: np.vectorize(sps.multigammaln)(x, p), UNARY[:3], dtypes=FLOATS,
   domain="ge1", kwargs={"p": 1})
# torch.polygamma(n, input): n first; the method x.polygamma(n) is compared with torch's
function_record("polygamma", lambda x, n: jg.polygamma(n, x), lambda x, n: sps.polygamma(n, x),
                UNARY, dtypes=FLOATS, domain="positive", kwargs={"n": 1}, tol=1e-4,
                owner_path=None)
op("polygamma", lambda x, n: sps.polygamma(n, x), UNARY[:3], dtypes=FLOATS, domain="positive",
   kwargs={"n": 2}, function=False, tol=1e-4)

# ----------------------------------------------------------------------------- binary

_FLOAT_BINARY = {
    "atan2": (np.arctan2, ("any", "nonzero")), "arctan2": (np.arctan2, ("any", "nonzero")),
    "hypot": (np.hypot, ("nonzero", "nonzero")),
    "logaddexp": (np.logaddexp, ("any", "any")), "logaddexp2": (np.logaddexp2, ("any", "any")),
    "xlogy": (sps.xlogy, ("any", "positive")), "true_divide": (np.divide, ("any", "nonzero")),
    "divide": (np.divide, ("any", "nonzero")), "div": (np.divide, ("any", "nonzero")),
    "copysign": (np.copysign, ("any", "nonzero")), "igamma": (sps.gammainc, "positive"),
    "igammac": (sps.gammaincc, "positive"),
}
_EXACT_BINARY = {
    "add": np.add, "sub": np.subtract, "subtract": np.subtract, "mul": np.multiply,
    "multiply": np.multiply, "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax,
    "fmin": np.fmin, "rsub": lambda a, b: b - a,
}
_COMPARE = {
    "eq": np.equal, "ne": np.not_equal, "not_equal": np.not_equal, "lt": np.less,
    "less": np.less, "le": np.less_equal, "less_equal": np.less_equal, "gt": np.greater,
    "greater": np.greater, "ge": np.greater_equal, "greater_equal": np.greater_equal,
}
_LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or,
            "logical_xor": np.logical_xor}
_BITWISE = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
            "bitwise_xor": np.bitwise_xor}
_RECORDED_BINARY = {"add", "sub", "mul", "maximum", "minimum", "hypot", "atan2", "div", "xlogy"}

for _n, (_ref, _dom) in _FLOAT_BINARY.items():
    op(_n, _ref, BINARY, dtypes=FLOATS, domain=_dom, function=_n not in _RECORDED_BINARY,
       differentiable=_n not in ("igamma", "igammac"), errors=_bad_broadcast())
for _n, _ref in _EXACT_BINARY.items():
    op(_n, _ref, BINARY, dtypes=NUMERIC, domain="nonzero",
       function=_n not in _RECORDED_BINARY, errors=_bad_broadcast())
for _n, _ref in _COMPARE.items():
    op(_n, _ref, BINARY, dtypes=NUMERIC, differentiable=False, errors=_bad_broadcast())
for _n, _ref in {**_LOGICAL, **_BITWISE}.items():
    op(_n, _ref, BINARY, dtypes=INTS + (_B,), differentiable=False,
       errors=_bad_broadcast("int64"))
for _n, _ref in (("bitwise_left_shift", np.left_shift), ("bitwise_right_shift", np.right_shift)):
    op(_n, _ref, BINARY, dtypes=INTS, domain=("any", "nonneg_small"), differentiable=False)
for _n, _ref in (("gcd", np.gcd), ("lcm", np.lcm)):
    op(_n, _ref, BINARY, dtypes=INTS, differentiable=False)
# torch's remainder has the divisor's sign (Python's %), fmod the dividend's (C's)
op("remainder", np.remainder, BINARY, dtypes=NUMERIC, domain=("any", "nonzero"),
   grad_ok_dtypes=())
op("fmod", np.fmod, BINARY, dtypes=NUMERIC, domain=("any", "nonzero"), grad_ok_dtypes=())
op("floor_divide", np.floor_divide, BINARY, dtypes=NUMERIC, domain=("any", "nonzero"),
   differentiable=False)
# float_power computes in float64 (torch's result dtype): float64 inputs keep the dtype rule simple
op("float_power", np.power, BINARY, dtypes=(F64,), domain=("positive", "any"))
op("pow", np.power, BINARY, dtypes=FLOATS, domain=("positive", "any"))
op("heaviside", np.heaviside, BINARY, dtypes=FLOATS, differentiable=False)
op("nextafter", np.nextafter, BINARY, dtypes=FLOATS, differentiable=False)
op("ldexp", lambda a, b: a * np.exp2(b), BINARY, dtypes=FLOATS, domain=("any", "nonneg_small"))
op("isclose", np.isclose, BINARY, dtypes=FLOATS, differentiable=False)
op("add", lambda a, b, alpha: a + alpha * b, BINARY, dtypes=FLOATS, kwargs={"alpha": 2})
op("sub", lambda a, b, alpha: a - alpha * b, BINARY, dtypes=FLOATS, kwargs={"alpha": 0.5})
op("div", lambda a, b, rounding_mode: np.floor(a / b), BINARY, dtypes=FLOATS,
   domain=("any", "nonzero"), kwargs={"rounding_mode": "floor"}, differentiable=False)
op("div", lambda a, b, rounding_mode: np.trunc(a / b), BINARY, dtypes=FLOATS,
   domain=("any", "nonzero"), kwargs={"rounding_mode": "trunc"}, differentiable=False)

# ----------------------------------------------------------------------------- ternary and clamps

op("clamp", np.clip, TERNARY[:4], dtypes=FLOATS, function=False)
op("clip", lambda x, min, max: np.clip(x, min, max), UNARY, dtypes=NUMERIC,
   kwargs={"min": -1, "max": 1})
op("clamp_min", np.maximum, BINARY, dtypes=FLOATS)
op("clamp_max", np.minimum, BINARY, dtypes=FLOATS)
op("lerp", lambda a, b, w: a + w * (b - a), TERNARY[:4], dtypes=FLOATS, function=False)
op("addcmul", lambda a, b, c, value: a + value * b * c, TERNARY[:4], dtypes=FLOATS,
   kwargs={"value": 0.5}, function=False)
op("addcdiv", lambda a, b, c, value: a + value * b / c, TERNARY[:4], dtypes=FLOATS,
   kwargs={"value": 0.5}, domain=("any", "any", "nonzero"))
op("where", lambda c, a, b: np.where(c, a, b), [(Bools(()), (), ()), (Bools((3, 4)), (4,), ()),
                                                  (Bools((3, 1)), (1, 4), (3, 4))],
   dtypes=NUMERIC, inplace=False, method=False)
