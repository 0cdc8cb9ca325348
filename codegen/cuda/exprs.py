"""CUDA's handler of the ops protocol (CudaOps: codegen/kernel/ops_protocol.py) and its scalar expression
table, rendered from the shared rules (codegen/kernel/exprs.py) as numba.cuda source.

What differs from the CPU's basic ops: NumPy scalar functions (`np.floor`, `np.rint`, `np.sign`) do not compile in
numba.cuda kernels (measured: KeyError <ufunc 'floor'>), and every math function is libdevice's
`math.*` (mathlib's vectorizable CPU polynomials are CPU intrinsics and would be device-function
calls, which compile_ptx cannot build without a GPU).
"""
from __future__ import annotations

import math

import numpy as np

from ...ir.errors import UnsupportedOpError
from ...ir.ops import Op
from ...ir.primitives import RECORDS
from ...ir.types import is_bool, is_float
from ..kernel import check
from ..kernel import exprs as kernel_exprs
from ..kernel import reducers
from ..kernel.reducers import REDUCER_KIND  # noqa: F401  (read by the CUDA generators)
from . import lowp
from .source import NUMBA_TYPE

# math functions numba.cuda lowers to libdevice (float32 and float64): those the records name as
# their scalar form, and the two-argument ones the shared rules ask for (pow, atan2)
LIBDEVICE_MATH = frozenset({r.scalar[1] for r in RECORDS.values() if r.scalar[:1] == ("math",)}
                           | {"pow", "atan2"})


class ExprContext:
    """What the expression table asks of the kernel being generated: typed module-level
    constants (a bare Python float would promote float32 math to float64) and math functions."""

    def __init__(self):
        self.constants: dict[str, str] = {}      # name -> source of its value

    def const(self, value, dtype) -> str:
        dtype = np.dtype(dtype)
        value = value.item() if isinstance(value, np.generic) else value
        if dtype.kind == "b":
            return "True" if value else "False"
        if dtype in lowp.HALF:      # a float16 / bfloat16 value is its 16-bit word
            text = f"np.uint16({lowp.half_bits(value, dtype)})"
        elif dtype.kind == "f" and not math.isfinite(value):
            text = f"np.{dtype.name}({'-' if value < 0 else ''}np.inf)" if math.isinf(value) \
                else f"np.{dtype.name}(np.nan)"
        else:
            text = f"np.{dtype.name}({value!r})"
        for name, src in self.constants.items():
            if src == text:
                return name
        name = f"C{len(self.constants)}"
        self.constants[name] = text
        return name

    def math(self, name, dtype, required=True):
        if name in LIBDEVICE_MATH:
            return f"math.{name}"
        if required:
            raise UnsupportedOpError(name, "cuda", f"libdevice has no {name} for {dtype}")
        return None

    def prologue(self) -> list[str]:
        """Module-level lines defining the constants used so far."""
        return [f"{name} = {src}" for name, src in self.constants.items()]


_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/", "and": "&", "or": "|", "xor": "^",
          "shl": "<<", "shr": ">>", "floordiv": "//", "mod": "%"}
_UNARY = {"neg": "(-{x})", "not": "(not {x})", "invert": "(~{x})", "fabs": "abs({x})",
          # np.floor/np.rint do not compile in numba.cuda kernels
          "floor": "math.floor({x})", "ceil": "math.ceil({x})",
          # x - remainder(x, 1) rounds half to even, as np.rint (remainder is exact); the
          # copysign keeps x's sign on a zero result (np.rint(-0.4) is -0.0)
          "rint": "math.copysign({x} - math.remainder({x}, {one}), {x})"}


class CudaOps:
    """CUDA's handler of the ops protocol (codegen/kernel/ops_protocol.py): numba.cuda source text, each
    value an expression; constants are ExprContext's typed module-level names."""

    def __init__(self, ctx):
        self.ctx = ctx

    def const(self, value, dtype):
        return self.ctx.const(value, dtype)

    def binary(self, name, x, y, dtype):
        if name == "copysign":
            return f"math.copysign({x}, {y})"
        if name == "pow":       # floats: libdevice's pow; ints: numba's (e >= 0 here)
            return self.math("pow", dtype, x, y) if is_float(dtype) else f"({x} ** {y})"
        return f"({x} {_INFIX[name]} {y})"

    def unary(self, name, x, dtype):
        one = self.ctx.const(1, dtype) if name == "rint" else ""
        return _UNARY[name].format(x=x, one=one)

    def compare(self, pred, x, y, dtype):
        return f"({x} {pred} {y})"

    def select(self, c, x, y):
        return f"({x} if {c} else {y})"

    def convert(self, x, src, dst):
        if lowp.involved(src, dst):
            return lowp.convert(self.ctx, x, src, dst)
        if dst == src:
            return x
        return f"({x} != 0)" if is_bool(dst) else f"np.{dst.name}({x})"

    def math(self, name, dtype, *xs):
        return f"{self.ctx.math(name, dtype)}({', '.join(xs)})"

    def has_math(self, name, dtype) -> bool:
        return self.ctx.math(name, dtype, required=False) is not None


