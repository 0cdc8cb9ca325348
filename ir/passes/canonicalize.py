"""canonicalize: algebraic simplifications that give bit-identical results for every input.

IEEE-safe only. x*1, x/1, x**1, x**2 -> x*x, x+(-0.0) and x-(+0.0) are exact for every x (NaN, inf and -0.0
included); x+0.0 is NOT (-0.0 + 0.0 is +0.0) and x*0 is NOT (inf*0 and NaN*0 are NaN), so both
stay. Integers have no signed zero, so there x+0 and x-0 go. Structural rules: double negation,
transpose of a transpose, reshape of a reshape, broadcast of a broadcast, identity reshapes /
transposes / broadcasts / converts, stop_gradient (the identity once autodiff is done), and
reductions over size-1 axes (a reshape). Dead nodes are left for dce.
"""
from __future__ import annotations

import numpy as np

from ..graph import Graph
from ..ops import Op
from ..primitives import REDUCE
from .rewriter import Rewriter
from ..types import kind_of


def _is_float(v):
    return kind_of(v.type.dtype) == "f"


def _all(arr, pred):
    return arr is not None and arr.size > 0 and bool(np.all(pred(arr)))


def _one(arr):
    return arr == 1


def _signbits(arr):
    """The sign bit of each float (of both parts, for complex numbers); None for integers."""
    if kind_of(arr.dtype) == "c":
        return np.signbit(arr.real), np.signbit(arr.imag)
    return (np.signbit(arr),) if kind_of(arr.dtype) == "f" else None


def _neg_zero(arr):       # the additive identity: -0.0 (-0.0-0.0j) for floats, 0 for integers
    bits = _signbits(arr)
    return (arr == 0) & (np.logical_and.reduce(bits) if bits else True)


def _pos_zero(arr):       # the subtractive identity: +0.0 (+0.0+0.0j) for floats, 0 for integers
    bits = _signbits(arr)
    return (arr == 0) & ~(np.logical_or.reduce(bits) if bits else False)


def _as(rw, x, node):
    """`x` standing for node's output: broadcast when the identity operand widened the shape."""
    t = node.output.type
    if x.type == t:
        return x
    return rw.emit(Op.broadcast_to, (x,), {"shape": t.shape}, node.source_info)


def _identity_operand(left, right):
    """A binary rule: out = x when the other operand is an identity (left: c op x, right: x op c;
    each a predicate on the constant, or None)."""
    def rule(rw, node, ins):
        a, b = ins
        if right and _all(rw.literal(b), right):
            return _as(rw, a, node)
        if left and _all(rw.literal(a), left):
            return _as(rw, b, node)
        return None
    return rule


def _pow(rw, node, ins):
    """x**1 is x; x**2 is square(x) (x*x: one rounding, as NumPy's power computes it), not a
    call to pow: a BatchNorm variance written (x - mean)**2 ran 4x slower through powf."""
    a, b = ins
    c = rw.literal(b)
    if _all(c, _one):
        return _as(rw, a, node)
    if kind_of(a.type.dtype) in "fiu" and _all(c, lambda v: v == 2) and \
            a.type.dtype == node.output.type.dtype:
        return _as(rw, rw.emit(Op.square, (a,), {}, node.source_info), node)
    return None


def _neg(rw, node, ins):
    inner = rw.producer.get(ins[0])
    return inner.inputs[0] if inner is not None and inner.op == Op.neg else None


def _identity(rw, node, ins):
    return ins[0]


def _convert(rw, node, ins):
    return ins[0] if ins[0].type.dtype == node.params["dtype"] else None


def _collapse_chain(rw, node, ins):
    """reshape∘reshape and broadcast∘broadcast are one op; a no-op shape change disappears."""
    (x,) = ins
    inner = rw.producer.get(x)
    if inner is not None and inner.op == node.op:
        x = inner.inputs[0]
    if x.type.shape == node.params["shape"]:
        return x
    if x is ins[0]:
        return None
    return rw.emit(node.op, (x,), node.params, node.source_info)


def _transpose(rw, node, ins):
    (x,) = ins
    perm = node.params["perm"]
    inner = rw.producer.get(x)
    if inner is not None and inner.op == Op.transpose:
        x, perm = inner.inputs[0], tuple(inner.params["perm"][p] for p in perm)
    if perm == tuple(range(len(perm))):
        return x
    if x is ins[0]:
        return None
    return rw.emit(Op.transpose, (x,), {"perm": perm}, node.source_info)


def _reduce(rw, node, ins):
    (x,) = ins
    if any(x.type.shape[a] != 1 for a in node.params["axes"]):
        return None
    out = node.output.type
    if node.op in (Op.argmax, Op.argmin):      # the only index along a size-1 axis is 0
        zero = rw.constant(np.zeros((), out.dtype), node.source_info)
        return _as(rw, zero, node)
    if x.type.shape == out.shape:
        return x
    return rw.emit(Op.reshape, (x,), {"shape": out.shape}, node.source_info)


RULES = {
    Op.mul: _identity_operand(_one, _one),
    Op.div: _identity_operand(None, _one),
    Op.pow: _pow,
    Op.add: _identity_operand(_neg_zero, _neg_zero),
    Op.sub: _identity_operand(None, _pos_zero),
    Op.neg: _neg,
    Op.stop_gradient: _identity,
    Op.convert: _convert,
    Op.reshape: _collapse_chain,
    Op.transpose: _transpose,
    Op.broadcast_to: _collapse_chain,
    **{op: _reduce for op in REDUCE},
}


def canonicalize(graph: Graph) -> Graph:
    rw = Rewriter(graph, subgraph_pass=canonicalize)
    for node in graph.nodes:
        rule = RULES.get(node.op)
        new = rule(rw, node, rw.inputs(node)) if rule is not None else None
        if new is None:
            rw.keep(node)
        else:
            rw.replace(node, (new,))
    return rw.finish()
