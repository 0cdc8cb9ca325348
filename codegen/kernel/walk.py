"""The memoized walk of a kernel body at one point of its loops, for every target.

`BodyWalk.expr(v)` is the value of body value `v` at the point: given (an accumulator, a row kept
in scratch), a load (a body input, an array constant, a stored product), a one-element constant,
a reshape or broadcast of its input, or an op applied to its inputs' values, each computed once.
A target renders the leaves and ops (`load`, `constant`, `reshaped`, `apply`): the CUDA
generators' Evaluator (codegen/kernel/evaluator.py) as source, the CPU's Point
(codegen/cpu/kernels/function.py) as LLVM IR.
"""
from __future__ import annotations

from ...ir.ops import Op

# ops that only relabel the shape of a value: at one point of the loops they read their input
# there (or reread an array in the new shape: the target's `reshaped` decides)
RELABEL = (Op.reshape, Op.broadcast_to)


class BodyWalk:
    """`arrays`: the values read from memory; `given`: values computed elsewhere. A target's
    subclass defines load(v), constant(node, v), reshaped(node, v) and apply(node, args)."""

    def __init__(self, body, arrays, given=None):
        self.arrays = arrays
        self.producers = body.producers()
        self.memo = dict(given or {})

    def expr(self, v):
        hit = self.memo.get(v)
        if hit is not None:
            return hit
        node = self.producers.get(v)
        if node is None or v in self.arrays:      # an input, array constant or stored product
            e = self.load(v)
        elif node.op == Op.constant:
            e = self.constant(node, v)
        elif node.op in RELABEL:
            e = self.reshaped(node, v)
        else:
            e = self.apply(node, [self.expr(x) for x in node.inputs])
        self.memo[v] = e
        return e

