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
the matmul kernels by symbol, as they call sgemm (llvm_kernels._gemm picks by `use_for`).
"""
from __future__ import annotations

import contextlib
import functools
import hashlib

import numpy as np
from llvmlite import ir

from ...ir.passes.fusion_rules import IM2COL_DTYPES
from . import llvm_jit, llvm_exprs
from .llvm_exprs import I64, counted_loop, ltype
from .llvm_math import intrinsic

# per vector ISA: (vector bytes, bcast tile MR rows x NV vectors, dot tile MR x NR), register
# tiles whose accumulators and the operands a step loads fit the vector registers: AVX-512's
# 32 zmm hold 16 + 2 + 1 (bcast) and 16 + 4 + 4 (dot); AVX2's 16 ymm hold 12 + 2 + 1 and
# 9 + 3 + 3. The AVX-512 tiles on an AVX2 machine (znver3) need 32 accumulators in 16
# registers: they spilled, and the MLP's products ran at 30 GFLOP/s on one core against
# OpenBLAS's 84. Machines without AVX2 take the AVX2 shape (LLVM splits its vectors).
SHAPES = {"avx512f": (64, (8, 2), (4, 4)), "avx2": (32, (6, 2), (3, 3))}
MAX_ROWS = 32               # the small side (M, or N for the transposed-B form) at most this
MAX_DEPTH = 64              # or (untransposed B) K at most this: packing costs most per flop
# or, per ISA, the operand swept once per tile of the other at most this many bytes (A for
# bcast, B for dot: no cache blocking along K, so it must stay in cache). With AVX-512 (2 MB;
# the MLP's 784x512 weight is 1.6 MB) the unpacked tiles beat OpenBLAS's packed ones on the
# models' square-ish products; with AVX2 (znver3: 512 KB L2) OpenBLAS's packed row blocks were
# faster on every such product of the MLP, GPT and LSTM steps (MLP [256,512] @ [512,512] 105
# against 84 GFLOP/s, GPT's `x @ W.T` 61-94 against 47-83), so only few rows or a shallow K.
SWEPT_BYTES = {"avx512f": 2 << 20, "avx2": 0}
SCALAR_MACS = 1 << 16       # a product this small may run the scalar loop alone
DOT_DEPTH = 256             # below this K, `x @ W.T` with many rows transposes W first
COPY_ROWS = 128             # ... when the rows are at least this many (the copy is N*K moves
                            # against M*N*K multiply-adds: ~20 % of the product at 128 rows)
DTYPES = IM2COL_DTYPES      # what the functions compute (the fusion rule reads the same list)
FORMS = ("bcast", "dot", "bcast_rows", "dot_rows")


def isa() -> str:
    """The SHAPES entry of this machine."""
    return "avx512f" if llvm_jit.host_has("avx512f") else "avx2"


@functools.cache
def _shape() -> tuple:
    return SHAPES[isa()]


def use_for(M, N, K, ta, tb, dt, rows_table=False) -> str | None:
    """Which function computes the row-major product [M, K] @ [K, N] of dtype dt (A stored
    transposed when ta, B when tb), or None for BLAS: 'bcast' when B is untransposed, 'dot' when
    B is transposed and A is not, where one side is small, K is shallow, or the operand each tile
    sweeps fits in cache (SWEPT_BYTES; measured with AVX-512: the MLP step's products 130-170 ->
    150-200 GFLOP/s on two cores, GPT's step 28-29 -> 26-27 ms). rows_table: B is a convolution's columns read from the
    image (an im2col operand: its rows start where a table says), which only these functions
    read: '_rows' forms at any size."""
    dt = np.dtype(dt)
    if dt.name not in DTYPES:
        return None
    if rows_table:
        return "dot_rows" if tb else "bcast_rows"
    if min(M, N, K) == 0:
        return None
    # the vectors run along N (bcast) or K (dot): narrower than one, the scalar loop does it
    # all, which only a tiny product affords (an x @ W with W [512, 10], JAX's layout: BLAS)
    lanes, tiny = _lanes(dt), M * N * K <= SCALAR_MACS
    swept = SWEPT_BYTES[isa()]
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
            and use_for(M, N, K, ta, False, dt) == "bcast")


def name(form, dt) -> str:
    return f"jg_gemm_{form}_{np.dtype(dt).name}"


def _lanes(dt):
    return _shape()[0] // np.dtype(dt).itemsize


def module_text(form, dt) -> str:
    """The unit of one function."""
    mod = ir.Module(name=f"jg_small_gemm_{form}")
    (_bcast if form.startswith("bcast") else _dot)(mod, dt, form.endswith("_rows"))
    return str(mod)


def called(texts) -> list[tuple[str, str]]:
    """(form, dtype) of each function the IR texts call."""
    return [(form, dt) for form in FORMS for dt in DTYPES
            if any(f'@"{name(form, dt)}"' in t or f"@{name(form, dt)}(" in t for t in texts)]


def tile(form, dt) -> tuple[int, int]:
    """(rows, columns) of C's register tile."""
    _, (mr, nv), dot = _shape()
    return (mr, nv * _lanes(dt)) if form == "bcast" else dot


def blocks(form, M, N, bsize, most) -> tuple[str, int]:
    """How llvm_kernels splits a product of bsize batch elements over the pool: ("n", blocks of
    rows) or ("m", blocks of columns), across the side with more tiles, at most `most` units in
    all, blocks of one tile at least. Nothing is packed, so a block costs no more than its share
    of the work (each re-reads the other operand from cache)."""
    tr, tc = tile(form.split("_")[0], "float32")
    count, ext, step = ("n", M, tr) if M * tc >= N * tr else ("m", N, tc)
    return count, max(1, min(-(-most // bsize), ext // step))


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
    span = NV * W
    whole = b.mul(b.udiv(N, c(span)), c(span))       # columns in whole tiles

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
                    a = b.load(b.gep(arows[r], [b.mul(p, sap)]))
                    s = b.insert_element(ir.Constant(vty, ir.Undefined), a, c(0))
                    s = b.shuffle_vector(s, ir.Constant(vty, ir.Undefined),
                                         ir.Constant(ir.VectorType(ir.IntType(32), W), [0] * W))
                    out += [_fmuladd(b, s, bv[v], acc[r * nv + v]) for v in range(nv)]
                return out
            acc = _accumulating_loop(b, K, [zero] * (MR * nv), step)
            for r in range(MR):
                crow = b.gep(C, [b.add(b.mul(rows[r], ldc), j0)])
                for v in range(nv):
                    _vstore(b, acc[r * nv + v], b.gep(crow, [c(v * W)]))
    with _tiles(b, whole, span) as j0:
        tiles(j0, NV)
    # the columns past the whole tiles: one vector at a time, the last one ending at column N
    # (it repeats columns already done, with the same sums); narrower than a vector: scalars
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
    (addr,), _ = llvm_jit.compile_ir(_unit(form, dt), lambda: module_text(form, dt), [fname])
    llvm_jit.add_symbol(fname, addr)
    _ADDRESSES[fname] = addr


def address(form, dt) -> int:
    """The function's address in this process (registered first): for benchmarks and tests."""
    register(form, dt)
    return _ADDRESSES[name(form, dt)]
