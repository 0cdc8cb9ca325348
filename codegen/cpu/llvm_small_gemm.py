"""GEMMs with few rows, without packing: the products OpenBLAS runs at half its rate.

OpenBLAS packs both operands into panels before its micro-kernel runs. A product with few rows
on one side (a convolution with 8-16 output channels, an LSTM's [16, 128] @ [128, 512] step, the
gradients of either) repacks a large operand for a handful of rows, and runs at 37-55 GFLOP/s on
one core of this machine where a large square product runs ~100. These two functions read the
operands where they lie, with register tiles of accumulators that stay in registers along the
whole K loop (row-major, C = A @ B, beta 0):

- `jg_gemm_bcast_<dt>(M, N, K, A, sai, sap, B, ldb, C, ldc)`: B's rows contiguous (B[p, j] at
  B + p*ldb + j): C's tile is MR rows x NV vectors of W lanes along j; each step of p loads NV
  vectors of B's row p and broadcasts MR elements of A (any strides: A[i, p] at A + i*sai +
  p*sap, so A may be stored transposed).
- `jg_gemm_dot_<dt>(M, N, K, A, lda, B, ldb, C, ldc)`: B stored transposed (B[p, j] at
  B + j*ldb + p, as `x @ W.T`): A's rows and B's columns are contiguous along p, so C's tile is
  MR x NR dot products, each a vector of W lanes along p summed once at the end.

Tiles at the edges repeat the last row (the same values stored twice) instead of a remainder
variant; columns past the last whole vector (bcast) and p past the last whole vector (dot) take
a scalar loop. Every element is one sum over p in a fixed order that depends on K alone (not on
the tile or the block the pool gave a thread), so the bits do not depend on the thread count.
The functions are one unit compiled once per process (disk-cached like every unit) and called by
the matmul kernels by symbol, as they call sgemm (kernels/matmul._gemm picks by `use_for`).
"""
from __future__ import annotations

import contextlib
import hashlib

import numpy as np
from llvmlite import ir

from ...ir.passes.fusion_rules import IM2COL_DTYPES
from . import llvm_jit, llvm_exprs
from .llvm_exprs import I64, counted_loop, ltype
from .llvm_math import intrinsic

# per vector ISA: (vector bytes, bcast tile MR rows x NV vectors, dot tile MR x NR, packed
# bcast tile or None), register tiles whose accumulators and the operands a step loads fit the
# vector registers: AVX-512's 32 zmm hold 16 + 2 + 1 (bcast), 16 + 4 + 4 (dot) and 24 + 4 + 1
# (packed); AVX2's 16 ymm hold 12 + 2 + 1 and 9 + 3 + 3. The AVX-512 tiles on an AVX2 machine
# (znver3) need 32 accumulators in 16 registers: they spilled, and the MLP's products ran at
# 30 GFLOP/s on one core against OpenBLAS's 84. Machines without AVX2 take the AVX2 shape (LLVM
# splits its vectors). The packed form is measured on AVX-512 only (see PANEL_ROWS).
SHAPES = {"avx512f": (64, (8, 2), (4, 4), (6, 4)), "avx2": (32, (6, 2), (3, 3), None)}
MAX_ROWS = 32               # the small side (M, or N for the transposed-B form) at most this
MAX_DEPTH = 64              # or (untransposed B) K at most this: packing costs most per flop
# or, per ISA, the operand swept once per tile of the other at most this many bytes (A for
# bcast, B for dot: no cache blocking along K, so it must stay in cache). With AVX-512 (2 MB;
# the MLP's 784x512 weight is 1.6 MB) the unpacked tiles beat OpenBLAS's packed ones on the
# models' square-ish products; with AVX2 (znver3: 512 KB L2) OpenBLAS's packed row blocks were
# faster on every such product of the MLP, GPT and LSTM steps (MLP [256,512] @ [512,512] 105
# against 84 GFLOP/s, GPT's `x @ W.T` 61-94 against 47-83), so only few rows or a shallow K.
SWEPT_BYTES = {"avx512f": 2 << 20, "avx2": 0}
# With many rows (PACK_ROWS), the broadcast form copies B's columns of a tile, PANEL_ROWS rows
# of p at a time, into a contiguous panel that L1 keeps while every row tile sweeps it (B's rows
# lie a row stride apart: each step of p touched new lines, read again from L2 by every row
# tile). Sapphire Rapids, one core, interleaved in one process: the models' products 75-99 ->
# 104-155 GFLOP/s with the 6 x 4 tile over 128-row panels (8 x 2 packed: 85-129; 64- and
# 256-row panels and 4 x 6, 5 x 4, 12 x 2, 14 x 2 tiles were slower).
PANEL_ROWS = 128
PACK_ROWS = 64
# `x @ W.T` with fewer rows still packs where K is shallow: the dot form's tiles are then a few
# vector steps and 16 horizontal sums each (LSTM's h @ W_hh.T, [16,128] @ W[512,128].T: 43 ->
# 70 GFLOP/s; 12 rows 42 -> 65; 8 rows 27 -> 23: dot; K = 512 with 128 columns: dot 80, 73)
FEW_PACK_ROWS = 12
SCALAR_MACS = 1 << 16       # a product this small may run the scalar loop alone
DOT_DEPTH = 256             # below this K, `x @ W.T` with many rows transposes W first
COPY_ROWS = 128             # ... when the rows are at least this many (the copy is N*K moves
                            # against M*N*K multiply-adds: ~20 % of the product at 128 rows)
