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

codegen/cuda/kernel_coverage.why_not(node) says, before any code is written, why a kernel is not
one of these (an arg reduction or integer matmul inside a fused kernel, reductions over
different axes, a reshape or operand shape a point of the loop cannot read, an op CUDA's scalar
rules do not compute at its dtypes); codegen/cuda/backend.py then runs it op by op, logged at
JITGRAD_DEBUG=1. A kernel the check passes always generates.

Kernels are self-contained (no device-function calls: compile_ptx cannot build callees without a
GPU); block sizes and shared-array sizes are module-level constants. Each generator returns a
`Fused`: the source, its array constants and the launch configuration.
"""
from __future__ import annotations

from .elementwise import gen_elementwise
from .matmul import gen_matmul
from .reduce import gen_reduce
from .rowwise import gen_rowwise


GENERATORS = {"elementwise": gen_elementwise, "reduce": gen_reduce, "rowwise": gen_rowwise,
              "matmul": gen_matmul}
