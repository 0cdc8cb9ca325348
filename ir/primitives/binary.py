"""Records of the two-input elementwise primitives (NumPy broadcasting, equal dtypes) and select.

Derivatives (`d(e, x, y, g, i)` = g * dy/dx[i]). Conventions at kinks (JAX, PyTorch, HIPS
autograd): maximum/minimum give each side half the gradient at a tie; d/dx x**y = 0 where
y = 0, also at x = 0; d/dy x**y uses log(1) = 0 where x = 0. relu'(0) = 0 comes from relu being
a select (nn.functional.relu), not from max.
"""
from __future__ import annotations

import numpy as np

from .. import complex_math
from ..autodiff import complex_rules, jvp_rules, vjp_rules
from ..batching import rules as batching
from ..ops import Op
from ..registry import Primitive
from .elementwise import COMPLEX_GAPS, binary
from .type_rules import select_rule
from .unary import NONDIFF_BOOL, NONDIFF_PIECEWISE


def _tie_weight(e, win, tie, g):
    """g * (1 where this side wins, 1/2 at a tie, 0 where it loses)."""
    return e.mul(g, e.select(win, 1.0, e.select(tie, e.const(0.5, g.type.dtype), 0.0)))


def _max(e, x, y, g, i):
    a, b = x[i], x[1 - i]
    return _tie_weight(e, e(Op.gt, a, b), e(Op.eq, a, b), g)


def _min(e, x, y, g, i):
    a, b = x[i], x[1 - i]
    return _tie_weight(e, e(Op.lt, a, b), e(Op.eq, a, b), g)


def _pow(e, x, y, g, i):
    a, b = x
    if i == 0:
        # b * a**(b-1) with a replaced by 1 where b == 0: exactly 0 there, and no 0 * inf in
        # any higher derivative either
        safe_a = e.select(e.eq(b, 0.0), 1.0, a)
        return e.mul(g, e.mul(b, e(Op.pow, safe_a, e.sub(b, 1.0))))
    safe_a = e.select(e.eq(a, 0.0), 1.0, a)
    return e.mul(g, e.mul(y, e(Op.log, safe_a)))


def _atan2(e, x, y, g, i):
    a, b = x
    r = e.add(e(Op.square, a), e(Op.square, b))
    return e.div(e.mul(g, b), r) if i == 0 else e.neg(e.div(e.mul(g, a), r))


def _div(e, x, y, g, i):
    return e.div(g, x[1]) if i == 0 else e.neg(e.div(e.mul(g, y), x[1]))


def _mod(e, x, y, g, i):
    # a mod b = a - b * floor(a / b)
    return g if i == 0 else e.neg(e.mul(g, e(Op.floor, e.div(x[0], x[1]))))


def _arith(op, accepts, reference, d, sym, numpy, doc, **kw):
    return binary(op, "arith", accepts, reference, d, scalar=("infix", sym) if sym else ("rule",),
                  numpy=numpy, numpy_kind=kw.pop("numpy_kind", "binary"), doc=doc, **kw)


def _compare(op, accepts, reference, sym, numpy, doc):
    return binary(op, "compare", accepts, reference, result="bool", nondiff=NONDIFF_BOOL,
                  scalar=("infix", sym), numpy=numpy, numpy_kind="compare", doc=doc)


def _logical(op, reference, sym, numpy, doc):
    return binary(op, "logical", "bool", reference, nondiff=NONDIFF_BOOL, scalar=("infix", sym),
                  numpy=numpy, numpy_kind="logical", doc=doc)


def _bitwise(op, reference, sym, numpy, doc):
    return binary(op, "integer_binary", "integer", reference, nondiff=NONDIFF_BOOL,
                  scalar=("infix", sym) if sym else ("rule",),
                  numpy=numpy, numpy_kind="integer_binary", doc=doc)


