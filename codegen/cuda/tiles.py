"""How one block of a CUDA matmul computes its (BM, BN) tile of outputs: the operands' tiles pass
through shared memory (the same staging for every tiling), and a tiling says who multiplies what.

    FfmaTiles         each of the block's 16 x 16 threads keeps rm x rn outputs (rows ty + 16i,
                      columns tx + 16j) and multiplies with FFMA; every dtype
    TensorCoreTiles   each warp keeps TM x TN tiles of 16 x 8 outputs and multiplies them with
                      `mma.sync.m16n8k8` on TF32 (codegen/cuda/mma.py); float32 only. With the
                      option float32_matmul_precision "highest" (the default) each operand is
                      split into a TF32 head and a TF32 tail (x = head + tail + O(2^-22 x)) and a
                      step is three products, tail*head + head*tail + head*head (3xTF32, as
                      CUTLASS's): float32's accuracy at tensor-core speed; "high" keeps only
                      head*head (PyTorch's allow_tf32)

A block is 16 x 16 threads (8 warps); its tile is (16 rm) x (16 rn) with rm, rn in {1, 4}
(matmul_regs: 4 along a side long enough to fill it), BK = 16. The tensor-core tiling arranges
the 8 warps over the tile's (BM / 16) x (BN / 8) mma tiles: 2 x 4 warps of 2 x 2 tiles for
64 x 64, one tile per warp for 64 x 16 and 16 x 64, two warps for 16 x 16 (the other six only
stage operands).

The interface fused.gen_matmul, its split-K and kernels.matmul_tiled use:
  consts()                      module constants (BM, BN, BK, the shared tiles' padded widths)
  prologue(buf, nt, split)      shared tiles and the thread's coordinates (bat, row0, col0, t)
  main(buf, zero, a, b, dims, store, k_range)
                                the product over K (or a share of it), then outputs(..., store)
  outputs(buf, M, N, body)      body(n, acc) for each output n of the thread inside the product
                                (`row`, `col` set; again in split-K's last block)
  per_thread                    outputs per thread (n < per_thread)
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from ...ir import config

MM_THREADS = 16        # matmul blocks are MM_THREADS x MM_THREADS threads ...
MM_REGS = 4            # ... each computing up to MM_REGS x MM_REGS outputs (FFMA tiling)
BK = MM_THREADS        # K per staged step (a block of threads x threads stages `threads` of K)
WARPS = MM_THREADS * MM_THREADS // 32
MMA_M, MMA_N, MMA_K = 16, 8, 8


def matmul_regs(m, n, threads=MM_THREADS) -> tuple:
    """Outputs per thread along rows and columns: MM_REGS along a side long enough to fill it."""
    return tuple(MM_REGS if side >= threads * MM_REGS else 1 for side in (m, n))


def tiles_for(dtype, rm, rn, threads=MM_THREADS, precision=None):
    """The tiling of a (threads rm, threads rn) block tile of a product of dtype: tensor cores
    for float32 in 16 x 16 blocks (split three ways unless `precision`, by default the option
    float32_matmul_precision, allows TF32), FFMA else (other dtypes; smaller blocks, as the
    simulator tests use)."""
    if np.dtype(dtype) == np.dtype("float32") and threads == MM_THREADS:
        precision = precision or config.read("float32_matmul_precision")
        return TensorCoreTiles(rm, rn, split=precision == "highest")
    return FfmaTiles(rm, rn, threads)


@dataclass(frozen=True)
class _Staged:
    """The shared staging of both tilings: per K step a (BM, BK) tile of a and a (BK, BN) tile
    of b pass through shared memory, each operand loaded along its contiguous axis, out-of-range
    elements as zeros (edge tiles need no special case)."""
    rm: int
    rn: int
    threads: int = MM_THREADS

    @property
    def bm(self):
        return self.threads * self.rm

    @property
    def bn(self):
        return self.threads * self.rn

    def consts(self) -> list:
        pad_k, pad_n = self.pads
        bk = self.threads
        return [f"BM = {self.bm}", f"BN = {self.bn}", f"BK = {bk}", f"PAD_BK = {bk + pad_k}",
                f"PAD_BN = {self.bn + pad_n}  # shared.array sizes must be literals", ""]

    def prologue(self, buf, nt, split=False):
        """Shared tiles and thread coordinates; `split`: grid.z is batch element x SPLIT shares
        of K (`ks`: this block's share)."""
        buf.writeline(f"a_tile = cuda.shared.array((BM, PAD_BK), {nt})")
        buf.writeline(f"b_tile = cuda.shared.array((BK, PAD_BN), {nt})")
        z = ["bat = cuda.blockIdx.z // SPLIT", "ks = cuda.blockIdx.z % SPLIT"] if split \
            else ["bat = cuda.blockIdx.z"]
        for line in ("tx = cuda.threadIdx.x", "ty = cuda.threadIdx.y",
                     f"t = ty * {self.threads} + tx", *z,
                     "row0 = cuda.blockIdx.y * BM", "col0 = cuda.blockIdx.x * BN"):
            buf.writeline(line)

    def main(self, buf, zero, a, b, dims, store, k_range=None):
        """The product after prologue. `a`, `b`: (name, base offset, transposed, row stride of
        the stored matrix), b optionally with the name of a table of its rows' starts (an im2col
        operand); `dims`: M, N, K as
        code; `k_range`: (first, end) of the share of K this block sums (first a multiple of
        BK), else all of it."""
        M, N, Kd = dims
        accs = self.setup(buf, zero)
        loads = self._stage_setup(buf, zero, a, b, dims)
        first, end = k_range or (0, Kd)
        with buf.indent(f"for k0 in range({first}, {end}, BK):"):
            buf.writeline("# out-of-range loads are zeros, so edge tiles need no special case")
            buf.writelines(loads)
            buf.writeline("cuda.syncthreads()")
            self.step(buf, accs)
            buf.writeline("cuda.syncthreads()")
        self.outputs(buf, M, N, store)

    def _stage_setup(self, buf, zero, a, b, dims) -> list:
        """Before the K loop, each staged element's tile cell, whether its row (column) of the
        operand exists, and its offset at k0 = 0 (loop invariants written once: the loop adds
        k0 times the operand's K stride and checks only K); returns the loop's load lines. An
        offset is an unsigned index, so numba emits no negative-index wraparound."""
        T = self.threads
        M, N, Kd = dims
        (a, abase, at, lda), (b, bbase, bt, ldb, *brows) = a, b
        brows = brows[0] if brows else None

        def cell(q, rows, cols, transposed):
            """(row, column) in an (rows, cols) tile of staged element q: consecutive threads
            take consecutive elements of the operand's contiguous axis."""
            e = f"(t + {T * T * q})"
            return (f"{e} % {rows}", f"{e} // {rows}") if transposed \
                else (f"{e} // {cols}", f"{e} % {cols}")
        lines = []
        for q in range(self.rm):     # the (BM, BK) tile of a: rm elements per thread
            m, k = cell(q, "BM", "BK", at)
            buf.writelines([f"am{q} = {m}", f"ak{q} = {k}", f"ain{q} = row0 + am{q} < {M}"])
            start = f"ak{q} * {lda} + row0 + am{q}" if at else f"(row0 + am{q}) * {lda} + ak{q}"
            buf.writeline(f"aat{q} = {abase} + {start}")
            step = f"k0 * {lda}" if at else "k0"
            lines.append(f"a_tile[am{q}, ak{q}] = {a}[np.uint64(aat{q} + {step})] "
                         f"if ain{q} and k0 + ak{q} < {Kd} else {zero}")
        for q in range(self.rn):     # the (BK, BN) tile of b: rn elements per thread
            k, n = cell(q, "BK", "BN", bt)
            buf.writelines([f"bk{q} = {k}", f"bn{q} = {n}", f"bin{q} = col0 + bn{q} < {N}"])
            if brows is not None:       # row starts from the table: read per step
                src = (f"{brows}[col0 + bn{q}] + k0 + bk{q}" if bt
                       else f"{brows}[k0 + bk{q}] + col0 + bn{q}")
                at_k = f"{bbase} + {src}"
            else:
                start = f"(col0 + bn{q}) * {ldb} + bk{q}" if bt else f"bk{q} * {ldb} + col0 + bn{q}"
                buf.writeline(f"bat{q} = {bbase} + {start}")
                at_k = f"bat{q} + " + ("k0" if bt else f"k0 * {ldb}")
            lines.append(f"b_tile[bk{q}, bn{q}] = {b}[np.uint64({at_k})] "
                         f"if bin{q} and k0 + bk{q} < {Kd} else {zero}")
        return lines


@dataclass(frozen=True)
class FfmaTiles(_Staged):
    pads = (1, 1)       # one column against bank conflicts

    @property
    def kind(self):
        return f"{self.bm}x{self.bn} tiles, {self.rm}x{self.rn} outputs per thread"

    @property
    def per_thread(self):
        return self.rm * self.rn

    def setup(self, buf, zero) -> list:
        accs = [f"acc{i}_{j}" for i in range(self.rm) for j in range(self.rn)]
        for acc in accs:
            buf.writeline(f"{acc} = {zero}")
        return accs

    def step(self, buf, accs):
        T = self.threads
        with buf.indent("for kk in range(BK):"):
            for i in range(self.rm):     # (fa/fb: the fused kernels' temporaries are b<n>)
                buf.writeline(f"fa{i} = a_tile[ty + {T * i}, kk]")
            for j in range(self.rn):
                buf.writeline(f"fb{j} = b_tile[kk, tx + {T * j}]")
            for n, acc in enumerate(accs):
                buf.writeline(f"{acc} += fa{n // self.rn} * fb{n % self.rn}")

    def outputs(self, buf, M, N, body):
        T = self.threads
        for n in range(self.per_thread):
            i, j = divmod(n, self.rn)
            buf.writeline(f"row = row0 + ty + {T * i}")
            buf.writeline(f"col = col0 + tx + {T * j}")
            with buf.indent(f"if row < {M} and col < {N}:"):
                body(n, f"acc{i}_{j}")


@dataclass(frozen=True)
class TensorCoreTiles(_Staged):
    split: bool = True      # 3xTF32 (float32_matmul_precision "highest") or one TF32 product
    # rows padded by 4 words: a fragment's 32 reads a_tile[g, q] (g < 8, q < 4) hit 32 banks;
    # b_tile's rows by 8: b_tile[q, g] likewise
    pads = (4, 8)

    @property
    def layout(self):
        """(warp rows, warp columns, mma tiles per warp along M, along N)."""
        mt, nt = self.bm // MMA_M, self.bn // MMA_N
        if mt * nt >= 4 * WARPS:        # 64 x 64: 2 x 4 warps of 2 x 2 tiles
            return 2, 4, mt // 2, nt // 4
        return mt, nt, 1, 1

    @property
    def kind(self):
        wm, wn, tm, tn = self.layout
        how = "3xTF32" if self.split else "TF32"
        return (f"{self.bm}x{self.bn} tiles, tensor cores ({how}), {wm}x{wn} warps of "
                f"{tm}x{tn} mma tiles")

    @property
    def per_thread(self):
        _, _, tm, tn = self.layout
        return tm * tn * 4

    def _active(self):
        wm, wn, _, _ = self.layout
        return None if wm * wn == WARPS else f"warp < {wm * wn}"

    def setup(self, buf, zero) -> list:
        wm, wn, tm, tn = self.layout
        buf.writelines(["warp = t // 32", "lg = (t % 32) // 4", "lq = t % 4",
                        f"wrow = (warp // {wn}) * {tm * MMA_M}",
                        f"wcol = (warp % {wn}) * {tn * MMA_N}"])
        # (acc<n>: the fused kernels' array constants are c<n>)
        accs = [f"acc{n}" for n in range(self.per_thread)]
        for acc in accs:
            buf.writeline(f"{acc} = {zero}")
        return accs

    def step(self, buf, accs):
        _, _, tm, tn = self.layout
        active = self._active()
        mma = "mma_tf32x3" if self.split else "mma_tf32"
        with (buf.indent(f"if {active}:   # the other warps only stage") if active
              else contextlib.nullcontext()):
            for k8 in range(0, self.threads, MMA_K):    # unrolled: one loop body per step
                for i in range(tm):
                    for j in range(tn):
                        c = ", ".join(accs[(i * tn + j) * 4 + r] for r in range(4))
                        buf.writeline(f"{c} = {mma}(a_tile, wrow + {i * MMA_M}, {k8}, b_tile, "
                                      f"{k8}, wcol + {j * MMA_N}, lg, lq, {c})")

    def outputs(self, buf, M, N, body):
        _, _, tm, tn = self.layout
        guard = " and ".join(filter(None, (self._active(), f"row < {M}", f"col < {N}")))
        for n in range(self.per_thread):
            tile, r = divmod(n, 4)
            i, j = divmod(tile, tn)
            buf.writeline(f"row = row0 + wrow + {i * MMA_M + 8 * (r // 2)} + lg")
            buf.writeline(f"col = col0 + wcol + {j * MMA_N + r % 2} + 2 * lq")
            with buf.indent(f"if {guard}:"):
                body(n, f"acc{n}")

