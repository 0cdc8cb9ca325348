"""How a reduce kernel's loops nest: decided once here, from the kernel's index maps
(ir/passes/fusion_rules.analyze_kernel), and read by every target's renderer
(codegen/cpu/llvm_kernels.py, codegen/cuda/fused.py).

A reduce kernel folds its domain (the reductions' input shape) along the reduced axes into one
result per kept index. The nest says where each value lives:

- `pre`: outputs that span a reduced axis, stored inside the fold at every domain point;
- `post`: outputs over the kept axes only, stored after the fold;
- `epilogue`: body values computed from reduction results (once per kept index);

and which of three layouts the fold has:

- "full": one output from every element (a full reduction): a target splits the elements into
  partial results folded in a fixed order (CPU: REDUCE_BLOCKS blocks on the pool; CUDA:
  grid-stride blocks and a ticket);
- "columns": several outputs and the innermost axis kept (`x.sum(axis=0)`): one output's elements are strided in
  memory, so a target folds many outputs at once along the contiguous axis (CPU: accumulator
  rows walked in memory order; CUDA: warp lanes over columns);
- "rows": otherwise, the reduced axes innermost: one output at a time, scalar accumulators.

A target may run a small case in a simpler layout (CUDA folds fewer than a warp of columns as
rows; the CPU runs a small full reduction serially), with its own thresholds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...ir.primitives import REDUCE


@dataclass(frozen=True)
class ReduceNest:
    reds: tuple         # the reduction nodes, in body order
    domain: tuple       # the iteration shape
    axes: tuple         # reduced axes of the domain, ascending
    pre: tuple          # outputs stored at every domain point
    post: tuple         # outputs stored per kept index, after the fold
    epilogue: frozenset     # values computed from reduction results

    @property
    def kept(self) -> tuple:
        return tuple(d for d in range(len(self.domain)) if d not in self.axes)

    @property
    def rshape(self) -> tuple:
        """The kept extents: each reduction's result shape."""
        return tuple(self.domain[d] for d in self.kept)

    @property
    def jshape(self) -> tuple:
        """The reduced extents."""
        return tuple(self.domain[d] for d in self.axes)

    @property
    def rows(self) -> int:
        return math.prod(self.rshape)

    @property
    def length(self) -> int:
        return math.prod(self.jshape)

    @property
    def layout(self) -> str:
        if self.rows == 1:
            return "full"
        if self.axes and self.axes[-1] != len(self.domain) - 1:
            return "columns"
        return "rows"


def reduce_nest(body, info) -> ReduceNest:
    """The nest of a reduce kernel `body` with KernelInfo `info`."""
    reds = tuple(n for n in body.nodes if n.op in REDUCE)
    axes = tuple(sorted(info.reduce_axes))
    spans = lambda v: any(a in axes for a in info.maps[v])      # noqa: E731
    outputs = tuple(dict.fromkeys(body.outputs))
    epilogue = {r.output for r in reds}
    for n in body.nodes:
        if n.op not in REDUCE and any(x in epilogue for x in n.inputs):
            epilogue.update(n.outputs)
    return ReduceNest(reds, tuple(info.domain), axes,
                      tuple(v for v in outputs if spans(v)),
                      tuple(v for v in outputs if not spans(v)), frozenset(epilogue))