RECORDS = [
    _arith(Op.add, "numeric", np.add, lambda e, x, y, g, i: g, "+", ("add",), "x1 + x2"),
    _arith(Op.sub, "numeric", np.subtract, lambda e, x, y, g, i: g if i == 0 else e.neg(g),
           "-", ("subtract",), "x1 - x2"),
    _arith(Op.mul, "numeric", np.multiply, lambda e, x, y, g, i: e.mul(g, x[1 - i]), "*",
           ("multiply",), "x1 * x2"),
    _arith(Op.div, "inexact", np.true_divide, _div, "/", ("true_divide", "divide"),
           "x1 / x2 in floating point", cost="divide", numpy_kind=""),
    _arith(Op.floor_div, "real", np.floor_divide, None, "//", ("floor_divide",),
           "floor(x1 / x2)", nondiff=NONDIFF_PIECEWISE, cost="divide"),
    _arith(Op.mod, "real", np.mod, _mod, "%", ("mod", "remainder"),
           "x1 - x2 * floor(x1 / x2), the sign of x2 (Python's %)", cost="divide"),
    _arith(Op.pow, "numeric", np.power, _pow, None, ("power", "pow"), "x1 ** x2",
           cost="transcendental", vector_math="pow", method=("pow",)),
    _arith(Op.max, "real", np.maximum, _max, None, ("maximum", "fmax"),
           "the larger of x1 and x2 (NaN wins, as NumPy's maximum)", method=("maximum",)),
    _arith(Op.min, "real", np.minimum, _min, None, ("minimum", "fmin"),
           "the smaller of x1 and x2 (NaN wins, as NumPy's minimum)", method=("minimum",)),
    _arith(Op.atan2, "float", np.arctan2, _atan2, None, ("arctan2", "atan2"),
           "the angle of the point (x2, x1)", cost="transcendental", vector_math="atan2",
           numpy_kind=""),
    _compare(Op.eq, "any", np.equal, "==", ("equal",), "x1 == x2"),
    _compare(Op.ne, "any", np.not_equal, "!=", ("not_equal",), "x1 != x2 (true where NaN)"),
    _compare(Op.lt, "ordered", np.less, "<", ("less",), "x1 < x2"),
    _compare(Op.le, "ordered", np.less_equal, "<=", ("less_equal",), "x1 <= x2"),
    _compare(Op.gt, "ordered", np.greater, ">", ("greater",), "x1 > x2"),
    _compare(Op.ge, "ordered", np.greater_equal, ">=", ("greater_equal",), "x1 >= x2"),
    _logical(Op.logical_and, np.logical_and, "&", ("logical_and",), "x1 and x2"),
    _logical(Op.logical_or, np.logical_or, "|", ("logical_or",), "x1 or x2"),
    _logical(Op.logical_xor, np.logical_xor, "^", ("logical_xor",), "x1 xor x2"),
    _bitwise(Op.bitwise_and, np.bitwise_and, "&", ("bitwise_and",), "x1 & x2"),
    _bitwise(Op.bitwise_or, np.bitwise_or, "|", ("bitwise_or",), "x1 | x2"),
    _bitwise(Op.bitwise_xor, np.bitwise_xor, "^", ("bitwise_xor",), "x1 ^ x2"),
    _bitwise(Op.shift_left, np.left_shift, None, ("left_shift", "bitwise_left_shift"),
             "x1 << x2 (0 for a count outside [0, bits), as NumPy)"),
    _bitwise(Op.shift_right, np.right_shift, None, ("right_shift", "bitwise_right_shift"),
             "x1 >> x2, arithmetic (0 or -1 for a count outside [0, bits), as NumPy)"),
    binary(Op.complex, "complex_part", "float", complex_math.complex_from_parts,
           result="complex", vjp=complex_rules.complex_vjp, jvp=complex_rules.complex_jvp,
           scalar=("rule",), gaps=COMPLEX_GAPS, doc="x1 + 1j * x2 (jax.lax.complex)"),
    Primitive(Op.select, "elementwise", select_rule, np.where, 3, "select", vjp=vjp_rules.select,
              jvp=jvp_rules.select, batch=batching.elementwise, scalar=("rule",),
              numpy=("where",), doc="x1 where the condition holds, else x2"),
]
