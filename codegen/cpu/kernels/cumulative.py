"""cumsum as an LLVM opaque kernel: out[p, i, q] = out[p, i - 1, q] + x[p, i, q] over the
(before, axis, after) view of its input, in NumPy's order (one add after another along the axis,
so float results are NumPy's bits; integers wrap in their width). The q loop is innermost:
contiguous rows, which LLVM vectorizes.

`OPAQUE[op](fn, node, input pointers, output pointer)`: the entries opaque.OPAQUE takes.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir

from ....ir.ops import Op
from .. import llvm_complex
from ..llvm_exprs import I64


def pnq(shape, axis):
    """(before, along, after) extents of an axis."""
    return math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])


# how an element is added on, by dtype kind (integers: add, wrapping)
ADD = {"f": lambda b, x, y: b.fadd(x, y), "b": lambda b, x, y: b.or_(x, y),
       "c": llvm_complex.add}


def adder(b, dt):
    """add(x, y) of dtype dt in the function b builds."""
    rule = ADD.get(np.dtype(dt).kind, lambda b, x, y: b.add(x, y))
    return lambda x, y: rule(b, x, y)


def _cumsum(fn, n, x, out):
    P, m, Q = pnq(n.inputs[0].type.shape, n.params["axis"])
    if P * m * Q == 0:
        return
    b = fn.b
    add = adder(b, n.output.type.dtype)

    def first(idx):
        p, q = idx
        at = b.add(b.mul(p, ir.Constant(I64, m * Q)), q)
        b.store(b.load(b.gep(x[0], [at])), b.gep(out, [at]))

    def rest(idx):
        p, i, q = idx
        at = b.add(b.add(b.mul(p, ir.Constant(I64, m * Q)), b.mul(i, ir.Constant(I64, Q))), q)
        prev = b.load(b.gep(out, [b.sub(at, ir.Constant(I64, Q))]))
        b.store(add(prev, b.load(b.gep(x[0], [at]))), b.gep(out, [at]))
    fn.nest((P, Q), first)
    if m > 1:
        with fn.loop(P) as p:
            with fn.loop(m, 1) as i:
                with fn.loop(Q) as q:
                    rest((p, i, q))


OPAQUE = {Op.cumsum: _cumsum}
