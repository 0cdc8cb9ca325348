"""VJP rules (the records in ir/primitives/ name them): fn(e, node, cts) -> one cotangent per input (None: zero).

`node` is the primal node inside the graph being built (its inputs and outputs are values
there); `cts` holds one cotangent per output (None where no cotangent flows). A rule may return
a cotangent in the broadcast shape of an elementwise op: the driver sums it down to the input's
shape (Emitter.sum_to, the one place that un-broadcasts). Rules emit only differentiable
primitives where the result must be differentiable again (higher order).
"""
from __future__ import annotations

import numpy as np

from ..ops import Op
from ..types import is_inexact
from .reductions import extremum_weights, prod_partials


def single(fn):
    """Adapt fn(e, node, g) for single-output ops."""
    rule = lambda e, node, cts: fn(e, node, cts[0])  # noqa: E731
    rule.__name__ = rule.__qualname__ = fn.__name__
    return rule


def from_linearized(lin):
    """The VJP of an elementwise op from its linearized derivative (its record's)."""
    @single
    def rule(e, node, g):
        x = node.inputs
        return [lin(e, x, node.output, g, i) for i in range(len(x))]
    return rule


@single
def convert(e, node, g):
    (x,) = node.inputs
    return [e.convert(g, x.type.dtype) if is_inexact(x.type.dtype) else None]


@single
def select(e, node, g):
    p = node.inputs[0]
    return [None, e.select(p, g, 0.0), e.select(p, 0.0, g)]


# ----------------------------------------------------------------------------- reductions

@single
def reduce_sum(e, node, g):
    x = node.inputs[0]
    return [e.expand(g, node.params["axes"], x.type.shape)]


@single
def reduce_extremum(e, node, g):
    x = node.inputs[0]
    axes = node.params["axes"]
    w = extremum_weights(e, x, node.output, axes)
    return [e.mul(w, e.expand(g, axes, x.type.shape))]


@single
def reduce_prod(e, node, g):
    x = node.inputs[0]
    axes = node.params["axes"]
    return [e.mul(e.expand(g, axes, x.type.shape), prod_partials(e, x, axes))]


@single
def cumsum(e, node, g):
    ax = (node.params["axis"],)
    return [e(Op.rev, e(Op.cumsum, e(Op.rev, g, axes=ax), axis=ax[0]), axes=ax)]


@single
def sort(e, node, g):
    x, axis = node.inputs[0], node.params["axis"]
    perm = e(Op.argsort, x, axis=axis)       # stable: the same order sort produced
    return [e.scatter_along_axis(g, perm, axis)]


# ----------------------------------------------------------------------------- shapes

@single
def reshape(e, node, g):
    return [e.reshape(g, node.inputs[0].type.shape)]


@single
def transpose(e, node, g):
    return [e.transpose(g, np.argsort(node.params["perm"]))]


@single
def slice(e, node, g):
    """Scatter g back into zeros: interleave step-1 zeros on strided axes (reshape + pad +
    reshape), trim what ran past the end, then pad to the input's extent."""
    shape = node.inputs[0].type.shape
    start, step = node.params["start"], node.params["step"]
    for ax, s in enumerate(step):
        if s > 1:
            k = g.type.shape[ax]
            sh = g.type.shape
            g = e.reshape(g, sh[:ax + 1] + (1,) + sh[ax + 1:])
            lo, hi = [0] * (g.type.ndim), [0] * (g.type.ndim)
            hi[ax + 1] = s - 1
            g = e(Op.pad, g, lo=tuple(lo), hi=tuple(hi), value=0.0)
            g = e.reshape(g, sh[:ax] + (k * s,) + sh[ax + 1:])
    stop = tuple(min(n, d - a) for n, d, a in zip(g.type.shape, shape, start))
    if stop != g.type.shape:
        g = e(Op.slice, g, start=(0,) * len(shape), stop=stop, step=(1,) * len(shape))
    hi = tuple(d - a - n for d, a, n in zip(shape, start, g.type.shape))
    if any(start) or any(hi):
        g = e(Op.pad, g, lo=tuple(start), hi=hi, value=0.0)
    return [g]


@single
def pad(e, node, g):
    lo = node.params["lo"]
    shape = node.inputs[0].type.shape
    return [e(Op.slice, g, start=tuple(lo), stop=tuple(a + d for a, d in zip(lo, shape)),
              step=(1,) * len(shape))]


@single
def concatenate(e, node, g):
    axis, at, out = node.params["axis"], 0, []
    for x in node.inputs:
        n = x.type.shape[axis]
        start = tuple(at if i == axis else 0 for i in range(g.type.ndim))
        stop = tuple(at + n if i == axis else d for i, d in enumerate(g.type.shape))
        out.append(e(Op.slice, g, start=start, stop=stop, step=(1,) * g.type.ndim))
        at += n
    return out


@single
def take(e, node, g):
    x, idx = node.inputs
    return [e(Op.scatter_add, idx, g, shape=x.type.shape, axis=node.params["axis"]), None]


@single
def scatter_add(e, node, g):
    idx = node.inputs[0]
    return [None, e(Op.take, g, idx, axis=node.params["axis"])]


@single
def matmul(e, node, g):
    a, b = node.inputs
    # batch dims broadcast: the driver sums each cotangent down to its input's shape
    return [e(Op.matmul, g, e.swap_last(b)), e(Op.matmul, e.swap_last(a), g)]


@single
def broadcast_to(e, node, g):
    return [g]


@single
def rev(e, node, g):
    return [e(Op.rev, g, axes=node.params["axes"])]
