"""CUDA's eager column reductions (a reduction keeping the innermost axis, x.sum(axis=0)) from the
jit's column generator (codegen/cuda/fused/reduce_columns.write_columns) over extents that are
kernel arguments: one kernel per op, dtype and pattern of reduced and kept axes, launched on the
jit's grid policy (column_grid), reading x in place as the jit kernel does.

The generator writes into a kernel object; `ReduceKernel` is that object for one reduction of one
input: parameters in0, out0, the workspace of a split launch, then the runtime extents (and SPLIT,
CHUNK when split), the operand read at its space's flat offset (codegen/kernel/space.py).
"""
from __future__ import annotations

import numpy as np

from ...ir.graph import Node, Value
from ...ir.types import TensorType
from ..kernel.buffer import IndentedBuffer
from ..kernel.space import at
from . import exprs
from . import reduction_fold as fold
from .fused.blocks import BlockReductions
from .fused.fused_kernel import MAX_BLOCK
from .fused.reduce import ReduceShape
from .fused.reduce_columns import column_grid, column_parts, write_columns
from .lowp import HALF
from .source import NUMBA_TYPE, CudaKernelSource, module_text, short
from .target import WARP

I64, TICKET = "int64", np.dtype("int32")


class ReduceKernel:
    """The kernel interface of codegen/cuda/fused/fused_kernel.FusedKernel for one reduction
    `node` of one input, with runtime parameters after the arrays."""

    def __init__(self, name, node, runtime):
        self.name, self.node, self.kind = name, node, "eager reduce: columns"
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


def columns(op, dtype, out_dtype, pattern, split) -> CudaKernelSource:
    """out (kept extents) = op over the reduced axes of x; `pattern`: for each (collapsed) axis
    of x, whether it is reduced, the last one kept; `split`: the reduced axis is also split over
    grid.y (SPLIT, CHUNK and the partials are arguments)."""
    extents = [f"d{k}" for k in range(len(pattern))]
    axes = tuple(k for k, reduced in enumerate(pattern) if reduced)
    node = Node(op, (Value(TensorType((), np.dtype(dtype))),), {"axes": axes},
                (Value(TensorType((), np.dtype(out_dtype))),))
    tag = "".join("r" if reduced else "k" for reduced in pattern)
    name = f"reduce_columns_{op.value}_{short(dtype)}_{tag}" + ("_split" if split else "")
    k = ReduceKernel(name, node, extents + (["SPLIT", "CHUNK"] if split else []))
    red = BlockReductions(k, [node])
    if split:
        k.workspace += column_parts(red) + [("ticket", TICKET)]
    k.module_consts += [f"WARPS = {MAX_BLOCK // WARP}  # shared.array size", f"COLS = {WARP}", ""]
    write_columns(k, red, ReduceShape(extents, axes), None, split, MAX_BLOCK)
    return k.finish(f"eager {op.value} over axes {axes} of {tag}, columns, {short(dtype)}")


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


def plan(op, x_shape, axes, dtype, out_dtype):
    """How an eager reduction runs as a column kernel, or None where it does not (an arg
    reduction, 16-bit words or a dtype numba has no type for, the innermost axis reduced, fewer
    columns than a warp: the jit's rule for its column layout): (kernel key, grid, extents,
    SPLIT and CHUNK or nothing, the workspace's (dtype, size, zeroed))."""
    extents, pattern = pattern_of(x_shape, axes)
    kind, is_arg = exprs.REDUCER_KIND[op]
    dtypes = {np.dtype(dtype), np.dtype(out_dtype)}
    if is_arg or dtypes & HALF or not dtypes <= NUMBA_TYPE.keys() or not any(pattern) or \
            pattern[-1]:
        return None
    rows = int(np.prod([e for e, r in zip(extents, pattern) if not r], dtype=np.int64))
    length = int(np.prod([e for e, r in zip(extents, pattern) if r], dtype=np.int64))
    if rows < WARP:
        return None
    col_blocks, split, chunk = column_grid(rows, length)
    key = (op, np.dtype(dtype), np.dtype(out_dtype), pattern, split > 1)
    if split == 1:
        return key, (max(1, col_blocks), 1), extents, (), ()
    work = ((fold.acc_dtype(kind, dtype), split * rows, False), (TICKET, -(-rows // WARP), True))
    return key, (col_blocks, split), extents, (split, chunk), work
