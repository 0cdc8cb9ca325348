"""Block-wide reductions on CUDA: a body's accumulators, each thread's fold, the warp fold
through shuffles, warp partials meeting in shared memory, and the elementwise epilogue at an
output element (the reduce and rowwise generators share them)."""
from __future__ import annotations

from ....ir.types import is_bool
from ...kernel.buffer import CSE
from ...kernel.space import flat_space
from .. import exprs
from .. import kernels as KK
from ..kernels import WARP
from ..source import NUMBA_TYPE


class BlockReductions:
    """Accumulators of a body's reductions and the block-wide fold that combines them."""

    def __init__(self, k, nodes):
        self.k, self.nodes = k, nodes
        self.names = {n: f"acc{i}" for i, n in enumerate(nodes)}

    def dt(self, n):
        return KK.acc_dtype(exprs.REDUCER_KIND[n.op][0], n.inputs[0].type.dtype)

    def _init(self, n):
        return exprs.REDUCE_INIT[exprs.REDUCER_KIND[n.op][0]](self.k.ctx, self.dt(n))

    def _combine(self, n, acc, v):
        dt = self.dt(n)
        e = exprs.REDUCE_COMBINE[exprs.REDUCER_KIND[n.op][0]](acc, v, dt)
        return f"np.{dt.name}({e})" if dt.kind == "i" else e   # numba widens int32 arithmetic

    def declare(self, shape="WARPS"):
        for n in self.nodes:
            self.k.buf.writeline(f"sh{self.names[n][3:]} = cuda.shared.array({shape}, "
                                 f"{NUMBA_TYPE[self.dt(n)]})")

    def init(self, nodes):
        for n in nodes:
            self.k.buf.writeline(f"{self.names[n]} = {self._init(n)}")

    def update(self, n, v):
        """Fold element `v` of the reduced operand into n's accumulator."""
        self.update_raw(n, KK.as_acc(self.dt(n), n.inputs[0].type.dtype, v))

    def update_raw(self, n, v):
        """Fold `v`, already of the accumulator's dtype (a partial), into n's accumulator."""
        self.k.buf.writeline(f"{self.names[n]} = {self._combine(n, self.names[n], v)}")

    def _warp_fold(self, nodes):
        buf = self.k.buf
        with buf.indent("for offset in (16, 8, 4, 2, 1):"):
            for n in nodes:   # every lane shuffles exactly once per step, outside conditionals
                a = self.names[n]
                buf.writeline(f"{a}_o = {KK.shuffle_down(a, self.dt(n))}")
                buf.writeline(f"{a} = {self._combine(n, a, a + '_o')}")

    def fold(self, nodes, at_lane0):
        """Fold every thread's accumulators; then at_lane0() runs in thread 0 with the results
        in the accumulators (as results(nodes) names them)."""
        buf = self.k.buf
        self._warp_fold(nodes)
        with buf.indent("if lane == 0:"):
            for n in nodes:
                buf.writeline(f"sh{self.names[n][3:]}[warp] = {self.names[n]}")
        buf.writeline("cuda.syncthreads()")
        with buf.indent("if warp == 0:"):
            for n in nodes:
                a = self.names[n]
                buf.writeline(f"{a} = sh{a[3:]}[lane] if lane < WARPS else {self._init(n)}")
            self._warp_fold(nodes)
            with buf.indent("if lane == 0:"):
                at_lane0()

    def results(self, nodes):
        return {n.output: f"({self.names[n]} != 0)" if is_bool(n.output.type.dtype)
                else self.names[n] for n in nodes}


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