def _rendered(rule):
    """A shared rule (codegen/kernel/exprs.py) as an EXPR entry: rule(ctx, args, dts, dt, p)."""
    def expr(ctx, a, dts, dt, p):
        return rule(CudaOps(ctx), a, [np.dtype(d) for d in dts], np.dtype(dt))
    return expr


RULES = {**kernel_exprs.table("cuda"), Op.broadcast_to: kernel_exprs.identity}
EXPR = {op: _rendered(rule) for op, rule in RULES.items()}
# the checking handler (codegen/kernel/check.py) of CudaOps: the dtype kinds each basic op
# computes with NumPy's meaning (f float, i signed, u unsigned, b bool); float16 / bfloat16 are
# 16-bit words that only convert (widen_lowp leaves them nothing else), math is libdevice's
CHECK = check.CheckOps(
    kinds={"add": "iuf", "sub": "iuf", "mul": "iuf", "div": "f", "and": "iub", "or": "iub",
           "xor": "iub", "shl": "iu", "shr": "iu", "copysign": "f", "floordiv": "iuf",
           "mod": "iuf", "pow": "iu", "neg": "iuf", "not": "b", "invert": "iu", "floor": "f",
           "ceil": "f", "rint": "f", "fabs": "f", "compare": "iubf"},
    dtypes={d.name for d in NUMBA_TYPE} - {d.name for d in lowp.HALF},
    stored={d.name for d in NUMBA_TYPE},
    has_math=lambda name, dt: np.dtype(dt).kind == "f" and name in LIBDEVICE_MATH)
# ops whose int32 result numba computes in int64 (its promotion), wrapped back to int32 so that
# overflow wraps as NumPy's int32 arithmetic does
INT_ARITH = frozenset({Op.add, Op.sub, Op.mul, Op.floor_div, Op.mod, Op.pow, Op.neg, Op.abs,
                       Op.square, Op.sign, Op.max, Op.min, Op.shift_left, Op.shift_right,
                       Op.bitwise_not, Op.bitwise_and, Op.bitwise_or, Op.bitwise_xor})


def scalar_expr(ctx, op, args, in_dtypes, out_dtype, params) -> str:
    """One element of `op` applied to operand expressions `args`, as numba.cuda source."""
    fn = EXPR.get(op)
    if fn is None:
        raise kernel_exprs.unsupported(op, "cuda")
    expr = fn(ctx, args, in_dtypes, out_dtype, params)
    if out_dtype == np.int32 and op in INT_ARITH:
        expr = f"np.int32({expr})"     # numba computes int32 arithmetic in int64
    return expr


# ----------------------------------------------------------------------------- reductions
# the shared reducer semantics (codegen/kernel/reducers.py) as source text; combining needs no
# constant, so no ExprContext

def _reduce_init(kind):
    return lambda ctx, dt: reducers.identity(CudaOps(ctx), kind, dt)


def _reduce_combine(kind):
    return lambda acc, v, dt: reducers.combine(CudaOps(None), kind, acc, v, dt)


KINDS = ("sum", "prod", "max", "min")
REDUCE_INIT = {k: _reduce_init(k) for k in KINDS}          # [kind](ctx, dtype)
REDUCE_COMBINE = {k: _reduce_combine(k) for k in KINDS}    # [kind](acc, v, dtype)


def arg_better(v, best, kind, dt) -> str:
    """Whether element v replaces argmax/argmin's winner: strictly better, or the first NaN."""
    return reducers.better(CudaOps(None), kind, v, best, dt)


def arg_tie(x, y, dt) -> str:
    """Whether two winners are equal (both NaN counts), so the smaller index wins."""
    return reducers.tie(CudaOps(None), x, y, dt)
