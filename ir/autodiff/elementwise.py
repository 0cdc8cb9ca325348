"""Derivatives of elementwise ops, written once for both modes.

An elementwise op's Jacobian is diagonal, so "multiply by the derivative" is the same emission
whether `g` is a tangent (JVP) or a cotangent (VJP). Each entry returns `g * dy/dx_i` for the
input `i` it is asked about; `x` are the op's inputs, `y` its output (already computed, so
rules reuse it: exp' = exp, tanh' = 1 - tanh^2, sigmoid' = s (1 - s), all stable).

Conventions at kinks (PyTorch / HIPS autograd): abs'(0) = sign(0) = 0; elementwise max/min give
each side half the gradient at a tie (JAX, PyTorch maximum, HIPS); d/dx x**y = 0 where y = 0,
also at x = 0; d/dy x**y uses log(1) = 0 where x = 0. relu'(0) = 0 comes from relu being a
select (nn.functional.relu), not from max.
"""
from __future__ import annotations

import math

from ..ops import Op


def _unary(fn):
    return lambda e, x, y, g, i: fn(e, x[0], y, g)


def _rsqrt_1_minus_sq(e, x):
    return e(Op.rsqrt, e.sub(1.0, e(Op.square, x)))


UNARY = {
    Op.exp: lambda e, x, y, g: e.mul(g, y),
    Op.log: lambda e, x, y, g: e.div(g, x),
    Op.log1p: lambda e, x, y, g: e.div(g, e.add(x, 1.0)),
    Op.expm1: lambda e, x, y, g: e.mul(g, e.add(y, 1.0)),
    Op.sqrt: lambda e, x, y, g: e.div(g, e.mul(y, 2.0)),
    Op.rsqrt: lambda e, x, y, g: e.mul(g, e.mul(e.div(y, x), -0.5)),
    Op.sin: lambda e, x, y, g: e.mul(g, e(Op.cos, x)),
    Op.cos: lambda e, x, y, g: e.neg(e.mul(g, e(Op.sin, x))),
    Op.tan: lambda e, x, y, g: e.mul(g, e.add(e(Op.square, y), 1.0)),
    Op.tanh: lambda e, x, y, g: e.mul(g, e.sub(1.0, e(Op.square, y))),
    Op.asin: lambda e, x, y, g: e.mul(g, _rsqrt_1_minus_sq(e, x)),
    Op.acos: lambda e, x, y, g: e.neg(e.mul(g, _rsqrt_1_minus_sq(e, x))),
    Op.atan: lambda e, x, y, g: e.div(g, e.add(e(Op.square, x), 1.0)),
    Op.sinh: lambda e, x, y, g: e.mul(g, e(Op.cosh, x)),
    Op.cosh: lambda e, x, y, g: e.mul(g, e(Op.sinh, x)),
    Op.asinh: lambda e, x, y, g: e.mul(g, e(Op.rsqrt, e.add(e(Op.square, x), 1.0))),
    Op.acosh: lambda e, x, y, g: e.mul(g, e(Op.rsqrt, e.mul(e.sub(x, 1.0), e.add(x, 1.0)))),
    Op.atanh: lambda e, x, y, g: e.div(g, e.sub(1.0, e(Op.square, x))),
    Op.erf: lambda e, x, y, g: e.mul(g, e.mul(e(Op.exp, e.neg(e(Op.square, x))),
                                              2.0 / math.sqrt(math.pi))),
    Op.sigmoid: lambda e, x, y, g: e.mul(g, e.mul(y, e.sub(1.0, y))),
    Op.neg: lambda e, x, y, g: e.neg(g),
    Op.abs: lambda e, x, y, g: e.mul(g, e(Op.sign, x)),
    Op.square: lambda e, x, y, g: e.mul(g, e.mul(x, 2.0)),
}


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


BINARY = {
    Op.add: lambda e, x, y, g, i: g,
    Op.sub: lambda e, x, y, g, i: g if i == 0 else e.neg(g),
    Op.mul: lambda e, x, y, g, i: e.mul(g, x[1 - i]),
    Op.div: _div, Op.pow: _pow, Op.max: _max, Op.min: _min, Op.atan2: _atan2, Op.mod: _mod,
}

# op -> fn(e, inputs, output, g, i) = g * d output / d inputs[i]
LINEARIZED = {**{op: _unary(fn) for op, fn in UNARY.items()}, **BINARY}
