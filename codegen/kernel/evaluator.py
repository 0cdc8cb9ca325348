"""Scalar evaluation of a kernel body at one point of an iteration space, as source.

`Evaluator.expr(v)` (the walk of codegen/kernel/walk.py) returns the expression for body value
`v` at the current point, emitting a CSE'd temporary per node (in body order, so the source reads
like the IR). Body inputs and array
constants are loads from their flat arrays; one-element constants are typed module globals;
`given` supplies values computed elsewhere (accumulators, scratch rows). Whether a target can
write a body this way is the checking walk's answer (codegen/kernel/check.CheckWalk: the same
walk and the same rules, on dtypes).
"""
from __future__ import annotations

from ...ir.ops import Op
from .space import at
from .walk import BodyWalk


class Evaluator(BodyWalk):
    def __init__(self, ctx, body, arrays, space_of, cse, given=None, load_shapes=None,
                 expr_table=None, aligned=False):
        """aligned: `load_shapes` gives every value its shape aligned to its space by the
        kernel's index maps (ir.passes.fusion_rules), so reshapes and broadcasts are the identity
        at a point; otherwise operands broadcast NumPy-style against the space."""
        super().__init__(body, arrays, given)
        self.ctx, self.space_of, self.cse = ctx, space_of, cse
        self.aligned = aligned
        self.scalar_expr = expr_table      # the target's: codegen/cuda/exprs.scalar_expr
        self.load_shapes = load_shapes or {}

    def load(self, v, shape=None) -> str:
        space = self.space_of(v)
        shape = shape or self.load_shapes.get(v, v.type.shape)
        return self.cse.get(f"{self.arrays[v]}[{at(space.offset(shape))}]")

    def apply(self, node, args) -> str:
        return self.cse.get(self.scalar_expr(self.ctx, node.op, args,
                                             [x.type.dtype for x in node.inputs],
                                             node.output.type.dtype, node.params))

    def constant(self, node, v):
        lit = node.params["value"]
        if lit.size == 1:
            return self.ctx.const(lit.array.reshape(-1)[0], lit.dtype)
        if lit.size == 0:   # read only in an empty space (check.CheckWalk refuses the rest)
            return self.ctx.const(0, lit.dtype)
        return self.load(v)

    def reshaped(self, node, v):
        x = node.inputs[0]
        how = relabel(node, v, self.space_of, self.arrays, self.aligned)
        if how == "reload":                 # reread the input in its new shape
            return self.load(x, v.type.shape)
        if how == "same":
            return self.expr(x)
        raise AssertionError(f"codegen: {node.op} {x.type} -> {v.type} inside a kernel (a "
                             "generator's coverage check let it through)")


def relabel(node, v, space_of, arrays, aligned=False):
    """How reshape/broadcast_to `node` gives v at a point: "same" (x's value at the point), "reload"
    (x, an array, read in v's shape) or None (neither: not computable at a point of this space)."""
    (x,) = node.inputs
    space, xspace = space_of(v), space_of(x)
    if aligned:             # index maps place x and v at the same element of every point
        return "same"
    if x.type.size in (1, space.size) and xspace.size == space.size:
        return "same"
    if x in arrays and node.op == Op.reshape:
        return "reload"
    if node.op == Op.broadcast_to and xspace is space:
        return "same"                       # right-aligned, as broadcasting is
    return None


def array_constants(body, every=False):
    """Constant nodes of a body that are read as arrays (more than one element, or `every`)."""
    return [n for n in body.nodes if n.op == Op.constant and (every or n.params["value"].size > 1)]
