"""The per-op scalar rules, written once for every target against the `ops` protocol
(codegen/kernel/ops_protocol.py): `RULES[op](o, args, in_dtypes, out_dtype) -> value` computes one
element of `op`'s output from its operands' values with handler `o`'s basic operations.
Each target renders them with its handler (CPU: codegen/cpu/llvm_exprs.py, LLVM IR; CUDA:
codegen/cuda/exprs.py, numba.cuda source) and keeps an entry of its own only where it has a
better instruction (each says why).

Semantics are NumPy's: NaN-propagating maximum/minimum, `!=` true for NaN, sign(+-0) = +0 and
sign(NaN) = NaN, rint half to even, integer // and % by 0 giving 0 and x // -1 = -x (the minimum
wraps), shifts by a count outside [0, bits) giving 0 (or -1 shifting a negative right), integer
arithmetic wrapping in the output's width. The edges are selects over computed values, so loops
stay branch-free and vectorize.
"""
from __future__ import annotations

import numpy as np

from ...ir.errors import UnsupportedOpError
from ...ir.ops import Op
from ...ir.primitives import RECORDS

BOOL = np.dtype(bool)


def _binary(name):
    return lambda o, a, dts, dt: o.binary(name, a[0], a[1], dt)


def _compare(pred):
    return lambda o, a, dts, dt: o.compare(pred, a[0], a[1], dts[0])


def _math(name):
    return lambda o, a, dts, dt: o.math(name, dt, *a)


def _unary(name):
    return lambda o, a, dts, dt: o.unary(name, a[0], dt)


def _abs(o, a, dts, dt):
    x = a[0]
    if dt.kind == "f":
        return o.unary("fabs", x, dt)
    if dt.kind in "ub":
        return x
    return o.select(o.compare("<", x, o.const(0, dt), dt), o.unary("neg", x, dt), x)


def _sign(o, a, dts, dt):
    x, zero = a[0], o.const(0, dt)
    rest = o.select(o.compare("!=", x, x, dt), x, zero) if dt.kind == "f" else zero   # NaN stays
    pos = o.select(o.compare(">", x, zero, dt), o.const(1, dt), rest)
    if dt.kind == "u":
        return pos
    return o.select(o.compare("<", x, zero, dt), o.const(-1, dt), pos)


def _rsqrt(o, a, dts, dt):
    return o.binary("div", o.const(1, dt), o.math("sqrt", dt, a[0]), dt)


def _sigmoid(o, a, dts, dt):
    """The target's sigmoid, else 1 / (1 + exp(-x))."""
    if o.has_math("sigmoid", dt):
        return o.math("sigmoid", dt, a[0])
    one = o.const(1, dt)
    return o.binary("div", one, o.binary("add", one, o.math("exp", dt, o.unary("neg", a[0], dt)),
                                         dt), dt)


def _isnan(o, a, dts, dt):
    return o.compare("!=", a[0], a[0], dts[0]) if dts[0].kind == "f" else o.const(False, BOOL)


def _isinf(o, a, dts, dt):
    if dts[0].kind != "f":
        return o.const(False, BOOL)
    return o.compare("==", o.unary("fabs", a[0], dts[0]), o.const(np.inf, dts[0]), dts[0])


def _signbit(o, a, dts, dt):
    """The sign bit itself, so -0.0 and -nan count as negative (NumPy's signbit)."""
    src = dts[0]
    return o.compare("<", o.binary("copysign", o.const(1, src), a[0], src), o.const(0, src), src)


def _not(o, a, dts, dt):
    return o.unary("not" if dt.kind == "b" else "invert", a[0], dt)


def _shift(name):
    """NumPy's shifts: a count outside [0, bits) gives 0 (or -1 shifting a negative right), where
    C and LLVM leave it undefined; the count is clamped to a defined one and the edge selected."""
    def rule(o, a, dts, dt):
        x, n = a
        bits, zero = dt.itemsize * 8, o.const(0, dt)
        ok = o.binary("and", o.compare(">=", n, zero, dt), o.compare("<", n, o.const(bits, dt), dt),
                      BOOL)
        beyond = o.binary("shr", x, o.const(bits - 1, dt), dt) \
            if name == "shr" and dt.kind == "i" else zero           # 0 or -1, by x's sign
        return o.select(ok, o.binary(name, x, o.select(ok, n, zero), dt), beyond)
    return rule


