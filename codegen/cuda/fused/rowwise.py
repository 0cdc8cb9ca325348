"""Rowwise kernels on CUDA (softmax, layernorm): one block per row, one pass over the row per
reduction level, each level's block reductions broadcast to the block through shared memory,
per-row values computed once per row, rows cached in shared memory when they fit."""
from __future__ import annotations

from ....ir.types import is_bool
from ...kernel.buffer import CSE
from ...kernel.nest import row_nest
from ...kernel.space import flat_space, rows_space
from .. import vectorize as VV
from ..source import NUMBA_TYPE
from .blocks import BlockReductions, block_prologue
from ..target import threads_for
from .fused_kernel import MAX_BLOCKS, Fused, FusedKernel

ROW_CACHE_BYTES = 32768    # a rowwise kernel keeps rows up to this size in shared memory


def gen_rowwise(name, node) -> Fused:
    k = FusedKernel(name, node, "rowwise")
    nest = row_nest(k.body)
    reds, xshape, L, rows = list(nest.reds), nest.domain, nest.L, nest.rows
    level, per_row, passes = nest.level, nest.per_row, nest.passes
    # per-row values read by row elements, handed to the element passes once computed
    feeds = [v for n in k.body.nodes if n.output not in per_row for v in n.inputs
             if v in per_row]
    elem_outs = {v: names for v, names in k.outs.items() if v not in per_row}
    vp = VV.plan(k.arrays, elem_outs, rows * L)
    if vp is not None and L % vp.lanes:     # rows must start on whole groups
        vp = None
    block = threads_for(L // vp.lanes if vp else L)
    red = BlockReductions(k, reds)
    cached = _row_cache(k, passes, L, rows)
    row = _RowPass(k, xshape, block, cached, red, elem_outs, level)
    with k.header():
        for v, name in cached.items():
            k.buf.writeline(f"{name} = cuda.shared.array(ROW, {NUMBA_TYPE[v.type.dtype]})")
        if vp is not None:
            k.kind += f", {vp.lanes}-wide vectors"
            k.extra_imports.append(VV.IMPORT)
            k.buf.writeline(f"vec = {VV.aligned_check(k.arrays, elem_outs, vp)}   # once per launch")
        with block_prologue(k, block, red, rows):
            rcse = CSE(k.buf, "r")
            rspace = flat_space(xshape[:-1], "r", rcse)
            given = {}
            for p in range(passes):
                mine = [n for n in reds if level[n.inputs[0]] == p]
                rev = k.evaluator(lambda v: rspace, rcse, given)
                g = {v: rev.expr(v) for v in dict.fromkeys(feeds) if level[v] <= p}
                red.init(mine)
                if vp is None:
                    row.scalar(p, rcse, {**given, **g}, mine)
                else:
                    with k.buf.indent("if vec:"):
                        row.vectors(p, rcse, {**given, **g}, mine, vp)
                    with k.buf.indent("else:"):
                        row.scalar(p, rcse, {**given, **g}, mine)
                if mine:
                    def publish():
                        for n in mine:
                            k.buf.writeline(f"sh{red.names[n][3:]}[0] = {red.names[n]}")
                    red.fold(mine, publish)
                    k.buf.writeline("cuda.syncthreads()")
                    for n in mine:   # every thread reads the row's result
                        k.buf.writeline(f"{red.names[n]} = sh{red.names[n][3:]}[0]")
                    given.update(red.results(mine))
            row_outs = [v for v in k.outs if v in per_row]
            if row_outs:
                with k.buf.indent("if tid == 0:"):
                    cse = CSE(k.buf, "e", rcse)
                    ev = k.evaluator(lambda v: rspace, cse, given)
                    for v in row_outs:
                        k.store(v, rspace, ev.expr(v))
            k.buf.writeline("cuda.syncthreads()   # the shared slots are reused next row")
            k.buf.writeline("r += cuda.gridDim.x")
    return k.finish((max(1, min(rows, MAX_BLOCKS)),), (block,))


class _RowPass:
    """One pass of a rowwise kernel over the elements of row r: scalar (j = tid, tid + block, ...)
    or in 128-bit groups (group j of the row, lanes j*lanes ... j*lanes + lanes - 1)."""

    def __init__(self, k, xshape, block, cached, red, elem_outs, level):
        self.k, self.xshape, self.block, self.cached = k, xshape, block, cached
        self.red, self.elem_outs, self.level = red, elem_outs, level

    def _element(self, p, col, cse, given, mine, lanes=None):
        """The pass's work at column `col`: cache fills, reductions, this level's outputs; returns
        {output: expression} (stored by the caller)."""
        k = self.k
        xspace = rows_space(self.xshape, "r", col, cse)
        # each thread rereads only the elements it cached: no syncthreads needed
        reread = {v: cse.get(f"{name}[{col}]") for v, name in self.cached.items() if p}
        # x / s divides, as the CPU does (codegen/kernel/exprs.py): no x * (1/s) rewrite, so
        # softmax and layernorm agree bit for bit across targets
        ev = self.k.evaluator(lambda v: xspace, cse, {**given, **(lanes or {}), **reread})
        for v, name in self.cached.items():
            if not p:
                k.buf.writeline(f"{name}[{col}] = {ev.expr(v)}")
        for n in mine:
            self.red.update(n, ev.expr(n.inputs[0]))
        return {v: ev.expr(v) for v in self.elem_outs if self.level[v] == p}

    def scalar(self, p, rcse, given, mine):
        k = self.k
        k.buf.writeline("j = tid")
        with k.buf.indent(f"while j < {self.xshape[-1]}:"):
            cse = CSE(k.buf, "t", rcse)
            xspace = rows_space(self.xshape, "r", "j", cse)
            for v, e in self._element(p, "j", cse, given, mine).items():
                k.store(v, xspace, e)
            k.buf.writeline(f"j += {self.block}")

    def vectors(self, p, rcse, given, mine, vp):
        k, n = self.k, vp.lanes
        groups = self.xshape[-1] // n
        loads = VV.VectorPlan(n, tuple(v for v in vp.loads if not (p and v in self.cached)))
        k.buf.writeline("j = tid")
        with k.buf.indent(f"while j < {groups}:"):
            gcse = CSE(k.buf, "t", rcse)
            group = gcse.get(f"r * {groups} + j")
            lanes = VV.load_group(k.buf, k.arrays, loads, group)
            results = {}
            for lane in range(n):
                cse = CSE(k.buf, f"l{lane}_", gcse)
                col = cse.get(f"j * {n} + {lane}")
                mine_lane = self._element(p, col, cse, given, mine,
                                          {v: names[lane] for v, names in lanes.items()})
                for v, e in mine_lane.items():
                    results.setdefault(v, []).append(e)
            VV.store_group(k.buf, {v: self.elem_outs[v] for v in results}, vp, group, results)
            k.buf.writeline(f"j += {self.block}")


def _row_cache(k, passes, L, rows) -> dict:
    """{input: shared array name} for the row-sized inputs a multi-pass rowwise kernel keeps in
    shared memory after its first pass reads them, when the row fits ROW_CACHE_BYTES."""
    if passes < 2:
        return {}
    row_inputs = [v for v in k.body.inputs if v.type.size == rows * L and not is_bool(v.type.dtype)]
    if not row_inputs or L * sum(v.type.dtype.itemsize for v in row_inputs) > ROW_CACHE_BYTES:
        return {}
    k.kind = "rowwise: row cached in shared memory"
    k.module_consts += [f"ROW = {L}  # elements of a cached row", ""]
    return {v: f"row{i}" for i, v in enumerate(row_inputs)}
