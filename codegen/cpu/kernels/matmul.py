"""Matmul kernels as LLVM IR: the MatmulNest's GEMMs through BLAS gemm (the Fortran BLAS of
NumPy's wheel, llvm_jit.blas_symbol) or the unpacked kernels of llvm_small_gemm.py into the
product, row or column blocks of it on the runtime's pool, then the epilogue
(codegen/kernel/nest.py)."""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir

from ....ir import config
from ...kernel.costs import PARALLEL_MIN, element_cost
from ...kernel.nest import elementwise_nest, matmul_nest
from .. import llvm_small_gemm
from . import heap, int_gemm
from ..llvm_exprs import I8, I64, const, ltype
from ..llvm_jit import blas_core, blas_symbol
from .elementwise import elementwise, elementwise_rows
from .function import GRAIN, extern, unravel

GEMM_MIN = 1 << 20                # multiply-adds (~20 us on one core): below, a GEMM stays on one
                                  # thread. The LSTM's 16x128x512 step product is on the pool since
                                  # its workers wait awake between kernels (LSTM step 3.9-4.1 ->
                                  # 3.4-3.6 ms); while they slept it paid more to wake them
GEMM_GRAIN = 1 << 17              # multiply-adds per chunk at least
GEMM_ROW_BLOCKS = 16              # a product's rows in at most this many blocks (fixed, as below)
GEMM_BLOCK_ROWS = 128             # rows per row block at least: each block re-packs the other
                                  # operand (MLP's 256x784x512 in 16 blocks of 16 rows: 80
                                  # GFLOP/s; in 2 of 128: ~2x faster, as OpenBLAS's own threads)
GEMM_BLOCKS = 256                 # or, in blocks for the small-matrix kernel, at most this many
                                  # (a ResNet conv's 32 images x [16,144]@[144,1088] in 96: 2.0 ->
                                  # 1.2-1.3 ms; capped at 64 they were packed, the columns re-packed
                                  # per image: ResNet step 41-44 -> 35 ms)
GEMM_BLOCK_MIN = 8                # rows (columns) per block at least
GEMM_SMALL = 100 ** 3             # OpenBLAS's small-matrix kernel takes m*n*k up to this (no
                                  # packing): GPT's [512,512]x[512,128] in 35 such row blocks
                                  # 0.65 ms, in 16 blocks of 32 rows 1.1 ms, in 8 of 64 0.9 ms
SMALL_KERNEL_CORES = ("SkylakeX", "Cooperlake", "SapphireRapids")  # OpenBLAS's cores that have
                                  # it: the others pack each thin block (Haswell on znver3: GPT's
                                  # [512,512]x[512,128] in 35 blocks 2.0 ms, in 4 packed 0.74 ms)
GEMM_NAMES = {"float32": "sgemm", "float64": "dgemm", "complex64": "cgemm", "complex128": "zgemm"}


def _product(fn, nest):
    """(where the product is written, the outputs that are the product) in the function built:
    the output it is stored transposed into (MatmulNest.store), the first output that is the
    product, where the memory plan put it, or scratch."""
    pv = nest.product
    dest = fn.outs.get(pv, [])
    hint = fn.product_hint
    if nest.store is not None:
        prod = fn.outs[nest.store[0]][0]
    elif dest:
        prod = dest[0]
    elif hint[0] == "output":
        prod = fn.outs[hint[1]][0]
    else:
        prod = fn.argv_slot(pv.type.dtype, ("prod",))
    fn.arrays[pv] = prod
    return prod, dest


def gen_matmul(fn):
    body = fn.body
    nest = matmul_nest(body)
    pv = nest.product
    flops = pv.type.size * nest.K
    copy = _transposed_copy(fn, nest)
    rest = list(nest.epilogue)
    fused = False
    if fn.parallel and flops >= GEMM_MIN:       # row blocks of the product on the pool
        state, seen = fn.range_body([copy] if copy is not None else ())
        # the epilogue of each row block, while the block is in cache
        after = (lambda lo, hi: elementwise_rows(fn, rest, lo, hi)) \
            if rest and len(fn.outs.get(pv, ())) <= 1 else None
        fused = _gemm(fn, nest, _product(fn, nest)[0], *seen, after=after)
        fn.end_range_body(state, GEMM_GRAIN, flops)
    prod, dest = _product(fn, nest)
    if not (fn.parallel and flops >= GEMM_MIN):
        _gemm(fn, nest, prod, copy)
    if copy is not None:
        heap.free(fn, copy)
    b, n = fn.b, pv.type.size
    for extra in dest[1:]:
        with fn.loop(n) as i:
            b.store(b.load(b.gep(prod, [i])), b.gep(extra, [i]))
    if fused or not rest:
        return
    epilogue = elementwise_nest(body, fn.info, rest, product=pv)
    if fn.parallel and n * element_cost(body.nodes) >= PARALLEL_MIN:
        state, _ = fn.range_body()
        _product(fn, nest)
        elementwise(fn, epilogue)
        fn.end_range_body(state, GRAIN)
    else:
        elementwise(fn, epilogue)


