"""Records of the one-input elementwise primitives.

Derivatives (`d`): g * dy/dx with x the input and y the output, which rules reuse where stable
(exp' = exp, tanh' = 1 - tanh^2, sigmoid' = s (1 - s)). Conventions at kinks (PyTorch / HIPS
autograd): abs'(0) = sign(0) = 0.
"""
from __future__ import annotations

import math

import numpy as np

from .. import complex_math, reference
from ..autodiff import complex_rules, jvp_rules, vjp_rules
from ..ops import Op
from .elementwise import COMPLEX_GAPS, unary

NONDIFF_PIECEWISE = "piecewise constant: its derivative is zero wherever it exists (as in JAX)"
NONDIFF_BOOL = "its result is a bool or an integer: no tangent space"


def _rsqrt_1_minus_sq(e, x):
    return e(Op.rsqrt, e.sub(1.0, e(Op.square, x)))


def _float_unary(op, numpy, reference_fn, d, doc, *, complex_ok=True, vector_math="",
                 cost="transcendental", math_fn=None, gaps=None, method=()):
    """A float math function computed by the C math function of its name (libm, libdevice,
    llvm_math's vectorizable version where `vector_math` names one)."""
    return unary(op, "float_unary", "inexact" if complex_ok else "float", reference_fn, d,
                 scalar=("math", math_fn or op.value), cost=cost, vector_math=vector_math,
                 gaps=gaps or {}, numpy=numpy, numpy_kind="float_unary", method=method, doc=doc)


