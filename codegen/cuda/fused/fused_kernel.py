"""The kernel a fused CUDA generator writes (codegen/cuda/fused/): its parameters (inputs, array
constants, outputs, workspace; all flat), the source buffer, the shared Evaluator over the CUDA
expression table, and the `Fused` it returns (source, constants, launch configuration)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...kernel import canonical
from ...kernel.buffer import IndentedBuffer
from ...kernel.evaluator import Evaluator, array_constants
from .. import exprs, target
from ..source import NUMBA_TYPE, CudaKernelSource, module_text


MAX_BLOCK = target.DEFAULT.block          # threads per block of reduce / rowwise kernels
MAX_BLOCKS = target.DEFAULT.max_blocks    # grid-stride beyond this many blocks


@dataclass(frozen=True)
class Fused:
    source: CudaKernelSource
    constants: list        # Literals passed after the inputs, as flat arrays
    grid: tuple
    block: tuple
    workspace: tuple = ()  # (dtype, size) of zeroed arrays passed last, kept across launches


class FusedKernel:
    """Parameters (inputs, array constants, outputs, all flat), the buffer, and the module."""

    def __init__(self, name, node, kind):
        self.name, self.node, self.kind = name, node, kind
        self.body = node.params["body"]
        self.ctx = exprs.ExprContext()
        self.consts = array_constants(self.body)
        self.arrays = {v: f"in{k}" for k, v in enumerate(self.body.inputs)}
        self.arrays.update({n.outputs[0]: f"c{k}" for k, n in enumerate(self.consts)})
        self.outs: dict = {}
        for k, v in enumerate(self.body.outputs):
            self.outs.setdefault(v, []).append(f"out{k}")
        self.buf = IndentedBuffer()
        self.module_consts: list[str] = []
        self.workspace: list = []    # (name, dtype, size): zeroed device arrays kept per launch
        self.extra_imports: list = []

    def header(self):
        params = list(self.arrays.values()) + [o for names in self.outs.values() for o in names]
        params += [w[0] for w in self.workspace]
        return self.buf.indent(f"def {self.name}({', '.join(params)}):")

    def evaluator(self, space_of, cse, given=None, shapes=None):
        """shapes: every array's shape in the space by the index maps (an ElementwiseNest's),
        else operands broadcast NumPy-style against it."""
        return Evaluator(self.ctx, self.body, self.arrays, space_of, cse, given, shapes,
                         expr_table=exprs.scalar_expr, aligned=shapes is not None)

    def store(self, v, space, expr, shape=None):
        for o in self.outs[v]:
            self.buf.writeline(f"{o}[{space.offset(shape or v.type.shape)}] = {expr}")

    def finish(self, grid, block) -> Fused:
        dtypes = [v.type.dtype for v in self.body.inputs] + \
            [c.outputs[0].type.dtype for c in self.consts] + \
            [v.type.dtype for v, names in self.outs.items() for _ in names] + \
            [w[1] for w in self.workspace]
        comment = f"kernel {self.name} ({self.kind})\n" + \
            "\n".join(f"  {line}" for line in canonical.body_lines(self.node))
        consts = self.ctx.prologue() + self.module_consts
        text = module_text(comment, consts, self.buf.lines, self.extra_imports)
        src = CudaKernelSource(self.name, text,
                               tuple(f"{NUMBA_TYPE[np.dtype(d)]}[::1]" for d in dtypes))
        return Fused(src, [c.params["value"] for c in self.consts], grid, block,
                     tuple((np.dtype(dt), n) for _, dt, n in self.workspace))