def _division(name, by_minus_one):
    """NumPy's integer // and %: by 0 gives 0; x // -1 is -x (so min // -1 wraps to min) and
    x % -1 is 0, where a hardware division of the minimum by -1 overflows. The division itself
    only ever sees another divisor. Floats: the target's floordiv / mod (NumPy's)."""
    def rule(o, a, dts, dt):
        x, y = a
        if dt.kind == "f":
            return o.binary(name, x, y, dt)
        zero, one = o.const(0, dt), o.const(1, dt)
        by0 = o.compare("==", y, zero, dt)
        if dt.kind == "u":                                 # no -1 to divide by
            return o.select(by0, zero, o.binary(name, x, o.select(by0, one, y), dt))
        by_m1 = o.compare("==", y, o.const(-1, dt), dt)
        safe = o.select(o.binary("or", by0, by_m1, BOOL), one, y)
        return o.select(by0, zero, o.select(by_m1, by_minus_one(o, x, dt),
                                            o.binary(name, x, safe, dt)))
    return rule


def _pow(o, a, dts, dt):
    """Floats: the target's power function. Integers: wrapping x**e; a negative exponent (which
    jnp.power refuses before a kernel: ir.errors.negative_power) gives 1 // x**-e, that is 1 for
    x == 1, +-1 for x == -1 by e's parity, else 0."""
    x, e = a
    if dt.kind in "fu":
        return o.binary("pow", x, e, dt)
    zero, one, minus1 = o.const(0, dt), o.const(1, dt), o.const(-1, dt)
    negative = o.compare("<", e, zero, dt)
    odd = o.compare("!=", o.binary("and", e, one, dt), zero, dt)
    of_minus1 = o.select(odd, minus1, one)
    inverse = o.select(o.compare("==", x, one, dt), one,
                       o.select(o.compare("==", x, minus1, dt), of_minus1, zero))
    return o.select(negative, inverse, o.binary("pow", x, o.select(negative, zero, e), dt))


def _extremum(pred):
    """NumPy's maximum/minimum: NaN wins for floats."""
    def rule(o, a, dts, dt):
        x, y = a
        take = o.compare(pred, x, y, dt)
        if dt.kind == "f":
            take = o.binary("or", take, o.compare("!=", x, x, dt), BOOL)
        return o.select(take, x, y)
    return rule


def identity(o, a, dts, dt):
    """x itself (stop_gradient; broadcast_to, whose operands are indexed in the kernel's space)."""
    return a[0]


# the ops whose record says scalar=("rule",), and the integer edges of the records' infix // and %
RULES = {
    Op.rsqrt: _rsqrt, Op.sigmoid: _sigmoid,
    Op.floor: _unary("floor"), Op.ceil: _unary("ceil"), Op.round: _unary("rint"),
    Op.neg: _unary("neg"), Op.abs: _abs, Op.sign: _sign,
    Op.square: lambda o, a, dts, dt: o.binary("mul", a[0], a[0], dt),
    Op.isnan: _isnan, Op.isinf: _isinf, Op.signbit: _signbit,
    Op.logical_not: _unary("not"), Op.bitwise_not: _not,
    Op.shift_left: _shift("shl"), Op.shift_right: _shift("shr"),
    Op.convert: lambda o, a, dts, dt: o.convert(a[0], dts[0], dt),
    Op.stop_gradient: identity,
    Op.floor_div: _division("floordiv", lambda o, x, dt: o.unary("neg", x, dt)),
    Op.mod: _division("mod", lambda o, x, dt: o.const(0, dt)),
    Op.pow: _pow, Op.max: _extremum(">"), Op.min: _extremum("<"),
    Op.atan2: lambda o, a, dts, dt: o.math("atan2", dt, *a),
    Op.select: lambda o, a, dts, dt: o.select(*a),
}
# the basic op of each infix symbol the records name
_INFIX = {"+": "add", "-": "sub", "*": "mul", "/": "div", "&": "and", "|": "or", "^": "xor"}
_COMPARE = frozenset({"==", "!=", "<", "<=", ">", ">="})


def _form(r):
    """The rule of a record's scalar form: ("math", name) or ("infix", symbol)."""
    form, name = r.scalar
    if form == "math":
        return _math(name)
    return _compare(name) if name in _COMPARE else _binary(_INFIX[name])


def table(backend) -> dict:
    """op -> rule, for every record with a scalar form `backend` covers (a record whose gaps
    name the backend is left out: its kernels take the documented other path)."""
    return {op: RULES[op] if op in RULES else _form(r) for op, r in RECORDS.items()
            if r.scalar and backend not in r.gaps and (op in RULES or r.scalar[0] != "rule")}


def unsupported(op, backend) -> UnsupportedOpError:
    """The error for an op this backend's table leaves out (its record's gap says why)."""
    r = RECORDS.get(op)
    why = r.gaps.get(backend) if r else None
    return UnsupportedOpError(op, backend, why or "it has no scalar expression")

