"""How a kernel's loops nest and what its product reads: decided once here, from the kernel's
index maps (ir/passes/fusion_rules.analyze_kernel, row_pass_levels, matmul_operand), and read by
every target's renderer (codegen/cpu/llvm_kernels.py, codegen/cuda/fused/).

An elementwise kernel walks its domain with adjacent dims merged where every array (operand,
array constant, output) broadcasts alike and unit dims dropped (space.collapse): a (B, L) + (L,)
kernel walks 2 dims whatever the domain's rank, a same-shape one walks 1. ElementwiseNest gives
the walked shape and each array's shape in its dims (1 where the array broadcasts).

A matmul kernel is one GEMM per batch element of its product (or one over prod(batch) * M rows
when the right operand is one matrix and the left one is stored untransposed with the whole
batch: MatmulNest.rows_merge), its operands read in place (a reshape, an im2col's columns by a
table of row starts, a strided view of a slice, transpose or reshape chain, either one
transposed), then an elementwise epilogue over the product. MatmulNest gives M, N, K, the batch
and each operand's buffer, shape as read, transposition, im2col, offset, batch strides and
leading dimension; how a target runs the GEMM (BLAS or its own kernels, tiles, blocks)
is the target's.

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

from ...ir.ops import Op
from ...ir.passes.fusion_rules import (im2col_rows, is_product_store, matmul_operand,
                                       row_pass_levels)
from ...ir.passes.matmul_views import View
from ...ir.primitives import REDUCE
from ...ir.registry import TRANSCENDENTAL
from .evaluator import array_constants
from .space import collapse


def aligned_shape(info, v, drop=()) -> tuple:
    """Body value v's shape aligned to the domain of KernelInfo `info` by its index map: the
    domain's extent on the axes v spans, 1 on the others (the axes in `drop` left out)."""
    spans = set(info.maps[v])
    D = info.domain
    return tuple(D[a] if a in spans else 1 for a in range(len(D)) if a not in drop)


# ----------------------------------------------------------------------------- elementwise

@dataclass(frozen=True)
class ElementwiseNest:
    domain: tuple       # the iteration shape (KernelInfo.domain)
    shape: tuple        # the shape walked: the domain collapsed ((1,) when nothing is left)
    shapes: dict        # array or output -> its shape in the walked dims (1 where it broadcasts)
    outputs: tuple      # the values stored, in order, each once

    @property
    def size(self) -> int:
        return math.prod(self.domain)


def elementwise_nest(body, info, outputs=None, product=None) -> ElementwiseNest:
    """The nest of an elementwise kernel `body` with KernelInfo `info` storing `outputs`
    (default: every body output); or of a matmul kernel's epilogue, its `product` read as an
    array. Every array the body reads and every output take part in the collapse."""
    arrays = {*body.inputs, *(n.output for n in array_constants(body)), *body.outputs}
    if product is not None:
        arrays.add(product)
    values = [v for v in info.maps if v in arrays]
    D = tuple(info.domain)
    shape, shapes = collapse(D, [aligned_shape(info, v) for v in values])
    return ElementwiseNest(D, shape or (1,), {v: s or (1,) for v, s in zip(values, shapes)},
                           tuple(dict.fromkeys(body.outputs if outputs is None else outputs)))


# ----------------------------------------------------------------------------- matmul

@dataclass(frozen=True)
class MatmulOperand:
    value: object       # the body input whose buffer is read (an im2col's image)
    shape: tuple        # the shape it is read as: (..., k, m) for a transposed A, (..., n, k) for B
    transposed: bool    # stored with its last two axes swapped
    im2col: dict | None     # the im2col's params when its columns are read from the image
    offset: int         # elements before matrix (0, ..., 0) in the buffer
    strides: tuple      # elements from one matrix to the next along each batch axis (0: size 1)
    ld: int             # elements from one stored row to the next (unused for an im2col)

    @property
    def rows(self) -> list | None:
        """Where each row of an im2col's columns starts in its image (fusion_rules.im2col_rows)."""
        return None if self.im2col is None else im2col_rows(self.im2col, self.value.type.shape)


