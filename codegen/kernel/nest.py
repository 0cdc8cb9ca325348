"""How a reduce or rowwise kernel's loops nest: decided once here, from the kernel's index maps
(ir/passes/fusion_rules.analyze_kernel, row_pass_levels), and read by every target's renderer
(codegen/cpu/llvm_kernels.py, codegen/cuda/fused.py).

A rowwise kernel (softmax, layernorm) walks each row of its domain in `passes` passes: pass p
computes the values of level p (a value that needs a row's reduction results comes one pass
after the reductions' inputs), folds the reductions whose inputs are of that level, and stores
the element outputs of that level (RowNest.work).

A reduce kernel folds its domain (the reductions' input shape) along the reduced axes into one
result per kept index. The nest says where each value lives:

- `pre`: outputs that span a reduced axis, stored inside the fold at every domain point;
- `post`: outputs over the kept axes only, stored after the fold;
- `epilogue`: body values computed from reduction results (once per kept index);

and which of three layouts the fold has:

- "full": one output from every element (a full reduction): a target splits the elements into
  partial results folded in a fixed order (CPU: REDUCE_BLOCKS blocks on the pool; CUDA:
  grid-stride blocks and a ticket);
- "columns": several outputs and the innermost axis kept (`x.sum(axis=0)`): one output's
  elements are strided in memory, so a target folds many outputs at once along the contiguous
  axis (CPU: accumulator rows walked in memory order; CUDA: warp lanes over columns);
- "rows": otherwise, the reduced axes innermost: one output at a time, scalar accumulators.

A target may run a small case in a simpler layout (CUDA folds fewer than a warp of columns as
rows; the CPU runs a small full reduction serially), with its own thresholds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...ir.passes.fusion_rules import row_pass_levels
from ...ir.primitives import REDUCE
from ...ir.registry import TRANSCENDENTAL


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


@dataclass(frozen=True)
class RowNest:
    reds: tuple         # the reductions (all over the last axis), in body order
    domain: tuple       # the iteration shape: rows x L
    level: dict         # body value -> the pass it is computed in
    per_row: frozenset  # reduction results and what is computed from them (and scalars) alone
    passes: int
    body_producers: dict    # body value -> the node computing it, in body order

    @property
    def L(self) -> int:
        return self.domain[-1]

    @property
    def rows(self) -> int:
        return math.prod(self.domain[:-1])

    def reused(self, work, per_row) -> dict:
        """Transcendental row values one pass computes and a later pass needs again (softmax's
        exp(x - max): summed in one pass, divided in the next), in body order: value -> (its
        pass, the later passes reading it). A target keeps them (a stack row, shared memory)
        or computes them again. work: self.work(...); per_row: values read per row."""
        producers = self.body_producers
        done = {n.output for mine, _ in work for n in mine}

        def needs(roots):
            seen, stack = set(), list(roots)
            while stack:
                v = stack.pop()
                if v in seen or v in done or v in per_row:
                    continue
                seen.add(v)
                n = producers.get(v)
                if n is not None:
                    stack.extend(n.inputs)
            return seen
        evaluated = [needs([n.inputs[0] for n in mine] + stores) for mine, stores in work]
        out = {}
        for v, n in producers.items():
            if n.op not in TRANSCENDENTAL:
                continue
            passes = [p for p, vals in enumerate(evaluated) if v in vals]
            if len(passes) > 1:
                out[v] = (passes[0], set(passes[1:]))
        return out

    def work(self, element_outputs) -> list:
        """Per pass: (the reductions folded in it, the element outputs stored in it)."""
        return [([n for n in self.reds if self.level[n.inputs[0]] == p],
                 [v for v in element_outputs if self.level[v] == p])
                for p in range(self.passes)]


def row_nest(body, element_outputs=None) -> RowNest:
    """The nest of a rowwise kernel `body` whose outputs stored per element are
    `element_outputs` (default: the outputs not in per_row; the CPU reads its operands by
    index maps and names them itself)."""
    reds = tuple(n for n in body.nodes if n.op in REDUCE)
    level, per_row = row_pass_levels(body, reds)
    if element_outputs is None:
        element_outputs = [v for v in body.outputs if v not in per_row]
    passes = 1 + max([level[r.inputs[0]] for r in reds] +
                     [level.get(v, 0) for v in element_outputs])
    return RowNest(reds, tuple(reds[0].inputs[0].type.shape), level, frozenset(per_row), passes,
                   body.producers())
