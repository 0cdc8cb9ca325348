"""Matmul kernels on CUDA: shared-memory tiles (codegen/cuda/tiles.py; tensor cores for float32)
over the MatmulNest's product, the elementwise epilogue applied to each accumulator before its
only store, K split into shares when the output tiles would leave SMs idle (k_split)."""
from __future__ import annotations

import functools
import math

import numpy as np

from ...kernel.buffer import CSE
from ...kernel.nest import matmul_nest
from ...kernel.space import Space, flat_space
from .. import target
from .. import tiles as TL
from ..source import NUMBA_TYPE
from .fused_kernel import Fused, FusedKernel

# a product with fewer tiles than the target's SMs splits K (k_split) into shares for two
# blocks per SM (a matmul block takes 24K of an SM's 64K registers) ...
SPLIT_K_TILES = 4          # ... each summing at least this many K-tiles ...
MAX_K_SPLIT = 32           # ... in at most this many shares


def _rows_table(k, operand):
    """The module constant holding an im2col operand's row starts (MatmulOperand.rows: row r of
    the columns starts at ROWS[r] in its image), or None for an operand read as stored."""
    if operand.im2col is None:
        return None
    table = f"ROWS{len(k.module_consts)}"
    k.module_consts += [f"{table} = np.array({operand.rows}, dtype=np.int64)", ""]
    return table


def _operand_base(bspace, nest, operand) -> str:
    """Where batch element `bat` of a MatmulOperand starts: its offset plus the batch indices
    times its strides (MatmulNest.batch_strides)."""
    dims = [(d, s) for d, s in enumerate(nest.batch_strides(operand)) if s]
    at = bspace.dot([d for d, _ in dims], [s for _, s in dims]) if dims else "0"
    return f"({at} + {operand.offset})" if operand.offset else f"({at})"


