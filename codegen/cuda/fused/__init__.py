"""Fused CUDA kernel generators for @jit: one numba.cuda kernel per scheduled kernel node, one
module per kind in this package (fused_kernel.py: the kernel they write into).

Each generator writes the kernel body with the shared Evaluator (codegen/kernel/evaluator.py) and
iteration spaces (codegen/kernel/space.py), passing the CUDA expression table, over the kernel's
nest (codegen/kernel/nest.py: the loop structure the CPU renderer reads too); what is
CUDA-specific is the prologue and how threads walk the nest:

  elementwise  a grid-stride loop over the ElementwiseNest's collapsed shape: one flat index,
               unravelled by divmod over the collapsed dims an operand spans
  reduce       one block per output element (grid-striding over them): each thread folds a
               strided slice of the reduced elements, with the elementwise prologue computed in
               the fold; warps fold through shuffles, warp partials meet in shared memory, and
               lane 0 writes the elementwise epilogue
  rowwise      one block per row: one pass over the row per reduction level (max, then sum of
               exp, then the output); each level's reductions are block reductions whose results
               are broadcast to the block through shared memory; per-row values (mean, 1/std)
               are computed once per row, the epilogue is stored in the last pass
  matmul       64 x 64 shared-memory tiles (16 x 16 along a side shorter than 64), 4 x 4
               outputs per thread in registers, transposed operands loaded coalesced, the
               elementwise epilogue applied to each accumulator before the only store. cuBLAS
               is not reachable from numba-cuda without extra dependencies (cupy or
               nvmath-python, whose cuBLAS calls could not fuse the epilogue anyway).
  reduce       (see gen_reduce) a block per output, coalesced columns, or a full reduction
               split over many blocks

`why_not(node)` says, before any code is written, why a kernel is not one of these (an arg
reduction or integer matmul inside a fused kernel, reductions over different axes, a reshape or
operand shape a point of the loop cannot read); codegen/cuda/backend.py then runs it op by op,
logged at JITGRAD_DEBUG=1. A kernel the check passes always generates.

Kernels are self-contained (no device-function calls: compile_ptx cannot build callees without a
GPU); block sizes and shared-array sizes are module-level constants. Each generator returns a
`Fused`: the source, its array constants and the launch configuration.
"""
from __future__ import annotations

import math

from ....ir.ops import Op
from ....ir.passes.fusion_rules import analyze, product_stores, row_pass_levels
from ....ir.primitives import REDUCE
from ....ir.types import is_float
from ...kernel.control import control_op
from ...kernel.evaluator import array_constants, gap
from ...kernel.nest import reduce_nest
from ...kernel.space import bare, broadcast_gap
from .. import exprs
from .elementwise import gen_elementwise
from .matmul import gen_matmul
from .reduce import gen_reduce
from .rowwise import gen_rowwise


GENERATORS = {"elementwise": gen_elementwise, "reduce": gen_reduce, "rowwise": gen_rowwise,
              "matmul": gen_matmul}


# ----------------------------------------------------------------------------- coverage

def why_not(node) -> str | None:
    """None when GENERATORS[kind] writes kernel `node`, else why not: what the generators
    assume, checked on the body before any code is written (the kernel then runs op by op), or
    a kind they do not write (opaque kernels: op by op; control flow: a host loop). The CUDA
    entry of codegen/coverage.py."""
    kind = node.params["kind"]
    if kind not in GENERATORS:
        op = control_op(node)
        return (f"{op} holds sub-graphs (a host loop over their kernels)" if op is not None
                else f"{kind} kernel: eager per-op kernels")
    body = node.params["body"]
    arrays = set(body.inputs) | {n.output for n in array_constants(body)}
    reds = [n for n in body.nodes if n.op in REDUCE]
    args = [n for n in reds if exprs.REDUCER_KIND.get(n.op, (None, True))[1]]
    if args:
        return f"{args[0].op} runs as an eager kernel"
    return _WHY_NOT[kind](body, arrays, reds)


def _points(body, arrays, space, values, given=()):
    """Why the values (computed, then stored when outputs) cannot be had at a point of `space`."""
    stores = (broadcast_gap(space.shape, v.type.shape) for v in values if v in body.outputs)
    return gap(body, arrays, lambda v: space, values, given) or next(filter(None, stores), None)


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
