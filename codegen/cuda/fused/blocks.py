"""Block-wide reductions on CUDA: a body's accumulators, each thread's fold, the warp fold
through shuffles, warp partials meeting in shared memory, and the elementwise epilogue at an
output element (the reduce and rowwise generators share them)."""
from __future__ import annotations

from ...kernel.buffer import CSE
from ...kernel.space import flat_space
from .. import exprs
from .. import reduction_fold as fold
from ..source import NUMBA_TYPE
from ..target import WARP


class BlockReductions:
    """Accumulators of a body's reductions and the block-wide fold that combines them
    (codegen/cuda/reduction_fold.py, the eager kernels' too)."""

    def __init__(self, k, nodes):
        self.k, self.nodes = k, nodes
        self.names = {n: f"acc{i}" for i, n in enumerate(nodes)}

    def dt(self, n):
        return fold.acc_dtype(self._kind(n), n.inputs[0].type.dtype)

    @staticmethod
    def _kind(n):
        return exprs.REDUCER_KIND[n.op][0]

    @staticmethod
    def _is_arg(n):
        return exprs.REDUCER_KIND[n.op][1]

    def _init(self, n):
        return exprs.REDUCE_INIT[self._kind(n)](self.k.ctx, self.dt(n))

    def _fold(self, n) -> fold.ReductionFold:
        """n's slots and combine step: an accumulator, or an argmax/argmin's (value, index)
        pair (at<i>, the first index of the winner; only the rows layout folds those)."""
        acc = self.names[n]
        if self._is_arg(n):
            return fold.arg(self._kind(n), n.inputs[0].type.dtype, self._init(n), acc,
                            f"at{acc[3:]}")
        return fold.plain(self._kind(n), acc, self.dt(n), f"sh{acc[3:]}", self._init(n))

    def declare(self, shape="WARPS"):
        for n in self.nodes:
            for s in self._fold(n).slots:
                self.k.buf.writeline(f"{s.shared} = cuda.shared.array({shape}, "
                                     f"{NUMBA_TYPE[s.dtype]})")

    def init(self, nodes):
        for n in nodes:
            for s in self._fold(n).slots:
                self.k.buf.writeline(f"{s.name} = {s.identity}")

    def update(self, n, v, j="j"):
        """Fold element `v` (reduced element `j`) of the reduced operand into n's accumulator."""
        v = fold.as_acc(self.dt(n), n.inputs[0].type.dtype, v)
        if not self._is_arg(n):
            self.update_raw(n, v)
            return
        f = self._fold(n)   # as another lane's pair: a later j never wins a tie
        self.k.buf.writeline(f"{f.slots[0].name}_o = {v}")
        self.k.buf.writeline(f"{f.slots[1].name}_o = int64({j})")
        f.combine(self.k.buf)

    def update_raw(self, n, v):
        """Fold `v`, already of the accumulator's dtype (a partial), into n's accumulator."""
        a = self.names[n]
        self.k.buf.writeline(f"{a} = {fold.combine(self._kind(n), a, v, self.dt(n))}")

    def fold(self, nodes, at_lane0):
        """Fold every thread's accumulators; then at_lane0() runs in thread 0 with the results
        in the accumulators (as results(nodes) names them)."""
        fold.block_fold(self.k.buf, [self._fold(n) for n in nodes], at_lane0)

    def results(self, nodes):
        return {n.output: f"at{self.names[n][3:]}" if self._is_arg(n) else
                fold.stored(n.output.type.dtype, self.names[n]) for n in nodes}


def block_setup(k, block, reds, r):
    """Module constants, shared partials and thread coordinates; `r` the first output element."""
    k.module_consts += [f"BLOCK = {block}", f"WARPS = {block // WARP}  # shared.array size", ""]
    reds.declare()
    for line in ("tid = cuda.threadIdx.x", "lane = tid % 32", "warp = tid // 32", f"r = {r}"):
        k.buf.writeline(line)


def block_prologue(k, block, reds, rows):
    block_setup(k, block, reds, "cuda.blockIdx.x")
    return k.buf.indent(f"while r < {rows}:")



def epilogue(k, red, shape):
    cse = CSE(k.buf, "e")
    rspace = flat_space(shape.rshape, "r", cse)
    ev = k.evaluator(lambda v: rspace, cse, red.results(red.nodes))
    for v in k.outs:
        k.store(v, rspace, ev.expr(v))
