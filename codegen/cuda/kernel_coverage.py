"""CUDA's coverage answers, in one place: why a kernel node is not one generated kernel
(`why_not`, the CUDA entry of codegen/coverage.py) and why an op has no eager kernel
(`op_why_not`). The codegen backend runs a kernel `why_not` refuses op by op through the eager
kernels (logged at JITGRAD_DEBUG=1), and refuses, naming the user's line, an op `op_why_not`
refuses.

A body's answer is the checking walk (codegen/kernel/check.CheckWalk): the body walk the
generators write source with, run on dtypes over the spaces a generator reads each value in,
with CUDA's scalar rules and checking handler (codegen/cuda/exprs.RULES, CHECK). What is left
here is what each generator assumes of a body's shape (one reduction nest, reductions over the
same axes, no arg reduction or integer matmul inside a fused kernel). A kernel the check passes
always generates.
"""
from __future__ import annotations

import math

from ...ir.ops import Op
from ...ir.passes.fusion_rules import analyze, product_stores, row_pass_levels
from ...ir.primitives import REDUCE
from ...ir.types import is_float
from ..kernel.check import CheckWalk
from ..kernel.control import control_op
from ..kernel.evaluator import array_constants
from ..kernel.nest import reduce_nest
from ..kernel.reducers import REDUCER_KIND
from ..kernel.space import bare, broadcast_gap
from . import eager, exprs
from .fused import GENERATORS


def why_not(node) -> str | None:
    """None when GENERATORS[kind] writes kernel `node`, else why not: what the generators
    assume, checked on the body before any code is written, or a kind they do not write
    (opaque kernels: op by op; control flow: a host loop)."""
    kind = node.params["kind"]
    if kind not in GENERATORS:
        op = control_op(node)
        return (f"{op} holds sub-graphs (a host loop over their kernels)" if op is not None
                else f"{kind} kernel: eager per-op kernels")
    body = node.params["body"]
    arrays = set(body.inputs) | {n.output for n in array_constants(body)}
    reds = [n for n in body.nodes if n.op in REDUCE]
    args = [n for n in reds if REDUCER_KIND.get(n.op, (None, True))[1]]
    if args:
        return f"{args[0].op} runs as an eager kernel"
    return _WHY_NOT[kind](body, arrays, reds)


def op_why_not(op) -> str | None:
    """None when an eager kernel (codegen/cuda/eager.py) computes `op`, else why not."""
    return None if eager.kernel_of(op) is not None else eager.NO_KERNEL


def _points(body, arrays, space, values, given=()):
    """Why the values (computed, then stored when outputs) cannot be had at a point of `space`."""
    walk = CheckWalk(body, arrays, lambda v: space, exprs.RULES, exprs.CHECK, given)
    stores = (broadcast_gap(space.shape, v.type.shape) for v in values if v in body.outputs)
    return walk.check(values) or next(filter(None, stores), None)


def _elementwise_why_not(body, arrays, reds):
    shape = max((v.type.shape for v in body.outputs), key=math.prod)
    return _points(body, arrays, bare(shape), body.outputs)


def _reduce_why_not(body, arrays, reds):
    xshape, axes = reds[0].inputs[0].type.shape, tuple(sorted(reds[0].params["axes"]))
    if any(tuple(sorted(r.params["axes"])) != axes or r.inputs[0].type.shape != xshape
           for r in reds):
        return "reductions over different axes in one kernel"
    info = analyze(body.nodes, body.outputs)
    if info is None or info.kind != "reduce":
        return "a body that is not one reduction nest"
    nest = reduce_nest(body, info)
    if any(v not in nest.epilogue for v in body.outputs):
        return "a reduce kernel output computed before its reductions"
    return (_points(body, arrays, bare(xshape), [r.inputs[0] for r in reds]) or
            _points(body, arrays, bare(nest.rshape), body.outputs, {r.output for r in reds}))


def _rowwise_why_not(body, arrays, reds):
    xshape = reds[0].inputs[0].type.shape
    if any(r.inputs[0].type.shape != xshape or tuple(r.params["axes"]) != (len(xshape) - 1,)
           for r in reds):
        return "rowwise reductions not all over the last axis"
    _, per_row = row_pass_levels(body, reds)
    feeds = [v for n in body.nodes if n.output not in per_row for v in n.inputs if v in per_row]
    done = {r.output for r in reds}
    row_values = feeds + [v for v in body.outputs if v in per_row]
    elements = [r.inputs[0] for r in reds] + [v for v in body.outputs if v not in per_row]
    return (_points(body, arrays, bare(xshape[:-1]), row_values, done) or
            _points(body, arrays, bare(xshape), elements, done | set(feeds)))


def _matmul_why_not(body, arrays, reds):
    (mm,) = [n for n in body.nodes if n.op == Op.matmul]
    if not is_float(mm.output.type.dtype):
        return f"{mm.output.type.dtype} matmul runs as an eager kernel"
    stored = product_stores(body.nodes, mm.output)
    return _points(body, arrays, bare(mm.output.type.shape),
                   [v for v in body.outputs if v not in stored], {mm.output})


_WHY_NOT = {"elementwise": _elementwise_why_not, "reduce": _reduce_why_not,
            "rowwise": _rowwise_why_not, "matmul": _matmul_why_not}
