"""Writes jitgrad/numpy/ufuncs.py: one `def` per primitive record that has a jitgrad.numpy
wrapper (`numpy_kind`), named as its record says, with a docstring naming its NumPy counterpart
and how it differs. Run `python -m jitgrad.numpy._generate` after adding or changing a record;
tests/numpy/test_jnp_generated.py fails while the checked-in file is stale."""
from __future__ import annotations

import pathlib
import sys

from ..ir.primitives import RECORDS

TARGET = pathlib.Path(__file__).with_name("ufuncs.py")

# numpy_kind -> (parameters, the call of ufunc_rules, what differs from NumPy)
KINDS = {
    "float_unary": ("x, /", "float_unary(Op.{op}, x)",
                    "Integer and bool inputs compute in the default float dtype (float32; float64 "
                    "with enable_x64), where NumPy gives float64."),
    "numeric_unary": ("x, /", "numeric_unary(Op.{op}, x)",
                      "Keeps integer dtypes. Bools as NumPy: abs returns them, square computes in "
                      "int32 (NumPy: int8), negative and sign raise TypeError."),
    "rounding": ("x, /", "rounding(Op.{op}, x)",
                 "Integer inputs are returned as they are, as NumPy; a complex input rounds its "
                 "real and imaginary parts."),
    "binary": ("x1, x2, /", "binary(Op.{op}, x1, x2)",
               "JAX's promotion of the two operands (Python scalars are weak, as in JAX). Bool "
               "add/multiply/maximum/minimum are logical, other bool arithmetic computes in int32 "
               "(NumPy: int8), bool subtract raises TypeError; an integer to a negative integer "
               "power raises ValueError on every path, as NumPy."),
    "compare": ("x1, x2, /", "compare(Op.{op}, x1, x2)",
                "JAX's promotion of the two operands; the result is bool."),
    "logical": ("x1, x2, /", "logical(Op.{op}, x1, x2)",
                "Both operands are taken as bools; the result is bool."),
    "integer_binary": ("x1, x2, /", "integer_binary(Op.{op}, {name!r}, x1, x2)",
                       "Integer and bool inputs only (floats raise TypeError, as NumPy); on bools "
                       "and/or/xor are logical, shifts compute in int32 (NumPy: int8)."),
}

HEADER = '''"""jitgrad.numpy's functions of one primitive each, generated from the primitives' records
(ir/primitives/) by `python -m jitgrad.numpy._generate`. Do not edit: change the record (its
`numpy`, `numpy_kind` and `doc`) or the rules in jitgrad/numpy/ufunc_rules.py, and regenerate."""
from __future__ import annotations

from ..ir.ops import Op
from ._out import accepts_out
from .ufunc_rules import (binary, binary_function, compare, compare_function, float_unary,
                          float_unary_function, integer_binary, logical, numeric_unary,
                          numeric_unary_function, rounding, rounding_function)
'''
# the decorator of each kind's functions: the one-array functions are one flat frame on a
# tensor whose signature ran before (ufunc_rules._flat_unary), arithmetic and comparisons one
# frame around the operators' direct call (ufunc_rules._flat_binary); the others take out= only
DECORATORS = {"float_unary": "@float_unary_function(Op.{op})",
              "numeric_unary": "@numeric_unary_function(Op.{op})",
              "rounding": "@rounding_function(Op.{op})",
              "binary": "@binary_function(Op.{op})",
              "compare": "@compare_function(Op.{op})"}


def _def(r) -> str:
    name, aliases = r.numpy[0], r.numpy[1:]
    params, call, differs = KINDS[r.numpy_kind]
    also = f" (also {', '.join('jnp.' + a for a in aliases)})" if aliases else ""
    first = r.doc if r.doc.startswith(("x", "e ")) else r.doc[0].upper() + r.doc[1:]
    doc = f"{first}, elementwise: numpy.{name}{also}."
    decorator = DECORATORS.get(r.numpy_kind, "@accepts_out").format(op=r.op.name)
    lines = ["", "", decorator, f"def {name}({params}):", f'    """{doc}', ""]
    words, line = differs.split(), "   "
    for w in words:
        if len(line) + len(w) + 1 > 96:
            lines.append(line)
            line = "   "
        line += " " + w
    lines += [line, '    """', f"    return {call.format(op=r.op.name, name=name)}"]
    lines += ["", ""] + [f"{alias} = {name}" for alias in aliases] if aliases else []
    return "\n".join(line.rstrip() if line.strip() else "" for line in lines)


def source() -> str:
    records = sorted((r for r in RECORDS.values() if r.numpy_kind),
                     key=lambda r: (list(KINDS).index(r.numpy_kind), r.numpy[0]))
    names = sorted(n for r in records for n in r.numpy)
    listed = "\n".join(f'    "{n}",' for n in names)
    return HEADER + "".join(_def(r) + "\n" for r in records) + f"\n\n__all__ = [\n{listed}\n]\n"


def main() -> int:
    TARGET.write_text(source())
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