DTYPES = IM2COL_DTYPES      # what the functions compute (the fusion rule reads the same list)
FORMS = ("bcast", "dot", "bcast_t", "bcast_rows", "dot_rows")


def isa() -> str:
    """The SHAPES entry of this machine."""
    return "avx512f" if llvm_jit.host_has("avx512f") else "avx2"


def _shape() -> tuple:
    return SHAPES[isa()]


def use_for(M, N, K, ta, tb, dt, rows_table=False, cpu=None) -> str | None:
    """Which function computes the row-major product [M, K] @ [K, N] of dtype dt (A stored
    transposed when ta, B when tb), or None for BLAS: 'bcast' when B is untransposed, 'dot' when
    B is transposed and A is not, where one side is small, K is shallow, or the operand each tile
    sweeps fits in cache (SWEPT_BYTES; measured with AVX-512: the MLP step's products 130-170 ->
    150-200 GFLOP/s on two cores, GPT's step 28-29 -> 26-27 ms); 'bcast_t' for `x @ W.T` with
    many rows where the packed tiles exist (the panels' copy transposes W: the dot form ran
    such products at 37-83 GFLOP/s on one core, bcast_t at 97-138, OpenBLAS at 81-127,
    interleaved on Sapphire Rapids; OpenBLAS where A leaves L2). rows_table: B is a convolution's columns read from the
    image (an im2col operand: its rows start where a table says), which only these functions
    read: '_rows' forms at any size. cpu: the SHAPES entry to decide for (default: isa()'s)."""
    dt = np.dtype(dt)
    if dt.name not in DTYPES:
        return None
    if rows_table:
        return "dot_rows" if tb else "bcast_rows"
    if min(M, N, K) == 0:
        return None
    # the vectors run along N (bcast) or K (dot): narrower than one, the scalar loop does it
    # all, which only a tiny product affords (an x @ W with W [512, 10], JAX's layout: BLAS)
    cpu = cpu or isa()
    lanes, tiny = SHAPES[cpu][0] // dt.itemsize, M * N * K <= SCALAR_MACS
    swept, packed = SWEPT_BYTES[cpu], SHAPES[cpu][3]
    if tb and not ta and packed and N >= packed[1] * lanes and (
            M >= PACK_ROWS or (M >= FEW_PACK_ROWS and lanes <= K <= DOT_DEPTH)):
        return "bcast_t" if M * K * dt.itemsize <= swept else None   # (dot: slower than both)
    if not tb and (N >= lanes or tiny) and (M <= MAX_ROWS or K <= MAX_DEPTH
                                            or M * K * dt.itemsize <= swept):
        return "bcast"
    if tb and not ta and (K >= lanes or tiny) and (min(M, N) <= MAX_ROWS
                                                   or N * K * dt.itemsize <= swept):
        return "dot"
    return None


def transposed_first(M, N, K, ta, tb, dt) -> bool:
    """Whether `x @ W.T` runs faster as W transposed into scratch, then the broadcast form: a
    shallow K leaves the dot form's tiles a few vector steps each, then 16 horizontal sums
    (GPT's [512,128] @ W[512,128].T: 105 GFLOP/s on two cores)."""
    return (tb and not ta and K < DOT_DEPTH and M >= COPY_ROWS
            and use_for(M, N, K, ta, tb, dt) != "bcast_t"
            and use_for(M, N, K, ta, False, dt) == "bcast")


