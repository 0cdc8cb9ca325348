"""The basic operations a target renders kernel bodies with: the `ops` protocol that the shared
scalar rules (codegen/kernel/exprs.py) and reducers (codegen/kernel/reducers.py) are written
against, once for every target.

A handler implements them for one target: LLVM IR builder calls for the CPU
(codegen/cpu/llvm_exprs.LlvmOps), numba.cuda source text for CUDA (codegen/cuda/exprs.CudaOps).
Values are whatever the handler uses (llvmlite values, source strings); dtypes are NumPy dtypes.

Every operand of a binary op has the op's dtype. What each name means, for every target:
- binary: add, sub, mul, div (floats), and, or, xor (ints and bools), shl, shr (a count in
  [0, bits); shr is arithmetic for signed ints, logical for unsigned), copysign (floats),
  floordiv, mod (NumPy's floor_divide / remainder for floats; for ints the floor quotient and
  the divisor-signed remainder, the divisor never 0 nor, for signed ints, -1), pow (floats: the
  target's power function; ints: wrapping, the exponent never negative);
- unary: neg, not (bools), invert (ints: all bits flipped), floor, ceil, rint (half to
  even), fabs (floats);
- compare(pred, x, y, dtype): pred one of == != < <= > >=, NumPy's meaning (a NaN operand makes
  != true and the others false);
- select(c, x, y), const(value, dtype), convert(x, src, dst) (NumPy's astype);
- math(name, dtype, *xs): the target's math function `name`; has_math(name, dtype) says
  whether it has one (rules decompose what it lacks).
"""
from __future__ import annotations

from typing import Protocol

BINARY = ("add", "sub", "mul", "div", "and", "or", "xor", "shl", "shr", "copysign", "floordiv",
          "mod", "pow")
UNARY = ("neg", "not", "invert", "floor", "ceil", "rint", "fabs")
COMPARE = ("==", "!=", "<", "<=", ">", ">=")


class Ops(Protocol):
    """What a target's handler provides (the module docstring says what each name means)."""

    def const(self, value, dtype): ...

    def binary(self, name, x, y, dtype): ...

    def unary(self, name, x, dtype): ...

    def compare(self, pred, x, y, dtype): ...

    def select(self, c, x, y): ...

    def convert(self, x, src, dst): ...

    def math(self, name, dtype, *xs): ...

    def has_math(self, name, dtype) -> bool: ...