def _transposed_copy(fn, nest):
    """For `x @ W.T` with a shallow K (the dot form's horizontal sums would cost as much as its
    products), W transposed into heap scratch here, once per call (llvm_small_gemm.
    transposed_first), for the broadcast form to read; else None. Not in native libraries
    (fn.blas set), which keep the dot form."""
    if fn.blas is not None or not _copies_b(nest):
        return None
    bv, dt = nest.b.value, nest.product.type.dtype
    N, ld = nest.N, nest.b.ld
    b = fn.b
    copy = heap.malloc(fn, ltype(dt), N * nest.K * np.dtype(dt).itemsize)
    src = b.gep(fn.arrays[bv], [ir.Constant(I64, nest.b.offset)])
    with fn.loop(nest.K) as p:      # copy[p, j] = W[j, p]
        row = b.gep(copy, [b.mul(p, ir.Constant(I64, N))])
        with fn.loop(N) as j:
            b.store(b.load(b.gep(src, [b.add(b.mul(j, ir.Constant(I64, ld)), p)])), b.gep(row, [j]))
    return copy


def _copies_b(nest) -> bool:
    """Whether the JIT's kernel transposes B first (_transposed_copy): llvm_small_gemm.
    transposed_first of a product whose B is one stored matrix, not an im2col."""
    M, N, K, _ = nest.gemm
    return (nest.b.im2col is None and math.prod(nest.b.shape[:-2]) == 1
            and llvm_small_gemm.transposed_first(M, N, K, nest.a.transposed, nest.b.transposed,
                                                 nest.product.type.dtype))