def name(form, dt) -> str:
    return f"jg_gemm_{form}_{np.dtype(dt).name}"


def _lanes(dt):
    return _shape()[0] // np.dtype(dt).itemsize


def module_text(form, dt) -> str:
    """The unit of one function."""
    mod = ir.Module(name=f"jg_small_gemm_{form}")
    if form == "bcast_t":
        _bcast_t(mod, dt)
    else:
        (_bcast if form.startswith("bcast") else _dot)(mod, dt, form.endswith("_rows"))
    return str(mod)


def called(texts) -> list[tuple[str, str]]:
    """(form, dtype) of each function the IR texts call."""
    return [(form, dt) for form in FORMS for dt in DTYPES
            if any(f'@"{name(form, dt)}"' in t or f"@{name(form, dt)}(" in t for t in texts)]


def packs(form, M) -> bool:
    """Whether function `form` packs B's panels for a product of M rows."""
    return form == "bcast_t" or (form == "bcast" and _shape()[3] is not None
                                 and M >= PACK_ROWS)


def tile(form, dt, M=0) -> tuple[int, int]:
    """(rows, columns) of C's register tile (the broadcast forms' for M rows)."""
    _, (mr, nv), dot, packed = _shape()
    if packs(form, M):
        mr, nv = packed
    return (mr, nv * _lanes(dt)) if form.startswith("bcast") else dot


