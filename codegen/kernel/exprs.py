"""The per-op scalar expression table in numba's Python syntax (README: Layout): the rules
codegen/cuda/exprs.py builds the CUDA table from (with the GPU's overrides), and the reducers
(REDUCE_INIT, REDUCE_COMBINE; REDUCER_KIND, which the LLVM kernels read too). CPU kernels are
LLVM units (codegen/cpu/llvm_exprs.py); no CPU code is generated from this table.

`EXPR[op](ctx, args, in_dtypes, out_dtype, params) -> str` gives the expression computing one
element of `op`'s output from its operands' expressions. `ctx` names typed constants
(`ctx.const(1.0, float32)` -> a module-level `np.float32(1.0)`: a bare Python float would promote
float32 arithmetic to float64) and math functions (`ctx.math("exp", float32)`: the backend's).

Kernels are compiled with numba's numpy error model, so `/`, `//` and `%` follow NumPy (inf, nan,
0 for integer division by zero) and carry no raise branch that would stop vectorization.
Conditionals are written as `a if c else b` over computed values, which LLVM turns into selects.
"""
from __future__ import annotations

import numpy as np

from ...ir.errors import UnsupportedOpError
from ...ir.ops import Op
from ...ir.primitives import RECORDS
from ...ir.types import is_bool, is_float

# Ops whose scalar expression is computed with numba's int64 promotion and must be wrapped
# back to int32 so that overflow wraps as NumPy's int32 arithmetic does.
INT_ARITH = frozenset({Op.add, Op.sub, Op.mul, Op.floor_div, Op.mod, Op.pow, Op.neg, Op.abs,
                        Op.square, Op.sign, Op.max, Op.min, Op.shift_left, Op.shift_right,
                        Op.bitwise_not, Op.bitwise_and, Op.bitwise_or, Op.bitwise_xor})

def _math_unary(name):
    return lambda ctx, a, dts, dt, p: f"{ctx.math(name, dt)}({a[0]})"


def _infix(sym):
    return lambda ctx, a, dts, dt, p: f"({a[0]} {sym} {a[1]})"


def _sigmoid(ctx, a, dts, dt, p):
    fn = ctx.math("sigmoid", dt, required=False)
    if fn:
        return f"{fn}({a[0]})"
    one = ctx.const(1, dt)
    return f"({one} / ({one} + {ctx.math('exp', dt)}(-{a[0]})))"


def _rsqrt(ctx, a, dts, dt, p):
    return f"({ctx.const(1, dt)} / math.sqrt({a[0]}))"


def _extremum(cmp, fn):
    """NumPy's maximum/minimum: NaN wins (a float select), plain max/min for ints and bools."""
    def expr(ctx, a, dts, dt, p):
        if is_float(dt):
            return f"({a[0]} if ({a[0]} {cmp} {a[1]} or {a[0]} != {a[0]}) else {a[1]})"
        return f"{fn}({a[0]}, {a[1]})"
    return expr


def _sign(ctx, a, dts, dt, p):
    if is_float(dt):
        return f"np.sign({a[0]})"
    return f"(({a[0]} > 0) - ({a[0]} < 0))"


def _pow(ctx, a, dts, dt, p):
    fn = ctx.math("pow", dt, required=False) if is_float(dt) else None
    return f"{fn}({a[0]}, {a[1]})" if fn else f"({a[0]} ** {a[1]})"


def _atan2(ctx, a, dts, dt, p):
    fn = ctx.math("atan2", dt, required=False)
    return f"{fn or 'math.atan2'}({a[0]}, {a[1]})"


def _isnan(ctx, a, dts, dt, p):
    return f"({a[0]} != {a[0]})" if is_float(dts[0]) else "False"


def _isinf(ctx, a, dts, dt, p):
    return f"(abs({a[0]}) == {ctx.const(np.inf, dts[0])})" if is_float(dts[0]) else "False"


def _convert(ctx, a, dts, dt, p):
    if dt == dts[0]:
        return a[0]
    if is_bool(dt):
        return f"({a[0]} != 0)"
    return f"np.{dt.name}({a[0]})"


def _signbit(ctx, a, dts, dt, p):
    """The sign bit itself, so -0.0 and -nan count as negative (NumPy's signbit)."""
    return f"(math.copysign({ctx.const(1, dts[0])}, {a[0]}) < {ctx.const(0, dts[0])})"


def _shift(sym, beyond):
    """NumPy's shifts: a count outside [0, bits) gives 0 (or -1 shifting a negative right),
    where C and LLVM leave it undefined; the clamped count keeps the shift itself defined."""
    def expr(ctx, a, dts, dt, p):
        bits = ctx.const(dt.itemsize * 8, dt)
        zero = ctx.const(0, dt)
        out = beyond(a[0], zero, ctx.const(-1 if dt.kind == "i" else 0, dt))    # uint: no -1
        top = ctx.const(dt.itemsize * 8 - 1, dt)      # typed: uint64 - 1 would be a float
        return (f"(({a[0]} {sym} min(max({a[1]}, {zero}), {top})) "
                f"if ({a[1]} >= {zero} and {a[1]} < {bits}) else {out})")
    return expr


def _identity(ctx, a, dts, dt, p):
    return a[0]


def _int_division(sym, by_minus_one):
    """NumPy's integer // and %: by 0 gives 0; x // -1 is -x (so min // -1 wraps to min, as
    NumPy gives) and x % -1 is 0, where a hardware division of the minimum by -1 overflows
    (LLVM leaves it undefined). Written out, not left to an error model (numba.cuda's may
    differ from the CPU's numpy one). Floats: the infix."""
    def expr(ctx, a, dts, dt, p):
        if is_float(dt):
            return f"({a[0]} {sym} {a[1]})"
        zero = ctx.const(0, dt)
        if dt.kind == "u":       # no -1 to divide by
            return f"({zero} if {a[1]} == {zero} else ({a[0]} {sym} {a[1]}))"
        return (f"({zero} if {a[1]} == {zero} else ({by_minus_one(a[0], zero)} if "
                f"{a[1]} == {ctx.const(-1, dt)} else ({a[0]} {sym} {a[1]})))")
    return expr