@dataclass(frozen=True)
class MatmulNest:
    """rows_merge: the right operand is one matrix broadcast over the batch (its batch dims all
    1) and the left one is stored untransposed with its batch and rows one strided [B*M, K]
    matrix (a row stride of ld throughout), as are the product's: one GEMM, not one per batch
    element."""
    node: object        # the matmul node: its output is the product
    M: int              # the product's rows,
    N: int              # its columns,
    K: int              # and the extent summed over
    batch: tuple        # the product's batch dims
    a: MatmulOperand
    b: MatmulOperand
    rows_merge: bool    # the batch runs as one GEMM over prod(batch) * M rows
    outputs: tuple      # the values stored, in order, each once (the product when an output)
    store: tuple | None     # (output, batch strides, row stride): the GEMM writes the product
                            # transposed into that output (fusion_rules.is_product_store)

    @property
    def product(self):
        return self.node.output

    @property
    def epilogue(self) -> tuple:
        """The outputs computed from the product (every output but the product itself and the
        output it is stored transposed into)."""
        held = self.store[0] if self.store else None
        return tuple(v for v in self.outputs if v is not self.product and v is not held)

    @property
    def gemm(self) -> tuple:
        """(M, N, K, batch) of the GEMMs: one per batch element, or one when the rows merge."""
        if self.rows_merge:
            return self.M * math.prod(self.batch), self.N, self.K, ()
        return self.M, self.N, self.K, self.batch

    def batch_strides(self, operand) -> tuple:
        """An operand's batch strides aligned to the product's batch dims (right-aligned, 0 in
        front and on its size-1 dims): batch element (b...) at offset + sum(b * strides)."""
        return (0,) * (len(self.batch) - len(operand.strides)) + tuple(operand.strides)


def _rows_merge(a, b, batch, M, store) -> bool:
    """Whether A's batch and rows are one [B*M, K] matrix of row stride a.ld (B one matrix), and
    so are the product's."""
    if not batch or a.transposed or math.prod(b.shape[:-2]) != 1 or a.shape[:-2] != batch:
        return False
    return _merges(batch, a.strides, M * a.ld) and (
        store is None or _merges(batch, store[1], M * store[2]))


def _merges(batch, strides, want) -> bool:
    """Whether batch elements of these strides follow each other `want` elements apart."""
    for d, s in zip(reversed(batch), reversed(strides)):
        if d != 1:
            if s != want:
                return False
            want *= d
    return True


def _store(body, mm):
    """MatmulNest.store of the kernel body: the product store's output, the product's batch
    strides and row stride in it; None when the product is stored as is."""
    found = [n for n in body.nodes if is_product_store(n, mm.output)]
    if not found:
        return None
    (t,) = found
    perm = t.params["perm"]
    at = View.of(t.output.type.shape).strides
    strides = [at[perm.index(a)] for a in range(len(perm))]
    shape = mm.output.type.shape
    return (t.output, tuple(0 if shape[a] == 1 else strides[a] for a in range(len(perm) - 2)),
            strides[-2])


def matmul_nest(body) -> MatmulNest:
    """The nest of a matmul kernel `body`: its one matmul's operands must be read in place
    (fusion_rules.matmul_operand; a target's coverage check says so first)."""
    producers = body.producers()
    (mm,) = [n for n in body.nodes if n.op == Op.matmul]
    ops = []
    for x in mm.inputs:
        got = matmul_operand(producers, x)
        if got is None:
            raise ValueError(f"kernel {body.name}: a matmul operand computed in the kernel")
        ops.append(MatmulOperand(got.src, tuple(got.shape), got.trans, got.cols, got.offset,
                                 tuple(got.strides), got.ld))
    a, b = ops
    pshape = tuple(mm.output.type.shape)
    batch = pshape[:-2]
    store = _store(body, mm)
    return MatmulNest(mm, pshape[-2], pshape[-1], mm.inputs[0].type.shape[-1], batch, a, b,
                      _rows_merge(a, b, batch, pshape[-2], store),
                      tuple(dict.fromkeys(body.outputs)), store)


# ----------------------------------------------------------------------------- reduce, rowwise

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
