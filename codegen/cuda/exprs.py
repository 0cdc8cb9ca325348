"""The CUDA scalar expression table: built from the records like the CPU table
(codegen/kernel/exprs.py), with the rules that differ on the GPU overridden (README: Layout).

What differs: NumPy scalar functions (`np.floor`, `np.rint`, `np.sign`) do not compile in
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
from ...ir.types import is_float
from ..kernel import exprs as kernel_exprs
from ..kernel.exprs import REDUCE_COMBINE, REDUCE_INIT, REDUCER_KIND, arg_better  # noqa: F401
from . import lowp

# math functions numba.cuda lowers to libdevice (float32 and float64): those the records name as
# their scalar form, and the two-argument ones the shared rules ask for (kernel/exprs.py: _pow,
# _atan2)
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


def _round(ctx, a, dts, dt, p):
    # x - remainder(x, 1) rounds half to even, as np.rint; remainder is exact
    return f"({a[0]} - math.remainder({a[0]}, {ctx.const(1, dt)}))"


def _sign(ctx, a, dts, dt, p):
    one, zero = ctx.const(1, dt), ctx.const(0, dt)
    if is_float(dt):   # NaN stays NaN, as np.sign
        return (f"({one} if {a[0]} > {zero} else (-{one} if {a[0]} < {zero} else "
                f"({a[0]} if {a[0]} != {a[0]} else {zero})))")
    return f"({one} if {a[0]} > {zero} else (-{one} if {a[0]} < {zero} else {zero}))"


def _convert(ctx, a, dts, dt, p):
    if lowp.involved(dts[0], dt):
        return lowp.convert(ctx, a[0], dts[0], dt)
    return kernel_exprs.EXPR[Op.convert](ctx, a, dts, dt, p)


OVERRIDES = {
    Op.convert: _convert,
    Op.floor: lambda ctx, a, dts, dt, p: f"math.floor({a[0]})",
    Op.ceil: lambda ctx, a, dts, dt, p: f"math.ceil({a[0]})",
    Op.round: _round,
    Op.sign: _sign,
}

EXPR = {**kernel_exprs.table({**kernel_exprs.RULES, **OVERRIDES}, "cuda"),
        Op.broadcast_to: kernel_exprs.EXPR[Op.broadcast_to]}


def scalar_expr(ctx, op, args, in_dtypes, out_dtype, params) -> str:
    """One element of `op` applied to operand expressions `args`, as numba.cuda source."""
    fn = EXPR.get(op)
    if fn is None:
        raise kernel_exprs.unsupported(op, "cuda")
    expr = fn(ctx, args, in_dtypes, out_dtype, params)
    if out_dtype == np.int32 and op in kernel_exprs.INT_ARITH:
        expr = f"np.int32({expr})"
    return expr