def _gemm(fn, nest, prod, copy=None, after=None):
    """The MatmulNest's GEMMs into `prod` (`copy`: B transposed in scratch by _transposed_copy).
    In a range body split into row blocks, `after(lo, hi)` runs after each block with its rows
    [lo, hi) of the product (all its axes but the last flattened); returns whether it did
    (column blocks: never)."""
    b = fn.b
    M, N, K, batch = nest.gemm
    pshape, dt = nest.product.type.shape, nest.product.type.dtype
    if math.prod(pshape) == 0:
        return False
    if K == 0:
        with fn.loop(math.prod(pshape)) as i:
            b.store(const(dt, 0), b.gep(prod, [i]))
        return False
    a, ta = nest.a.value, nest.a.transposed
    bv, tb, cols = nest.b.value, nest.b.transposed, nest.b.im2col
    if copy is not None:
        tb = False
    form = llvm_small_gemm.use_for(M, N, K, ta, tb, dt, cols is not None)
    table = _rows_table(fn, nest.b.rows) if cols else None
    lda, ldb = nest.a.ld, (N if copy is not None else nest.b.ld)
    ldc = nest.store[2] if nest.store else N
    call = (_small_call if form else _blas_call)(fn, form, M, N, K, ta, tb, dt, lda, ldb, ldc,
                                                 table)
    bsize = math.prod(batch)
    c64 = lambda v: ir.Constant(I64, v)      # noqa: E731
    barr = fn.arrays[bv] if copy is None else copy
    boff = nest.b.offset if copy is None else 0

    def one(q, r0=None, j0=None, extent=None):
        """The product of batch element q (its `extent` rows from r0 on, or its `extent` columns
        from j0 on)."""
        idx = [q] if len(batch) <= 1 else unravel(fn, batch, q)
        a0 = _batch_offset(fn, idx, nest.a.offset, nest.batch_strides(nest.a))
        b0 = _batch_offset(fn, idx, boff, nest.batch_strides(nest.b) if copy is None else ())
        c0 = (_batch_offset(fn, idx, 0, nest.store[1] if batch else ()) if nest.store
              else b.mul(q, c64(M * N)))
        rows, cols = c64(M), c64(N)
        if r0 is not None:          # rows r0.. of A (columns when A is stored transposed)
            a0 = b.add(a0, r0 if ta else b.mul(r0, c64(lda)))
            c0 = b.add(c0, b.mul(r0, c64(ldc)))
            rows = extent
        shift = None
        if j0 is not None:          # columns j0.. of B (rows when B is stored transposed)
            if tb and table is not None:    # rows of the columns: their starts from j0 on
                shift = j0
            else:
                b0 = b.add(b0, b.mul(j0, c64(ldb)) if tb else j0)
            c0 = b.add(c0, j0)
            cols = extent
        call(b.gep(fn.arrays[a], [a0]), b.gep(barr, [b0]), b.gep(prod, [c0]), rows, cols, shift)
    if fn.range is None:
        with fn.loop(bsize) as q:
            one(q)
        return False
    # a range body: unit u is block u % RB of batch element u // RB (gemm_blocks). The split
    # depends on the shapes alone: the same bits on any pool.
    count, rb, grain = (llvm_small_gemm.blocks(form, M, N, bsize, _small_gemm_units(form, M))
                        if form else
                        (*gemm_blocks(M, N, K, bsize, small=not tb and blas_small_kernel()), 1))
    ext = M if count == "n" else N
    fn.range_n = bsize * rb
    begin, end = fn.range

    def bound(r):       # block r starts here: a multiple of `grain` (the last one ends at ext)
        at = b.mul(b.udiv(b.mul(r, c64(ext // grain)), c64(rb)), c64(grain))
        return b.select(b.icmp_unsigned("==", r, c64(rb)), c64(ext), at)
    with fn.loop(end, begin) as u:
        q, r = b.udiv(u, c64(rb)), b.urem(u, c64(rb))
        r0, r1 = bound(r), bound(b.add(r, c64(1)))
        if count == "n":
            one(q, r0, None, b.sub(r1, r0))
            if after is not None:       # rows r0..r1 of batch element q
                base = b.mul(q, c64(M))
                after(b.add(base, r0), b.add(base, r1))
        else:
            one(q, None, r0, b.sub(r1, r0))
    return after is not None and count == "n"


def _batch_offset(fn, idx, offset, strides):
    """offset + sum(idx * strides) over the batch indices (MatmulNest.batch_strides; no
    strides: the offset alone)."""
    b, acc = fn.b, ir.Constant(I64, offset)
    for i, s in zip(idx, strides):
        if s:
            acc = b.add(acc, b.mul(i, ir.Constant(I64, s)))
    return acc


def _small_gemm_units(form, M) -> int:
    """How many blocks at most an llvm_small_gemm product of M rows is cut into: where the form
    packs B's panels (llvm_small_gemm.packs), two per thread of the pool (GEMM_ROW_BLOCKS at
    most), as every block packs its own panels and re-reads the operand it does not split; on
    two threads the MLP's products ran at 230-250 GFLOP/s in 8 blocks (its [512,512] weight
    gradient 205-241), at 249-263 in 4 (253-267), interleaved in one process, and the MLP step
    4.7-4.9 -> 4.3-4.5 ms, GPT's 24.4-25.1 -> 23.6-24.2 (alternating processes). Two a thread
    still lets one take over the other's second when the machine is busy. Unpacked forms keep
    GEMM_ROW_BLOCKS. The split never changes the bits (each element's sum runs over p in one
    order); units are cached under it (code_options)."""
    return packed_blocks() if llvm_small_gemm.packs(form, M) else GEMM_ROW_BLOCKS


def packed_blocks() -> int:
    return max(2, min(GEMM_ROW_BLOCKS, 2 * config.read("num_threads")))



def _rows_table(fn, starts):
    """A pointer to the constant table `starts` (MatmulOperand.rows: where each row of an
    im2col's columns starts in its image), a global of the unit."""
    ty = ir.ArrayType(I64, len(starts))
    g = ir.GlobalVariable(fn.module, ty, name=f"jg_rows{len(fn.module.global_values)}")
    g.linkage, g.global_constant = "internal", True
    g.initializer = ir.Constant(ty, starts)
    return fn.b.gep(g, [ir.Constant(I64, 0), ir.Constant(I64, 0)])


def _small_call(fn, form, M, N, K, ta, tb, dt, lda, ldb, ldc, table=None):
    """call(A, B, C, rows, cols, shift) through llvm_small_gemm's row-major functions (lda,
    ldb, ldc: the stored matrices' row strides; `table`: B's row starts, moved on by `shift`
    rows when given)."""
    b = fn.b
    f = extern(fn, llvm_small_gemm.name(form, dt), llvm_small_gemm.function_type(form, dt))
    c64 = lambda v: ir.Constant(I64, v)      # noqa: E731

    def rows_of_b(shift):
        if table is None:
            return c64(ldb)
        return table if shift is None else b.gep(table, [shift])
    if form.startswith("bcast"):    # A[i, p] at A + i*sai + p*sap; B's rows (length N) contiguous,
        sai, sap = (1, lda) if ta else (lda, 1)     # or (bcast_t) its columns (length K)
        return lambda pa, pb, pc, rows, cols, shift: b.call(
            f, [rows, cols, c64(K), pa, c64(sai), c64(sap), pb, rows_of_b(shift), pc, c64(ldc)])
    return lambda pa, pb, pc, rows, cols, shift: b.call(
        f, [rows, cols, c64(K), pa, c64(lda), pb, rows_of_b(shift), pc, c64(ldc)])


def _blas_call(fn, form, M, N, K, ta, tb, dt, lda, ldb, ldc, table=None):
    """call(A, B, C, rows, cols) through the Fortran BLAS gemm (column-major: row-major C = A B
    is C^T = B^T A^T, so gemm(B, A) with N, M swapped)."""
    b = fn.b
    symbol = fn.blas or blas_symbol
    name, bits = int_gemm.symbol(fn, dt) if np.dtype(dt).kind in "iu" else \
        symbol(GEMM_NAMES[np.dtype(dt).name])
    INT, ty = ir.IntType(bits), ltype(dt)
    pty = ir.PointerType(ty)
    ipt, cpt = ir.PointerType(INT), ir.PointerType(I8)
    gemm = extern(fn, name, ir.FunctionType(ir.VoidType(), [cpt, cpt, ipt, ipt, ipt, pty, pty, ipt,
                                                             pty, ipt, pty, pty, ipt]))

    def cell(t, v):
        p = fn.alloca(t)
        b.store(v, p)
        return p

    def integer(v):
        return cell(INT, ir.Constant(INT, v))
    transa, transb = (cell(I8, ir.Constant(I8, ord("T" if t else "N"))) for t in (tb, ta))
    alpha, beta = cell(ty, const(dt, 1)), cell(ty, const(dt, 0))
    pm, pn, pk, plda, pldb, pldc = (integer(v) for v in (N, M, K, ldb, lda, ldc))

    def call(pa, pb, pc, rows, cols, shift=None):
        for extent, whole, at in ((cols, N, pm), (rows, M, pn)):    # a block's extent
            if not (isinstance(extent, ir.Constant) and extent.constant == whole):
                b.store(b.trunc(extent, INT) if bits < 64 else extent, at)
        b.call(gemm, [transa, transb, pm, pn, pk, alpha, pb, plda, pa, pldb, beta, pc, pldc])
    return call


def gemm_blocks(M, N, K, bsize, small=True):
    """How a product (of each of bsize batch elements) is split over the pool: ("n", blocks of
    rows) or ("m", blocks of columns; BLAS's m and n, column-major). Blocks small enough for
    OpenBLAS's small-matrix kernel (m*n*k <= GEMM_SMALL: no operand packed) when at most
    GEMM_BLOCKS of them cover the batch, along the side that needs fewer; else at most
    GEMM_ROW_BLOCKS row blocks of GEMM_BLOCK_ROWS rows or more: a block re-packs the other
    operand, so few of them; column blocks as wide where the rows make fewer than two blocks
    and the columns more (a weight gradient [128,512] of GPT: 64 GFLOP/s on one thread).
    small=False (the right operand stored transposed, `x @ W.T`: the small kernel runs it 2-4x
    slower than untransposed, packed blocks run both alike; or a BLAS without that kernel):
    only the packed blocks."""
    cap = -(-GEMM_BLOCKS // bsize)
    want = -(-GEMM_ROW_BLOCKS // bsize)     # units to share among the threads
    best = None
    for count, ext, other in (("n", M, N), ("m", N, M)) if small else ():
        most = GEMM_SMALL // max(other * K, 1)  # rows (columns) per block in the small kernel
        if most >= min(ext, GEMM_BLOCK_MIN):
            blocks = max(-(-ext // most), min(ext // GEMM_BLOCK_MIN, want), 1)
            if blocks <= cap and (best is None or blocks < best[1]):
                best = (count, blocks)
    if best:
        return best
    rows, cols = M // GEMM_BLOCK_ROWS, N // GEMM_BLOCK_ROWS
    if rows < 2 and cols > max(rows, 1):
        return "m", min(cols, want)
    return "n", max(1, min(rows, want))


def blas_small_kernel(core=None) -> bool:
    """Whether the BLAS runs products of m*n*k <= GEMM_SMALL without packing (gemm_blocks'
    thin blocks pay only there); `core`: an OpenBLAS core name, default this machine's."""
    return (blas_core() if core is None else core) in SMALL_KERNEL_CORES


def gemm_calls(node) -> int:
    """How many BLAS gemm calls one run of the matmul kernel `node` makes (row blocks on the
    pool aside): one per batch element of the product, one in all when the rows merge
    (MatmulNest.rows_merge)."""
    nest = matmul_nest(node.params["body"])
    return 1 if nest.rows_merge else math.prod(nest.batch)


def small_gemm(node):
    """(form, dtype) of the llvm_small_gemm function the matmul kernel `node` calls, or None."""
    nest = matmul_nest(node.params["body"])
    dt = np.dtype(nest.product.type.dtype)
    if _copies_b(nest):     # the JIT's kernel: B transposed first, then bcast
        return "bcast", dt.name
    M, N, K, _ = nest.gemm
    form = llvm_small_gemm.use_for(M, N, K, nest.a.transposed, nest.b.transposed, dt,
                                   nest.b.im2col is not None)
    return (form, dt.name) if form else None