RECORDS = [
    _float_unary(Op.exp, ("exp",), np.exp, lambda e, x, y, g: e.mul(g, y), "e ** x",
                 vector_math="exp", gaps={}, method=("exp",)),
    _float_unary(Op.log, ("log",), np.log, lambda e, x, y, g: e.div(g, x), "natural logarithm",
                 vector_math="log", gaps={}, method=("log",)),
    _float_unary(Op.log1p, ("log1p",), np.log1p, lambda e, x, y, g: e.div(g, e.add(x, 1.0)),
                 "log(1 + x), accurate near 0", vector_math="log1p", gaps={}, method=("log1p",)),
    _float_unary(Op.expm1, ("expm1",), complex_math.expm1,
                 lambda e, x, y, g: e.mul(g, e.add(y, 1.0)), "e ** x - 1, accurate near 0",
                 vector_math="expm1", gaps={}, method=("expm1",)),
    _float_unary(Op.sqrt, ("sqrt",), np.sqrt, lambda e, x, y, g: e.div(g, e.mul(y, 2.0)),
                 "square root", cost="heavy", gaps={}, method=("sqrt",)),
    unary(Op.rsqrt, "float_unary", "inexact", lambda x: 1 / np.sqrt(x),
          lambda e, x, y, g: e.mul(g, e.mul(e.div(y, x), -0.5)), scalar=("rule",), cost="heavy",
          numpy=("rsqrt",), numpy_kind="float_unary", method=("rsqrt",),
          doc="1 / sqrt(x) (jax.lax.rsqrt; NumPy has none)"),
    _float_unary(Op.sin, ("sin",), np.sin, lambda e, x, y, g: e.mul(g, e(Op.cos, x)), "sine",
                 vector_math="sin", method=("sin",)),
    _float_unary(Op.cos, ("cos",), np.cos, lambda e, x, y, g: e.neg(e.mul(g, e(Op.sin, x))),
                 "cosine", vector_math="cos", method=("cos",)),
    _float_unary(Op.tan, ("tan",), np.tan,
                 lambda e, x, y, g: e.mul(g, e.add(e(Op.square, y), 1.0)), "tangent",
                 vector_math="tan"),
    _float_unary(Op.tanh, ("tanh",), complex_math.tanh,
                 lambda e, x, y, g: e.mul(g, e.sub(1.0, e(Op.square, y))), "hyperbolic tangent",
                 vector_math="tanh", gaps={}, method=("tanh",)),
    _float_unary(Op.asin, ("arcsin", "asin"), np.arcsin,
                 lambda e, x, y, g: e.mul(g, _rsqrt_1_minus_sq(e, x)), "inverse sine",
                 vector_math="asin"),
    _float_unary(Op.acos, ("arccos", "acos"), np.arccos,
                 lambda e, x, y, g: e.neg(e.mul(g, _rsqrt_1_minus_sq(e, x))), "inverse cosine",
                 vector_math="acos"),
    _float_unary(Op.atan, ("arctan", "atan"), np.arctan,
                 lambda e, x, y, g: e.div(g, e.add(e(Op.square, x), 1.0)), "inverse tangent",
                 vector_math="atan"),
    _float_unary(Op.sinh, ("sinh",), np.sinh, lambda e, x, y, g: e.mul(g, e(Op.cosh, x)),
                 "hyperbolic sine", vector_math="sinh"),
    _float_unary(Op.cosh, ("cosh",), np.cosh, lambda e, x, y, g: e.mul(g, e(Op.sinh, x)),
                 "hyperbolic cosine", vector_math="cosh"),
    _float_unary(Op.asinh, ("arcsinh", "asinh"), np.arcsinh,
                 lambda e, x, y, g: e.mul(g, e(Op.rsqrt, e.add(e(Op.square, x), 1.0))),
                 "inverse hyperbolic sine"),
    _float_unary(Op.acosh, ("arccosh", "acosh"), np.arccosh,
                 lambda e, x, y, g: e.mul(g, e(Op.rsqrt, e.mul(e.sub(x, 1.0), e.add(x, 1.0)))),
                 "inverse hyperbolic cosine"),
    _float_unary(Op.atanh, ("arctanh", "atanh"), np.arctanh,
                 lambda e, x, y, g: e.div(g, e.sub(1.0, e(Op.square, x))),
                 "inverse hyperbolic tangent"),
    unary(Op.erf, "float_unary", "float", reference.erf,
          lambda e, x, y, g: e.mul(g, e.mul(e(Op.exp, e.neg(e(Op.square, x))),
                                            2.0 / math.sqrt(math.pi))),
          scalar=("math", "erf"), cost="transcendental", vector_math="erf",
          numpy=("erf",), doc="the error function (scipy.special.erf)"),
    unary(Op.sigmoid, "float_unary", "float", reference.sigmoid,
          lambda e, x, y, g: e.mul(g, e.mul(y, e.sub(1.0, y))), scalar=("rule",),
          cost="transcendental", vector_math="sigmoid", method=("sigmoid",),
          doc="1 / (1 + e ** -x) (jax.nn.sigmoid)"),
    unary(Op.floor, "float_unary", "float", np.floor, nondiff=NONDIFF_PIECEWISE, scalar=("rule",),
          cost="heavy", numpy=("floor",), numpy_kind="rounding", method=("floor",),
          doc="the largest integer <= x"),
    unary(Op.ceil, "float_unary", "float", np.ceil, nondiff=NONDIFF_PIECEWISE, scalar=("rule",),
          cost="heavy", numpy=("ceil",), numpy_kind="rounding", method=("ceil",),
          doc="the smallest integer >= x"),
    unary(Op.round, "float_unary", "float", np.round, nondiff=NONDIFF_PIECEWISE,
          scalar=("rule",), cost="heavy", numpy=("rint", "round_"), numpy_kind="rounding",
          doc="the nearest integer, halves to even"),
    unary(Op.neg, "numeric_unary", "numeric", np.negative, lambda e, x, y, g: e.neg(g),
          scalar=("rule",), numpy=("negative", "neg"), numpy_kind="numeric_unary",
          method=("neg",), doc="-x"),
    unary(Op.abs, "numeric_unary", "numeric", np.abs, result="real",
          vjp=complex_rules.on_complex(complex_rules.abs_vjp, vjp_rules.from_linearized(
              lambda e, x, y, g, i: e.mul(g, e(Op.sign, x[0])))),
          jvp=complex_rules.on_complex(complex_rules.abs_jvp, jvp_rules.from_linearized(
              lambda e, x, y, g, i: e.mul(g, e(Op.sign, x[0])))),
          scalar=("rule",), numpy=("abs", "absolute"), numpy_kind="numeric_unary",
          method=("abs",), doc="|x| (a complex input gives its real modulus)"),
    unary(Op.sign, "numeric_unary", "numeric", np.sign, nondiff=NONDIFF_PIECEWISE,
          scalar=("rule",), numpy=("sign",), numpy_kind="numeric_unary", method=("sign",),
          doc="-1, 0 or 1 by the sign of x (NaN stays NaN)"),
    unary(Op.square, "numeric_unary", "numeric", np.square,
          lambda e, x, y, g: e.mul(g, e.mul(x, 2.0)), scalar=("rule",), numpy=("square",),
          numpy_kind="numeric_unary", method=("square",), doc="x * x"),
    unary(Op.isnan, "predicate", "any", np.isnan, result="bool", nondiff=NONDIFF_BOOL,
          scalar=("rule",), numpy=("isnan",), method=("isnan",), doc="whether x is NaN"),
    unary(Op.isinf, "predicate", "any", np.isinf, result="bool", nondiff=NONDIFF_BOOL,
          scalar=("rule",), numpy=("isinf",), doc="whether x is +inf or -inf"),
    unary(Op.signbit, "predicate", "float", np.signbit, result="bool", nondiff=NONDIFF_BOOL,
          scalar=("rule",), numpy=("signbit",), method=("signbit",),
          doc="whether the sign bit is set (true for -0.0 and -nan)"),
    unary(Op.logical_not, "logical", "bool", np.logical_not, nondiff=NONDIFF_BOOL,
          scalar=("rule",), numpy=("logical_not",), doc="not x"),
    unary(Op.bitwise_not, "integer_unary", "integer", np.invert, nondiff=NONDIFF_BOOL,
          scalar=("rule",), numpy=("bitwise_not", "invert"),
          doc="~x, two's complement"),
    unary(Op.real, "complex_part", "complex", np.real, result="real", vjp=complex_rules.real_vjp,
          jvp=complex_rules.part_jvp, scalar=("rule",), gaps=COMPLEX_GAPS, numpy=("real",),
          doc="the real part of a complex x"),
    unary(Op.imag, "complex_part", "complex", np.imag, result="real", vjp=complex_rules.imag_vjp,
          jvp=complex_rules.part_jvp, scalar=("rule",), gaps=COMPLEX_GAPS, numpy=("imag",),
          doc="the imaginary part of a complex x"),
    unary(Op.conj, "complex_part", "complex", np.conjugate, vjp=complex_rules.conj_vjp,
          jvp=complex_rules.part_jvp, scalar=("rule",), gaps=COMPLEX_GAPS,
          numpy=("conj", "conjugate"),
          method=("conj", "conjugate"), doc="the complex conjugate"),
    unary(Op.convert, "cast", "any", reference.convert, result="param", vjp=vjp_rules.convert,
          jvp=jvp_rules.convert, scalar=("rule",), numpy=("astype",), method=("astype",),
          doc="x cast to params['dtype'] (complex to real keeps the real part, as JAX)"),
    unary(Op.stop_gradient, "cast", "any", lambda x: x,
          nondiff="its derivative is zero by definition (jax.lax.stop_gradient)",
          scalar=("rule",), doc="x, with a zero derivative"),
]