# the ops whose record says scalar=("rule",): computed by a rule of this backend
RULES = {
    Op.rsqrt: _rsqrt,
    Op.sigmoid: _sigmoid,
    Op.floor: lambda ctx, a, dts, dt, p: f"np.floor({a[0]})",
    Op.ceil: lambda ctx, a, dts, dt, p: f"np.ceil({a[0]})",
    Op.round: lambda ctx, a, dts, dt, p: f"np.rint({a[0]})",   # half to even, as NumPy
    Op.neg: lambda ctx, a, dts, dt, p: f"(-{a[0]})",
    Op.abs: lambda ctx, a, dts, dt, p: f"abs({a[0]})",
    Op.sign: _sign,
    Op.square: lambda ctx, a, dts, dt, p: f"({a[0]} * {a[0]})",
    Op.isnan: _isnan,
    Op.isinf: _isinf,
    Op.logical_not: lambda ctx, a, dts, dt, p: f"(not {a[0]})",
    Op.signbit: _signbit,
    Op.bitwise_not: lambda ctx, a, dts, dt, p: f"(~{a[0]})",
    Op.shift_left: _shift("<<", lambda x, zero, minus1: zero),
    Op.shift_right: _shift(">>", lambda x, zero, minus1: f"({minus1} if {x} < {zero} else {zero})"),
    Op.convert: _convert,
    Op.stop_gradient: _identity,
    # integer edges over the records' infix forms (the table prefers a rule of this backend)
    Op.floor_div: _int_division("//", lambda x, zero: f"(-{x})"),
    Op.mod: _int_division("%", lambda x, zero: zero),
    Op.pow: _pow,
    Op.max: _extremum(">", "max"), Op.min: _extremum("<", "min"),
    Op.atan2: _atan2,
    Op.select: lambda ctx, a, dts, dt, p: f"({a[1]} if {a[0]} else {a[2]})",
}
# how a record's scalar form becomes an expression
FORMS = {"math": lambda r: _math_unary(r.scalar[1]), "infix": lambda r: _infix(r.scalar[1])}


def table(rules, backend) -> dict:
    """op -> expression rule, for every record with a scalar form this backend covers (a record
    whose gaps name the backend is left out: its kernels take the documented other path)."""
    return {op: rules[op] if op in rules else FORMS[r.scalar[0]](r)
            for op, r in RECORDS.items() if r.scalar and backend not in r.gaps}


EXPR = {**table(RULES, "numba"),
        Op.broadcast_to: _identity}    # operands are indexed in the kernel's iteration space


def unsupported(op, backend) -> UnsupportedOpError:
    """The error for an op this backend's table leaves out (its record's gap says why)."""
    r = RECORDS.get(op)
    why = r.gaps.get(backend) if r else None
    return UnsupportedOpError(op, backend, why or "it has no scalar expression")


def scalar_expr(ctx, op, args, in_dtypes, out_dtype, params) -> str:
    """One element of `op` applied to operand expressions `args`."""
    fn = EXPR.get(op)
    if fn is None:
        raise unsupported(op, "numba")
    expr = fn(ctx, args, in_dtypes, out_dtype, params)
    if out_dtype == np.int32 and op in INT_ARITH:
        expr = f"np.int32({expr})"
    return expr


# ----------------------------------------------------------------------------- reductions

def _init(kind):
    def init(ctx, dt):
        if kind == "sum":
            return ctx.const(0, dt)
        if kind == "prod":
            return ctx.const(1, dt)
        if is_bool(dt):
            return "False" if kind == "max" else "True"
        if is_float(dt):
            return ctx.const(-np.inf if kind == "max" else np.inf, dt)
        info = np.iinfo(dt)
        return ctx.const(info.min if kind == "max" else info.max, dt)
    return init


def _combine(kind):
    """acc, v -> new acc (NaN-propagating extrema for floats, as NumPy's max/min)."""
    def combine(acc, v, dt):
        if kind == "sum":
            return f"{acc} + {v}"
        if kind == "prod":
            return f"{acc} * {v}"
        if is_bool(dt):
            return f"{acc} | {v}" if kind == "max" else f"{acc} & {v}"
        cmp = ">" if kind == "max" else "<"
        if is_float(dt):
            return f"{v} if ({v} {cmp} {acc} or {v} != {v}) else {acc}"
        return f"{kind}({acc}, {v})"
    return combine


# reduce op -> (kind, tracks the index of the winner)
REDUCER_KIND = {Op.reduce_sum: ("sum", False), Op.reduce_prod: ("prod", False),
                Op.reduce_max: ("max", False), Op.reduce_min: ("min", False),
                Op.argmax: ("max", True), Op.argmin: ("min", True)}
REDUCE_INIT = {k: _init(k) for k in ("sum", "prod", "max", "min")}
REDUCE_COMBINE = {k: _combine(k) for k in ("sum", "prod", "max", "min")}


def arg_better(v, best, kind, dt) -> str:
    """Condition under which element v replaces the current winner of argmax/argmin: strictly
    better, or the first NaN (NumPy returns the index of the first NaN)."""
    cmp = ">" if kind == "max" else "<"
    if is_float(dt):
        return f"{v} {cmp} {best} or ({v} != {v} and {best} == {best})"
    return f"{v} {cmp} {best}"
