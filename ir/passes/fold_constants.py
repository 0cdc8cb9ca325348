"""fold_constants: evaluate nodes whose inputs are all constants, with the NumPy reference table.

A folded result becomes a literal only when it has at most FOLD_LIMIT elements; bigger results
stay computed, so `jnp.ones((4096, 4096)) * 2` (traced as broadcast_to(1.0) * 2) becomes
broadcast_to(2.0) — a cheap fill — and never a 64 MiB literal. Elementwise ops over broadcasts of
constants are evaluated on the small constants and broadcast afterwards; shape ops on a broadcast
scalar stay broadcasts.
"""
from __future__ import annotations

import numpy as np

from ..graph import Graph
from ..ops import Op
from ..primitives import ELEMENTWISE
from ..reference import evaluate
from ..types import TensorType
from .rewriter import Rewriter
from ..types import kind_of

FOLD_LIMIT = 1024
NEVER_FOLD = frozenset({Op.constant})
SHAPE_OF_SCALAR = frozenset({Op.reshape, Op.transpose, Op.broadcast_to})


def _uniform(arr) -> bool:
    """Every element equal to the first, bit for bit (-0.0 is not 0.0; NaN is never uniform)."""
    first = arr.reshape(-1)[0]
    same = arr == first
    if kind_of(arr.dtype) == "f":
        same &= np.signbit(arr) == np.signbit(first)
    return bool(np.all(same))


def _fill(rw, arr, shape, source_info):
    """`arr` broadcast to `shape` as a constant; a broadcast scalar when all elements are equal."""
    if arr.size > 1 and _uniform(arr):
        arr = arr.reshape(-1)[0].reshape(())
    c = rw.constant(arr, source_info)
    return c if arr.shape == tuple(shape) else rw.emit(Op.broadcast_to, (c,), {"shape": shape},
                                                       source_info)


def _exact_literals(rw, ins):
    arrays = [rw.literal(v, through_broadcast=False) for v in ins]
    return None if any(a is None for a in arrays) else arrays


def _fold_exact(rw, node, ins):
    """Every input is a constant: evaluate when the results are small."""
    arrays = _exact_literals(rw, ins)
    if node.op == Op.broadcast_to and arrays is not None and arrays[0].size == 1:
        return None          # already a fill; a literal would only be bigger
    if arrays is None or any(v.type.size > FOLD_LIMIT for v in node.outputs):
        return None
    outs = evaluate(node.op, arrays, node.params, [v.type for v in node.outputs])
    return tuple(_fill(rw, o, o.shape, node.source_info) for o in outs)


def _fold_broadcast(rw, node, ins):
    """Elementwise over constants and broadcasts of constants: compute small, broadcast after."""
    arrays = [rw.literal(v) for v in ins]
    if any(a is None for a in arrays):
        return None
    small = np.broadcast_shapes(*(a.shape for a in arrays))
    if int(np.prod(small)) > FOLD_LIMIT:
        return None
    out_t = node.output.type
    (res,) = evaluate(node.op, arrays, node.params, [TensorType(small, out_t.dtype)])
    return (_fill(rw, res, out_t.shape, node.source_info),)


def _fold_shape_of_scalar(rw, node, ins):
    """reshape/transpose/broadcast of a broadcast scalar is a broadcast of that scalar."""
    if rw.op_of(ins[0]) != Op.broadcast_to:
        return None
    arr = rw.literal(ins[0])
    if arr is None or arr.size != 1:
        return None
    return (_fill(rw, arr.reshape(()), node.output.type.shape, node.source_info),)


def fold_constants(graph: Graph) -> Graph:
    rw = Rewriter(graph, subgraph_pass=fold_constants)
    for node in graph.nodes:
        ins = rw.inputs(node)
        new = None
        if isinstance(node.op, Op) and node.op not in NEVER_FOLD:
            new = _fold_exact(rw, node, ins)
            if new is None and node.op in ELEMENTWISE:
                new = _fold_broadcast(rw, node, ins)
            if new is None and node.op in SHAPE_OF_SCALAR:
                new = _fold_shape_of_scalar(rw, node, ins)
        if new is None:
            rw.keep(node)
        else:
            rw.replace(node, new)
    return rw.finish()