def blocks(form, M, N, bsize, most) -> tuple[str, int, int]:
    """How llvm_kernels splits a product of bsize batch elements over the pool: ("n", blocks of
    rows) or ("m", blocks of columns), at most `most` units in all, each block starting at a
    multiple of the grain (the third value: a tile's columns, or an unpacked tile's rows, so that
    no block ends in a partial tile but the last; packed rows: 1). Unpacked: across the side
    with more tiles, blocks of whole tiles (a block costs no more than its share of the work;
    each re-reads the other operand from cache). A block ending mid-tile paid a scalar loop for
    its last columns (or a repeated-row tile for its last rows): the LSTM's [20,200] @ [200,800]
    step in 16 blocks of 50 columns 105 us, of 48 89 us; [20,800] @ [800,200] in 12 blocks of
    16-17 columns 134 us, of 16 91-102 us (one core, AVX2). Packed (bcast_t, or bcast with many
    rows): each block packs its own panels of B, so rows in blocks of PACK_ROWS at least where
    they make `most` blocks or more than the columns would, else columns in blocks of one tile
    at least (GPT's [512,128] products in 16 blocks of 32 rows each re-packed all of B, or fell
    back to the unpacked tiles). Rows first: a row block's epilogue runs on it while it is in
    cache (kernels/matmul._gemm), a column block's after the whole product (the MLP's [512,784]
    weight gradient with its Adam update: 1170-1230 us in 4 column blocks, 1030-1070 in 4 row
    blocks, each packing all of B)."""
    units = -(-most // bsize)
    tr, tc = tile(form, "float32", M)
    if packs(form, M):
        rows = M // PACK_ROWS >= units or N // tc <= M // PACK_ROWS
        count, ext, step = ("n", M, PACK_ROWS) if rows else ("m", N, tc)
        grain = tc if count == "m" else 1
    else:
        count, ext, step = ("n", M, tr) if M * tc >= N * tr else ("m", N, tc)
        grain = step
    return count, max(1, min(units, ext // step)), grain


def _fmuladd(b, x, y, acc):
    return intrinsic(b, "llvm.fmuladd", acc.type, x, y, acc)


def _vload(b, vty, ptr):
    v = b.load(b.bitcast(ptr, ir.PointerType(vty)))
    v.align = 4 if vty.element == ir.FloatType() else 8
    return v


def _vstore(b, value, ptr):
    s = b.store(value, b.bitcast(ptr, ir.PointerType(value.type)))
    s.align = 4 if value.type.element == ir.FloatType() else 8


def _min(b, x, y):
    return b.select(b.icmp_signed("<", x, y), x, y)


@contextlib.contextmanager
def _tiles(b, total, step):
    """for t0 in range(0, total, step) (a loop over tile starts): yields t0."""
    count = b.udiv(b.add(total, ir.Constant(I64, step - 1)), ir.Constant(I64, step))
    with counted_loop(b, count) as t:
        yield b.mul(t, ir.Constant(I64, step))


def _accumulating_loop(b, count, init, body):
    """Values carried through `for p in range(count)`: body(p, values) -> new values; returns the
    values after the loop (phi nodes, so the accumulators stay in registers)."""
    pre = b.block
    fn = b.function
    head, loop, done = (fn.append_basic_block(s) for s in ("acc_head", "acc_body", "acc_done"))
    b.branch(head)
    b.position_at_end(head)
    p = b.phi(I64)
    p.add_incoming(ir.Constant(I64, 0), pre)
    phis = []
    for v in init:
        ph = b.phi(v.type)
        ph.add_incoming(v, pre)
        phis.append(ph)
    b.cbranch(b.icmp_signed("<", p, count), loop, done)
    b.position_at_end(loop)
    new = body(p, phis)
    end = b.block
    p.add_incoming(b.add(p, ir.Constant(I64, 1), flags=("nuw", "nsw")), end)
    for ph, v in zip(phis, new):
        ph.add_incoming(v, end)
    b.branch(head)
    b.position_at_end(done)
    return phis


def _row_start(b, B, ldb, p, table):
    """Row p of B: at B + p*ldb, or at B + ldb[p] when ldb is a table of row starts."""
    return b.gep(B, [b.load(b.gep(ldb, [p])) if table else b.mul(p, ldb)])


# each function's parameters: (name, kind) with kind "i" (i64), "p" (element pointer), "ld" (B's
# row stride: an i64, or a pointer to the table of row starts in the `_rows` forms)
PARAMS = {"bcast": (("M", "i"), ("N", "i"), ("K", "i"), ("A", "p"), ("sai", "i"), ("sap", "i"),
                    ("B", "p"), ("ldb", "ld"), ("C", "p"), ("ldc", "i")),
          "dot": (("M", "i"), ("N", "i"), ("K", "i"), ("A", "p"), ("lda", "i"), ("B", "p"),
                  ("ldb", "ld"), ("C", "p"), ("ldc", "i"))}


def function_type(form, dt) -> ir.FunctionType:
    """The LLVM type of function `form` (a PARAMS key, '_rows' for the table of row starts)."""
    base, table = form.split("_")[0], form.endswith("_rows")
    kinds = {"i": I64, "p": ir.PointerType(ltype(dt)), "ld": ir.PointerType(I64) if table else I64}
    return ir.FunctionType(ir.VoidType(), [kinds[k] for _, k in PARAMS[base]])


def _begin(mod, form, dt, table):
    """(builder at the entry of the new function, its arguments by PARAMS name, element type,
    lanes, vector type)."""
    form = f"{form}_rows" if table else form
    f = ir.Function(mod, function_type(form, dt), name=name(form, dt))
    ty, W = ltype(dt), _lanes(dt)
    args = {n: a for (n, _), a in zip(PARAMS[form.split("_")[0]], f.args)}
    return ir.IRBuilder(f.append_basic_block("entry")), args, ty, W, ir.VectorType(ty, W)


def _bcast(mod, dt, table=False):
    b, args, ty, W, vty = _begin(mod, "bcast", dt, table)
    M, N, K, A, sai, sap, B, ldb, C, ldc = args.values()
    MR, NV = _shape()[1]
    c = lambda v: ir.Constant(I64, v)       # noqa: E731
    zero = ir.Constant(vty, [ir.Constant(ty, 0)] * W)

    def tiles(j0, nv):
        """C[:, j0 : j0 + nv*W] in tiles of MR rows."""
        with _tiles(b, M, MR) as i0:
            rows = [_min(b, b.add(i0, c(r)), b.sub(M, c(1))) for r in range(MR)]
            arows = [b.gep(A, [b.mul(r, sai)]) for r in rows]
            bcol = b.gep(B, [j0])

            def step(p, acc):
                brow = _row_start(b, bcol, ldb, p, table)
                bv = [_vload(b, vty, b.gep(brow, [c(v * W)])) for v in range(nv)]
                out = []
                for r in range(MR):
                    s = _broadcast(b, b.gep(arows[r], [b.mul(p, sap)]), vty)
                    out += [_fmuladd(b, s, bv[v], acc[r * nv + v]) for v in range(nv)]
                return out
            acc = _accumulating_loop(b, K, [zero] * (MR * nv), step)
            for r in range(MR):
                crow = b.gep(C, [b.add(b.mul(rows[r], ldc), j0)])
                for v in range(nv):
                    _vstore(b, acc[r * nv + v], b.gep(crow, [c(v * W)]))
    def rest(whole):
        """The columns past the whole tiles: one vector at a time, the last one ending at
        column N (it repeats columns already done, with the same sums); narrower than a
        vector: scalars."""
        wide = b.icmp_signed(">=", N, c(W))
        with b.if_else(wide) as (vectors, scalars):
            with vectors:
                with _tiles(b, b.sub(N, whole), W) as t:
                    tiles(_min(b, b.add(whole, t), b.sub(N, c(W))), 1)
            with scalars:
                with counted_loop(b, N) as j:
                    with counted_loop(b, M) as i:
                        arow = b.gep(A, [b.mul(i, sai)])

                        def scalar(p, acc):
                            a = b.load(b.gep(arow, [b.mul(p, sap)]))
                            x = b.load(b.gep(_row_start(b, B, ldb, p, table), [j]))
                            return [_fmuladd(b, a, x, acc[0])]
                        (s,) = _accumulating_loop(b, K, [ir.Constant(ty, 0)], scalar)
                        b.store(s, b.gep(C, [b.add(b.mul(i, ldc), j)]))

    def whole_tiles(span):
        return b.mul(b.udiv(N, c(span)), c(span))
    packed = _shape()[3]
    if table or packed is None:
        whole = whole_tiles(NV * W)
        with _tiles(b, whole, NV * W) as j0:
            tiles(j0, NV)
        rest(whole)
    else:
        PR, PV = packed
        panel = _panel(b, ty, PV * W)
        many = b.icmp_signed(">=", M, c(PACK_ROWS))
        whole = b.select(many, whole_tiles(PV * W), whole_tiles(NV * W))
        with b.if_else(many) as (packing, direct):
            with packing:
                with _tiles(b, whole, PV * W) as j0:
                    _packed_tiles(b, args, panel, j0, ty, W, PR, PV)
            with direct:
                with _tiles(b, whole, NV * W) as j0:
                    tiles(j0, NV)
        rest(whole)
    b.ret_void()


def _panel(b, ty, span):
    """PANEL_ROWS x span elements of stack, 64-byte aligned (32 KB: L1 keeps it)."""
    slab = b.alloca(ir.ArrayType(ty, PANEL_ROWS * span))
    slab.align = 64
    return b.bitcast(slab, ir.PointerType(ty))


def _broadcast(b, ptr, vty):
    """The element at ptr in every lane."""
    s = b.insert_element(ir.Constant(vty, ir.Undefined), b.load(ptr), ir.Constant(I64, 0))
    return b.shuffle_vector(s, ir.Constant(vty, ir.Undefined),
                            ir.Constant(ir.VectorType(ir.IntType(32), vty.count), [0] * vty.count))


def _packed_tiles(b, args, panel, j0, ty, W, MR, NV, bt=False):
    """C[:, j0 : j0 + NV*W] from B's columns copied, PANEL_ROWS rows of p at a time, into the
    contiguous `panel` (64-byte aligned) that every row tile then sweeps (bt: B stored
    transposed, B[p, j] at B + j*ldb + p, so the copy transposes). The accumulators of a later
    block of p start from C: each element is the same sum in the same order as in one pass over
    p (the bits do not depend on the packing)."""
    M, N, K, A, sai, sap, B, ldb, C, ldc = args.values()
    c = lambda v: ir.Constant(I64, v)       # noqa: E731
    vty, span = ir.VectorType(ty, W), NV * W
    zero = ir.Constant(vty, [ir.Constant(ty, 0)] * W)

    def panel_vector(p, v):
        return b.bitcast(b.gep(panel, [b.add(b.mul(p, c(span)), c(v * W))]), ir.PointerType(vty))
    with _tiles(b, K, PANEL_ROWS) as k0:
        kc = _min(b, c(PANEL_ROWS), b.sub(K, k0))
        if bt:
            _transposed_panel(b, B, ldb, panel, j0, k0, kc, span, vty)
        else:
            with counted_loop(b, kc) as p:
                src = b.gep(B, [b.add(b.mul(b.add(k0, p), ldb), j0)])
                for v in range(NV):
                    b.store(_vload(b, vty, b.gep(src, [c(v * W)])), panel_vector(p, v)).align = 64
        first = b.icmp_signed("==", k0, c(0))
        with _tiles(b, M, MR) as i0:
            rows = [_min(b, b.add(i0, c(r)), b.sub(M, c(1))) for r in range(MR)]
            arows = [b.gep(A, [b.add(b.mul(r, sai), b.mul(k0, sap))]) for r in rows]
            crows = [b.gep(C, [b.add(b.mul(r, ldc), j0)]) for r in rows]
            init = [b.select(first, zero, _vload(b, vty, b.gep(cr, [c(v * W)])))
                    for cr in crows for v in range(NV)]

            def step(p, acc):
                bv = []
                for v in range(NV):
                    bv.append(b.load(panel_vector(p, v)))
                    bv[-1].align = 64
                out = []
                for r in range(MR):
                    s = _broadcast(b, b.gep(arows[r], [b.mul(p, sap)]), vty)
                    out += [_fmuladd(b, s, bv[v], acc[r * NV + v]) for v in range(NV)]
                return out
            acc = _accumulating_loop(b, kc, init, step)
            for r in range(MR):
                for v in range(NV):
                    _vstore(b, acc[r * NV + v], b.gep(crows[r], [c(v * W)]))


def _transpose(b, vs):
    """The W x W matrix whose rows are the vectors vs, transposed: one stage per bit of the
    index, each swapping that bit of the row with that bit of the lane (two-input shuffles)."""
    W, ity = len(vs), ir.IntType(32)
    h = W // 2
    while h:
        lo = [l if not l & h else W + l - h for l in range(W)]
        hi = [l + h if not l & h else W + l for l in range(W)]
        out = list(vs)
        for i in (i for i in range(W) if not i & h):
            a, c = vs[i], vs[i + h]
            out[i] = b.shuffle_vector(a, c, ir.Constant(ir.VectorType(ity, W), lo))
            out[i + h] = b.shuffle_vector(a, c, ir.Constant(ir.VectorType(ity, W), hi))
        vs, h = out, h // 2
    return vs


def _transposed_panel(b, B, ldb, panel, j0, k0, kc, span, vty):
    """panel[p, j] = B[j0 + j, k0 + p] for p < kc, j < span: W x W blocks loaded as W rows of
    B, transposed in registers and stored as W rows of the panel; the p past the last whole
    block one element at a time."""
    c = lambda v: ir.Constant(I64, v)       # noqa: E731
    W = vty.count
    whole = b.udiv(kc, c(W))
    with counted_loop(b, c(span // W)) as jb:
        col = b.mul(jb, c(W))
        rows = [b.gep(B, [b.add(b.mul(b.add(j0, b.add(col, c(jj))), ldb), k0)])
                for jj in range(W)]
        with counted_loop(b, whole) as pb:
            at = b.mul(pb, c(W))
            vs = _transpose(b, [_vload(b, vty, b.gep(r, [at])) for r in rows])
            for pp, v in enumerate(vs):
                dst = b.gep(panel, [b.add(b.mul(b.add(at, c(pp)), c(span)), col)])
                b.store(v, b.bitcast(dst, ir.PointerType(vty))).align = 64
    with counted_loop(b, kc, b.mul(whole, c(W))) as p:
        with counted_loop(b, c(span)) as j:
            src = b.gep(B, [b.add(b.mul(b.add(j0, j), ldb), b.add(k0, p))])
            b.store(b.load(src), b.gep(panel, [b.add(b.mul(p, c(span)), j)]))


def _bcast_t(mod, dt):
    """The broadcast form of `x @ W.T` (B stored transposed), for N of at least one packed tile
    and any M: every tile packed, the last one ending at column N (it repeats columns already
    done; with the same sums in the same order it ends with the same values)."""
    b, args, ty, W, _ = _begin(mod, "bcast_t", dt, False)
    MR, NV = _shape()[3]
    span, N = NV * W, args["N"]
    panel = _panel(b, ty, span)
    c = lambda v: ir.Constant(I64, v)       # noqa: E731
    with _tiles(b, N, span) as j0:
        _packed_tiles(b, args, panel, _min(b, j0, b.sub(N, c(span))), ty, W, MR, NV, bt=True)
    b.ret_void()


def _hsum(b, v, W):
    """The sum of a vector's lanes as a halving tree (a fixed order)."""
    ity = ir.IntType(32)
    while W > 1:
        h = W // 2
        lo = b.shuffle_vector(v, v, ir.Constant(ir.VectorType(ity, h), list(range(h))))
        hi = b.shuffle_vector(v, v, ir.Constant(ir.VectorType(ity, h), list(range(h, W))))
        v, W = b.fadd(lo, hi), h
    return b.extract_element(v, ir.Constant(ity, 0))


def _dot(mod, dt, table=False):
    b, args, ty, W, vty = _begin(mod, "dot", dt, table)
    M, N, K, A, lda, B, ldb, C, ldc = args.values()
    MR, NR = _shape()[2]
    c = lambda v: ir.Constant(I64, v)       # noqa: E731
    zero = ir.Constant(vty, [ir.Constant(ty, 0)] * W)
    kv = b.udiv(K, c(W))                     # whole vectors along p
    with _tiles(b, M, MR) as i0:
        rows = [_min(b, b.add(i0, c(r)), b.sub(M, c(1))) for r in range(MR)]
        arows = [b.gep(A, [b.mul(r, lda)]) for r in rows]
        with _tiles(b, N, NR) as j0:
            cols = [_min(b, b.add(j0, c(q)), b.sub(N, c(1))) for q in range(NR)]
            bcols = [_row_start(b, B, ldb, q, table) for q in cols]

            def step(p, acc):
                at = b.mul(p, c(W))
                av = [_vload(b, vty, b.gep(a, [at])) for a in arows]
                bv = [_vload(b, vty, b.gep(x, [at])) for x in bcols]
                return [_fmuladd(b, av[r], bv[q], acc[r * NR + q])
                        for r in range(MR) for q in range(NR)]
            acc = _accumulating_loop(b, kv, [zero] * (MR * NR), step)
            sums = [_hsum(b, v, W) for v in acc]
            start = b.mul(kv, c(W))

            def tail(p, s):
                at = b.add(start, p)
                av = [b.load(b.gep(a, [at])) for a in arows]
                bv = [b.load(b.gep(x, [at])) for x in bcols]
                return [_fmuladd(b, av[r], bv[q], s[r * NR + q]) for r in range(MR) for q in range(NR)]
            sums = _accumulating_loop(b, b.sub(K, start), sums, tail)
            for r in range(MR):
                for q in range(NR):
                    b.store(sums[r * NR + q], b.gep(C, [b.add(b.mul(rows[r], ldc), cols[q])]))
    b.ret_void()


_ADDRESSES: dict = {}
_NAMES: dict = {}


def _unit(form, dt) -> str:
    """The unit name of one function: it hashes this generator's source (and llvm_exprs') and
    LLVM's version, so a warm process finds it on disk without building its IR."""
    got = _NAMES.get((form, dt))
    if got is None:
        h = hashlib.sha256(llvm_jit.versions().encode())
        for module in (__file__, llvm_exprs.__file__):
            with open(module, "rb") as f:
                h.update(f.read())
        got = _NAMES[form, dt] = f"jg_small_gemm_{form}_{np.dtype(dt).name}_{h.hexdigest()[:16]}"
    return got


def needs_build(form, dt) -> bool:
    """Whether registering the function would compile it (neither loaded nor on disk)."""
    return name(form, dt) not in _ADDRESSES and not llvm_jit.has_code(_unit(form, dt))


def register(form, dt) -> None:
    """Compile the function's unit (or load it from the disk cache) once per process and make it
    resolve by name in every unit compiled after (llvm_jit.add_symbol), as the BLAS symbols do;
    called before a matmul unit that calls it loads (codegen/cpu/units.py; unit_prefetch builds
    it in its child first)."""
    fname = name(form, dt)
    if fname in _ADDRESSES:
        return
    (addr,), _ = llvm_jit.compile_ir(_unit(form, dt), lambda: module_text(form, dt), [fname],
                                     vectorized=True)
    llvm_jit.add_symbol(fname, addr)
    _ADDRESSES[fname] = addr


def address(form, dt) -> int:
    """The function's address in this process (registered first): for benchmarks and tests."""
    register(form, dt)
    return _ADDRESSES[name(form, dt)]
