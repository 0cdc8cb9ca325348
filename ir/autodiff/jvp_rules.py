"""JVP rules (the records in ir/primitives/ name them): fn(e, node, tangents) -> one tangent per output (None: zero).

`tangents` holds one tangent per input (None where the input does not depend on the
differentiated inputs). Elementwise results may come back in a smaller shape than the output
(e.g. only the un-broadcast side had a tangent); the driver broadcasts them.
"""
from __future__ import annotations

from ..ops import Op
from ..types import is_inexact
from .reductions import extremum_weights, prod_partials


def from_linearized(lin):
    """The JVP of an elementwise op from its linearized derivative (its record's)."""
    def rule(e, node, ts):
        x, out = node.inputs, None
        for i, t in enumerate(ts):
            if t is not None:
                d = lin(e, x, node.output, t, i)
                out = d if out is None else e.add(out, d)
        return [out]
    return rule


def linear(e, node, ts):
    """Ops linear in their one differentiable input: the tangent goes through the op itself."""
    return [e(node.op, ts[0], **node.params)]


def convert(e, node, ts):
    return [e.convert(ts[0], node.output.type.dtype) if is_inexact(node.output.type.dtype) else None]


def select(e, node, ts):
    _, ta, tb = ts
    return [e.select(node.inputs[0], 0.0 if ta is None else ta, 0.0 if tb is None else tb)]


def reduce_extremum(e, node, ts):
    x, axes = node.inputs[0], node.params["axes"]
    return [e.reduce_sum(e.mul(ts[0], extremum_weights(e, x, node.output, axes)), axes)]


def reduce_prod(e, node, ts):
    x, axes = node.inputs[0], node.params["axes"]
    return [e.reduce_sum(e.mul(ts[0], prod_partials(e, x, axes)), axes)]


def sort(e, node, ts):
    x, axis = node.inputs[0], node.params["axis"]
    return [e.take_along_axis(ts[0], e(Op.argsort, x, axis=axis), axis)]


def pad(e, node, ts):
    return [e(Op.pad, ts[0], **{**node.params, "value": 0.0})]


def concatenate(e, node, ts):
    parts = [e.zeros(x.type) if t is None else t for x, t in zip(node.inputs, ts)]
    return [e(Op.concatenate, *parts, **node.params)]


def take(e, node, ts):
    return [e(Op.take, ts[0], node.inputs[1], **node.params)]


def scatter_add(e, node, ts):
    return [e(Op.scatter_add, node.inputs[0], ts[1], **node.params)]


def matmul(e, node, ts):
    (a, b), (ta, tb) = node.inputs, ts
    parts = ([e(Op.matmul, ta, b)] if ta is not None else []) + (
        [e(Op.matmul, a, tb)] if tb is not None else [])
    return [parts[0] if len(parts) == 1 else e.add(*parts)]