def k_split(M, N, K, batch, dt) -> int:
    """How many shares of K a product's tiles are summed in (split-K): 1 when its tiles fill
    the target's SMs; else enough shares for two blocks per SM, each summing SPLIT_K_TILES
    K-tiles at least (its partial tile costs a store and a load per output), float products only
    (the partials are read back with atomics)."""
    rm, rn = TL.matmul_regs(M, N)
    T = TL.MM_THREADS
    tiles = -(-M // (T * rm)) * -(-N // (T * rn)) * max(1, math.prod(batch))
    sms = target.current().sms
    if tiles >= sms or np.dtype(dt) not in (np.dtype("float32"), np.dtype("float64")):
        return 1
    return max(1, min(-(-2 * sms // tiles), -(-K // TL.BK) // SPLIT_K_TILES, MAX_K_SPLIT))


def gen_matmul(name, node) -> Fused:
    """o = a @ b (+ epilogue) in (16 rm, 16 rn) tiles (codegen/cuda/tiles.py: tensor cores for
    float32) over the MatmulNest's product, one batch element per grid.z, the epilogue applied
    to each accumulator before its only store. A product whose tiles leave SMs idle sums K in
    SPLIT shares (grid.z: batch element x share): each block stores its partial tile, and the
    last block of a tile (an atomic ticket) sums the partials in share order and applies the
    epilogue."""
    k = FusedKernel(name, node, "matmul")
    nest = matmul_nest(k.body)
    mm, M, N, Kdim, batch = nest.node, nest.M, nest.N, nest.K, nest.batch
    D, dt = mm.output.type.shape, mm.output.type.dtype
    T = TL.MM_THREADS
    rm, rn = TL.matmul_regs(M, N)
    tiles = TL.tiles_for(dt, rm, rn)
    split = k_split(M, N, Kdim, batch, dt)
    k.kind = f"matmul: {tiles.kind}" + (f", K in {split} shares" if split > 1 else "")
    a, b = k.arrays[nest.a.value], k.arrays[nest.b.value]
    at, bt = nest.a.transposed, nest.b.transposed
    brows = _rows_table(k, nest.b)      # only B is an im2col (fusion_rules.im2col_operand_ok)
    k.module_consts += tiles.consts()
    grid = (max(1, -(-N // (T * rn))), max(1, -(-M // (T * rm))), max(1, math.prod(batch)))
    tile_count = math.prod(grid)
    if split > 1:       # a slot per share, tile, thread and output of the thread; a ticket per tile
        k.module_consts += [f"SPLIT = {split}  # shares of K per output tile", ""]
        k.workspace += [("parts", np.dtype(dt), split * tile_count * T * T * tiles.per_thread),
                        ("ticket", np.dtype("int32"), tile_count)]
    buf = k.buf
    with k.header():
        tiles.prologue(buf, NUMBA_TYPE[np.dtype(dt)], split > 1)
        if brows is not None:
            buf.writeline(f"rows_b = cuda.const.array_like({brows})")
        cse = CSE(buf, "b")
        bspace = flat_space(batch, "bat", cse)
        abase, bbase = (_operand_base(bspace, nest, x) for x in (nest.a, nest.b))

        def store(n, acc):
            ecse = CSE(buf, f"e{n}_", cse)
            space = Space(D, [functools.partial(bspace.index, d) for d in range(len(batch))]
                          + ["row", "col"], ecse)
            ev = k.evaluator(lambda v: space, ecse, {mm.output: acc})
            for v in nest.outputs:
                if nest.store and v is nest.store[0]:   # the product, at the store's strides
                    at = space.dot(range(len(D)), (*nest.store[1], nest.store[2], 1))
                    for o in k.outs[v]:
                        buf.writeline(f"{o}[{at}] = {acc}")
                else:
                    k.store(v, space, ev.expr(v))
        operands = ((a, abase, at, nest.a.ld),
                    (b, bbase, bt, nest.b.ld, None if brows is None else "rows_b"))
        zero = k.ctx.const(0, dt)
        if split == 1:
            tiles.main(buf, zero, *operands, (M, N, Kdim), store)
        else:
            _split_k(k, tiles, split, (M, N, Kdim), grid, operands, store, zero)
    return k.finish(grid[:2] + (grid[2] * split,), (T, T))


def _split_k(k, tiles, split, dims, grid, operands, store, zero):
    """Share `ks` of K summed into a partial tile (workspace `parts`); the last block of the
    tile (workspace `ticket`) sums the shares in order and stores through `store`."""
    M, N, K = dims
    buf = k.buf
    tile_count = math.prod(grid)
    chunk = -(-(-(-K // TL.BK)) // split) * TL.BK       # K per share: whole K-tiles
    per_tile = TL.MM_THREADS ** 2 * tiles.per_thread
    buf.writeline("last = cuda.shared.array(1, int32)")
    buf.writeline(f"tile = (bat * {grid[1]} + cuda.blockIdx.y) * {grid[0]} + cuda.blockIdx.x")

    def slot(share, n):
        return f"({share} * {tile_count} + tile) * {per_tile} + t * {tiles.per_thread} + {n}"

    def publish(n, acc):
        buf.writeline(f"parts[{slot('ks', n)}] = {acc}")
    tiles.main(buf, zero, *operands, dims, publish,
               (f"ks * {chunk}", f"min({K}, ks * {chunk} + {chunk})"))
    buf.writeline("cuda.threadfence()   # partials visible before the ticket")
    buf.writeline("cuda.syncthreads()")
    with buf.indent("if t == 0:"):
        buf.writeline("last[0] = 1 if cuda.atomic.add(ticket, tile, 1) == SPLIT - 1 else 0")
    buf.writeline("cuda.syncthreads()")

    def finish(n, _):
        buf.writeline(f"ksum = {zero}")
        with buf.indent("for kp in range(SPLIT):   # in share order: the same bits every run"):
            # an atomic read comes from L2, never a stale L1 line
            buf.writeline(f"ksum += cuda.atomic.add(parts, {slot('kp', n)}, {zero})")
        store(n, "ksum")
    with buf.indent("if last[0] == 1:   # every share of this tile has published"):
        tiles.outputs(buf, M, N, finish)
        with buf.indent("if t == 0:"):
            buf.writeline("ticket[tile] = 0   # ready for the next launch")
