"""CUDA's eager reductions from the jit's reduce generators (codegen/cuda/fused/reduce.py,
reduce_columns.py) over extents that are kernel arguments: one kernel per op, dtype and pattern of
reduced and kept axes (and block size, for rows), launched on the jit's policies (split_blocks,
column_grid, rows_grid), reading x in place as the jit kernels do.

The generator writes into a kernel object; `ReduceKernel` is that object for one reduction of one
input: parameters in0, out0, the workspace of a split launch, then the runtime extents (and SPLIT,
CHUNK when split), the operand read at its space's flat offset (codegen/kernel/space.py).
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from ...ir.graph import Node, Value
from ...ir.types import TensorType
from ..kernel.buffer import IndentedBuffer
from ..kernel.space import at
from . import exprs
from . import reduction_fold as fold
from .fused.blocks import BlockReductions
from .fused.fused_kernel import MAX_BLOCK
from .fused.reduce import (SPLIT_ELEMS, ReduceShape, rows_grid, split_blocks, split_parts,
                           write_rows, write_split)
from .fused.reduce_columns import column_grid, column_parts, write_columns
from .lowp import HALF
from .source import NUMBA_TYPE, CudaKernelSource, module_text, short
from .target import WARP

I64, TICKET = "int64", np.dtype("int32")


class ReduceKernel:
    """The kernel interface of codegen/cuda/fused/fused_kernel.FusedKernel for one reduction
    `node` of one input, with runtime parameters after the arrays."""

    def __init__(self, name, node, runtime, kind):
        self.name, self.node, self.kind = name, node, kind
        self.ctx = exprs.ExprContext()
        self.arrays = {node.inputs[0]: "in0"}
        self.outs = {node.output: ["out0"]}
        self.buf = IndentedBuffer()
        self.module_consts: list[str] = []
        self.workspace: list = []    # (name, dtype): device arrays the launcher passes
        self.extra_imports: list = []
        self.runtime = list(runtime)

    def header(self):
        params = ["in0", "out0"] + [w[0] for w in self.workspace] + self.runtime
        return self.buf.indent(f"def {self.name}({', '.join(params)}):")

    def evaluator(self, space_of, cse, given=None, shapes=None):
        return _Reads(self.arrays, space_of, cse, given or {})

    def store(self, v, space, expr, shape=None):
        for o in self.outs[v]:
            self.buf.writeline(f"{o}[{space.flat}] = {expr}")

    def finish(self, comment) -> CudaKernelSource:
        text = module_text(comment, self.ctx.prologue() + self.module_consts, self.buf.lines,
                           self.extra_imports)
        arrays = [self.node.inputs[0].type.dtype, self.node.output.type.dtype] + \
            [dt for _, dt in self.workspace]
        types = [f"{NUMBA_TYPE[np.dtype(d)]}[::1]" for d in arrays] + [I64] * len(self.runtime)
        return CudaKernelSource(self.name, text, tuple(types))


class _Reads:
    """The Evaluator's `expr` for a body that is one reduction: its operand, read at the flat
    offset of its space, or a value given (the accumulators, in the epilogue)."""

    def __init__(self, arrays, space_of, cse, given):
        self.arrays, self.space_of, self.cse, self.given = arrays, space_of, cse, given

    def expr(self, v):
        if v in self.given:
            return self.given[v]
        return self.cse.get(f"{self.arrays[v]}[{at(self.space_of(v).flat)}]")


def _node(op, dtype, out_dtype, axes) -> Node:
    """A body of one reduction: what the generators read its dtypes and kind from."""
    return Node(op, (Value(TensorType((), np.dtype(dtype))),), {"axes": axes},
                (Value(TensorType((), np.dtype(out_dtype))),))


def full(op, dtype, out_dtype) -> CudaKernelSource:
    """out[0] = op over every element of x (d0 of them): SPLIT blocks (an argument) publish
    partials, the last to finish folds them (fused/reduce.write_split)."""
    node = _node(op, dtype, out_dtype, (0,))
    k = ReduceKernel(f"reduce_full_{op.value}_{short(dtype)}", node, ["d0", "SPLIT"],
                     "eager reduce: split over blocks")
    red = BlockReductions(k, [node])
    k.workspace += split_parts(red) + [("ticket", TICKET)]
    write_split(k, red, ReduceShape(("d0",), (0,)), None)
    return k.finish(f"eager {op.value} of every element, split over blocks, {short(dtype)}")


def columns(op, dtype, out_dtype, pattern, split) -> CudaKernelSource:
    """out (kept extents) = op over the reduced axes of x; `pattern`: for each (collapsed) axis
    of x, whether it is reduced, the last one kept; `split`: the reduced axis is also split over
    grid.y (SPLIT, CHUNK and the partials are arguments)."""
    extents = [f"d{k}" for k in range(len(pattern))]
    axes = tuple(k for k, reduced in enumerate(pattern) if reduced)
    node = _node(op, dtype, out_dtype, axes)
    tag = "".join("r" if reduced else "k" for reduced in pattern)
    name = f"reduce_columns_{op.value}_{short(dtype)}_{tag}" + ("_split" if split else "")
    k = ReduceKernel(name, node, extents + (["SPLIT", "CHUNK"] if split else []),
                     "eager reduce: columns")
    red = BlockReductions(k, [node])
    if split:
        k.workspace += column_parts(red) + [("ticket", TICKET)]
    k.module_consts += [f"WARPS = {MAX_BLOCK // WARP}  # shared.array size", f"COLS = {WARP}", ""]
    write_columns(k, red, ReduceShape(extents, axes), None, split, MAX_BLOCK)
    return k.finish(f"eager {op.value} over axes {axes} of {tag}, columns, {short(dtype)}")


def rows(op, dtype, out_dtype, pattern, block) -> CudaKernelSource:
    """out (kept extents) = op over the reduced axes of x, anywhere in `pattern` (as `columns`):
    a block of `block` threads per output element (fused/reduce.write_rows), argmax/argmin's
    first index of the winner included."""
    extents = [f"d{k}" for k in range(len(pattern))]
    axes = tuple(k for k, reduced in enumerate(pattern) if reduced)
    node = _node(op, dtype, out_dtype, axes)
    tag = "".join("r" if reduced else "k" for reduced in pattern)
    k = ReduceKernel(f"reduce_rows_{op.value}_{short(dtype)}_{tag}_b{block}", node, extents,
                     "eager reduce: a block per output")
    write_rows(k, BlockReductions(k, [node]), ReduceShape(extents, axes), block)
    return k.finish(f"eager {op.value} over axes {axes} of {tag}, a block of {block} per "
                    f"output, {short(dtype)}")


def pattern_of(shape, axes) -> tuple:
    """x's axes collapsed for a reduction: unit axes dropped, adjacent axes alike (both reduced
    or both kept) merged. Returns (extents, reduced flags)."""
    extents, flags = [], []
    for d, e in enumerate(shape):
        if e == 1:
            continue
        if flags and flags[-1] == (d in axes):
            extents[-1] *= e
        else:
            extents.append(e)
            flags.append(d in axes)
    return tuple(extents), tuple(flags)


class Launch(NamedTuple):
    generator: Callable     # full, columns or rows
    key: tuple              # its arguments, the kernel cache's key
    grid: tuple
    block: int
    args: tuple             # runtime arguments after the arrays
    work: tuple             # the workspace: (dtype, size, zeroed) of each array


def plan(op, x_shape, axes, dtype, out_dtype) -> Launch:
    """How an eager reduction runs as one of the jit's kernels, by the jit's rules for its
    layouts: a full reduction of at least 2 * SPLIT_ELEMS elements split over blocks (not an arg
    reduction, whose partials would need indices), one keeping the innermost axis over at least
    a warp of columns in columns (split over grid.y as the jit splits it), any other in rows
    (rows_grid). float16 / bfloat16 never come here: jitgrad/cuda.py widens them first."""
    dtypes = {np.dtype(dtype), np.dtype(out_dtype)}
    if dtypes & HALF or not dtypes <= NUMBA_TYPE.keys():
        raise ValueError(f"eager CUDA {op.value}: expected dtypes numba.cuda computes in "
                         f"(float16 / bfloat16 widened to float32 first), got "
                         f"{sorted(d.name for d in dtypes)}")
    extents, pattern = pattern_of(x_shape, axes)
    if not any(pattern):          # only unit axes reduced: one element per output
        extents, pattern = extents + (1,), pattern + (True,)
    kind, is_arg = exprs.REDUCER_KIND[op]
    kept = int(np.prod([e for e, r in zip(extents, pattern) if not r], dtype=np.int64))
    length = int(np.prod([e for e, r in zip(extents, pattern) if r], dtype=np.int64))
    key = (op, np.dtype(dtype), np.dtype(out_dtype))
    part = fold.word_dtype(fold.acc_dtype(kind, dtype))   # as split_parts / column_parts
    if kept == 1 and length >= 2 * SPLIT_ELEMS and not is_arg:
        split = split_blocks(length)
        work = ((part, split, False), (TICKET, 1, True))
        return Launch(full, key, (split,), MAX_BLOCK, (length, split), work)
    if is_arg or pattern[-1] or kept < WARP:
        blocks, block = rows_grid(kept, length)
        return Launch(rows, key + (pattern, block), (blocks,), block, extents, ())
    col_blocks, split, chunk = column_grid(kept, length)
    if split == 1:
        return Launch(columns, key + (pattern, False), (max(1, col_blocks), 1), MAX_BLOCK,
                      extents, ())
    work = ((part, split * kept, False), (TICKET, -(-kept // WARP), True))
    return Launch(columns, key + (pattern, True), (col_blocks, split), MAX_BLOCK,
                  extents + (split, chunk), work)
