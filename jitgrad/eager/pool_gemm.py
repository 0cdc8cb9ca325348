"""Eager float GEMMs split over the runtime's thread pool (PyTorch's intra-op parallel GEMM).

An eager `x @ W.T` used to be one np.matmul on one BLAS thread (runtime/blas_threads.py: NumPy's
OpenBLAS threads spin between calls and take the core the Python thread needs), so eager
forward products never used the second core while the compiled backward's did. Here a product
of at least PARALLEL_MACS multiply-adds runs as blocks of rows (or, for a short and wide product,
of columns) on the runtime's pool (runtime/thread_pool.py), each block one single-threaded call
of the BLAS gemm the compiled kernels call (codegen/cpu/llvm_jit.blas_symbol), as the compiled
matmul kernels split theirs (codegen/cpu/kernels/matmul.py). The pool's workers yield, then
sleep: nothing spins against the Python thread between ops.

`pool_matmul(a, b)` takes 2-D float32/float64 operands, each C-ordered or a transposed view of
one (any leading dimension: a row slice, `W.T`), and returns their product, or None where this
path does not apply (one thread, a small product, another layout or dtype, no LLVM): the caller
then runs np.matmul. `pool_matmul(a, b, bias)` also adds a contiguous 1-D bias of b's columns
inside the GEMM (torch.addmm): each block copies it into its rows of the result and the gemm
adds into them (beta = 1), while the block is in cache. The blocks depend on the shapes alone, never on the pool's size (OpenBLAS
rounds the rows at a block's edge differently), so a product has the same bits on any number of
threads from two on; on one thread np.matmul runs (NumPy's BLAS: the last bits may differ).

The native part is one small LLVM IR function compiled once per machine (runtime/native_code.py
keeps its object in the kernel cache); the gemm and the pool entry resolve by symbol name.
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from ..ir import config
from ..runtime.allocator import empty as host_empty

PARALLEL_MACS = 1 << 23     # multiply-adds (~0.1 ms on one core): below, one thread (np.matmul);
                            # GPT's [512,128] @ [128,128] (2^23) in 2 blocks: forward -0.4 ms
BLOCK_ROWS = 128            # rows per block at least: each block re-packs the other operand,
                            # so few large blocks (codegen's GEMM_BLOCK_ROWS)
ROWS_PER_BLOCK = 256        # and about this many, two blocks at least: GPT's [512,128] @ [128,N]
                            # in 2 blocks 6.8-7.4 ms of eager GEMMs a step, in 4 of 128 7.6-7.9
BLOCK_COLS = 64             # columns per block at least, where the rows make fewer than two
                            # blocks (the MNIST CNN's [64,9216]x[9216,128]: 2.0 -> 1.5 ms)
MAX_BLOCKS = 16
DTYPES = {np.dtype(np.float32): 0, np.dtype(np.float64): 1}

# ctx: i64 slots, filled by _ctx
A, B, C, M, N, K, LDA, LDB, LDC, TA, TB, BY_COLS, DTYPE, EXT, NB, BIAS = range(16)

_BODY = r"""
define internal void @block_{T}(i8* %c, i64 %lo, i64 %hi) {{
entry:
  %ctx = bitcast i8* %c to i64*
{loads}
  %ext = sub i64 %hi, %lo
  %ta1 = icmp ne i64 %ta, 0
  %tb1 = icmp ne i64 %tb, 0
  %cols = icmp ne i64 %by_cols, 0
  ; rows lo..hi: A from row lo (column lo when stored transposed), C from row lo
  %astep = select i1 %ta1, i64 1, i64 %lda
  ; columns lo..hi: B from column lo (row lo when stored transposed), C from column lo
  %bstep = select i1 %tb1, i64 %ldb, i64 1
  %aoff = select i1 %cols, i64 0, i64 %astep
  %boff = select i1 %cols, i64 %bstep, i64 0
  %coff = select i1 %cols, i64 1, i64 %ldc
  %ao = mul i64 %aoff, %lo
  %bo = mul i64 %boff, %lo
  %co = mul i64 %coff, %lo
  %ap0 = inttoptr i64 %a to {T}*
  %bp0 = inttoptr i64 %b to {T}*
  %cp0 = inttoptr i64 %cc to {T}*
  %ap = getelementptr {T}, {T}* %ap0, i64 %ao
  %bp = getelementptr {T}, {T}* %bp0, i64 %bo
  %cp = getelementptr {T}, {T}* %cp0, i64 %co
  ; column-major: C^T = B^T A^T, so gemm(B, A) with BLAS's m = columns, n = rows
  %fm = select i1 %cols, i64 %ext, i64 %n
  %fn = select i1 %cols, i64 %m, i64 %ext
  %transa = alloca i8
  %transb = alloca i8
  %tra = select i1 %tb1, i8 84, i8 78
  %trb = select i1 %ta1, i8 84, i8 78
  store i8 %tra, i8* %transa
  store i8 %trb, i8* %transb
  %alpha = alloca {T}
  %beta = alloca {T}
  store {T} 1.0, {T}* %alpha
{cells}
  ; a bias: its row copied into each row of the block's C (its columns lo..hi when by
  ; columns), then C = A B + C, so the bias is written while the block is in cache
  %hasb = icmp ne i64 %bias, 0
  %betav = select i1 %hasb, {T} 1.0, {T} 0.0
  store {T} %betav, {T}* %beta
  %frows = select i1 %cols, i64 %m, i64 %ext
  %fwidth = select i1 %cols, i64 %ext, i64 %n
  %fboff = select i1 %cols, i64 %lo, i64 0
  %bsrc0 = inttoptr i64 %bias to {T}*
  %bsrc = getelementptr {T}, {T}* %bsrc0, i64 %fboff
  %bsrc8 = bitcast {T}* %bsrc to i8*
  %bytes = mul i64 %fwidth, {SZ}
  %anyrows = icmp sgt i64 %frows, 0
  %fill = and i1 %hasb, %anyrows
  br i1 %fill, label %floop, label %run
floop:
  %i = phi i64 [0, %entry], [%i1, %floop]
  %roff = mul i64 %i, %ldc
  %dst = getelementptr {T}, {T}* %cp, i64 %roff
  %dst8 = bitcast {T}* %dst to i8*
  call void @llvm.memcpy.p0i8.p0i8.i64(i8* %dst8, i8* %bsrc8, i64 %bytes, i1 false)
  %i1 = add i64 %i, 1
  %fmore = icmp slt i64 %i1, %frows
  br i1 %fmore, label %floop, label %run
run:
  call void @{gemm}(i8* %transa, i8* %transb, {I}* %pm, {I}* %pn, {I}* %pk, {T}* %alpha,
                    {T}* %bp, {I}* %pldb, {T}* %ap, {I}* %plda, {T}* %beta, {T}* %cp, {I}* %pldc)
  ret void
}}

; blocks lo..hi of the product, block r its rows (columns) [r * ext / nb, (r + 1) * ext / nb)
define internal void @body_{T}(i8* %c, i64 %lo, i64 %hi) {{
entry:
  %ctx = bitcast i8* %c to i64*
  %pext = getelementptr i64, i64* %ctx, i64 {EXT}
  %ext = load i64, i64* %pext
  %pnb = getelementptr i64, i64* %ctx, i64 {NB}
  %nb = load i64, i64* %pnb
  %any = icmp slt i64 %lo, %hi
  br i1 %any, label %loop, label %done
loop:
  %r = phi i64 [%lo, %entry], [%r1, %loop]
  %r1 = add i64 %r, 1
  %x0 = mul i64 %r, %ext
  %s0 = udiv i64 %x0, %nb
  %x1 = mul i64 %r1, %ext
  %s1 = udiv i64 %x1, %nb
  call void @block_{T}(i8* %c, i64 %s0, i64 %s1)
  %more = icmp slt i64 %r1, %hi
  br i1 %more, label %loop, label %done
done:
  ret void
}}
"""

_ENTRY = r"""
declare void @jg_parallel_for(void (i8*, i64, i64)*, i8*, i64, i64)
declare void @llvm.memcpy.p0i8.p0i8.i64(i8*, i8*, i64, i1)
{declares}
{bodies}
define void @jg_eager_gemm(i64* %ctx) {{
entry:
  %pd = getelementptr i64, i64* %ctx, i64 {DTYPE}
  %dt = load i64, i64* %pd
  %pnb = getelementptr i64, i64* %ctx, i64 {NB}
  %nb = load i64, i64* %pnb
  %is64 = icmp ne i64 %dt, 0
  %body = select i1 %is64, void (i8*, i64, i64)* @body_double, void (i8*, i64, i64)* @body_float
  %raw = bitcast i64* %ctx to i8*
  call void @jg_parallel_for(void (i8*, i64, i64)* %body, i8* %raw, i64 %nb, i64 1)
  ret void
}}
"""

_FIELDS = {"a": A, "b": B, "cc": C, "m": M, "n": N, "k": K, "lda": LDA, "ldb": LDB, "ldc": LDC,
           "ta": TA, "tb": TB, "by_cols": BY_COLS, "bias": BIAS}
_state: dict = {}           # "call": the compiled entry, or None when it cannot be built
_lock = threading.Lock()


def _ir(gemms) -> str:
    """The module's IR: gemms = {"float": (symbol, int bits), "double": (...)}."""
    bodies, declares = [], []
    for t, (symbol, bits) in gemms.items():
        i = f"i{bits}"
        declares.append(f"declare void @{symbol}(i8*, i8*, {i}*, {i}*, {i}*, {t}*, {t}*, {i}*, "
                        f"{t}*, {i}*, {t}*, {t}*, {i}*)")
        loads = "\n".join(f"  %p{f} = getelementptr i64, i64* %ctx, i64 {s}\n"
                          f"  %{f} = load i64, i64* %p{f}" for f, s in _FIELDS.items())
        cells = "\n".join(f"  %p{f} = alloca {i}\n  %t{f} = trunc i64 %{v} to {i}\n"
                          f"  store {i} %t{f}, {i}* %p{f}" if bits < 64 else
                          f"  %p{f} = alloca {i}\n  store {i} %{v}, {i}* %p{f}"
                          for f, v in (("m", "fm"), ("n", "fn"), ("k", "k"), ("lda", "lda"),
                                       ("ldb", "ldb"), ("ldc", "ldc")))
        # the cells' names must not clash with the loaded fields': rename the loads
        loads = loads.replace("%p", "%q")
        bodies.append(_BODY.format(T=t, I=i, gemm=symbol, loads=loads, cells=cells, EXT=EXT,
                                   NB=NB, SZ=4 if t == "float" else 8))
    return _ENTRY.format(declares="\n".join(declares), bodies="\n".join(bodies), DTYPE=DTYPE,
                         NB=NB)


def _build():
    """The compiled entry (ctypes), or None where LLVM or a BLAS cannot be had."""
    try:
        from ..codegen.cpu.llvm_jit import add_symbol, blas_symbol  # lazy: LLVM, on first use
        from ..runtime import native_code, thread_pool
        gemms = {"float": blas_symbol("sgemm"), "double": blas_symbol("dgemm")}
        add_symbol("jg_parallel_for", thread_pool.entry_address())
        (address,) = native_code.load(_ir(gemms), ["jg_eager_gemm"])
    except (ImportError, OSError, RuntimeError) as e:      # no LLVM or no BLAS: np.matmul
        config.log(1, f"eager pool GEMM unavailable ({type(e).__name__}: {e}); np.matmul runs")
        return None
    return ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)


def _entry():
    if "call" not in _state:
        with _lock:
            if "call" not in _state:
                _state["call"] = _build()
    return _state["call"]


def _layout(x):
    """(transposed, leading dimension) of a 2-D array BLAS can read in place, else None."""
    item = x.itemsize
    s0, s1 = x.strides
    if (s1 == item or x.shape[1] == 1) and s0 % item == 0 and s0 >= max(x.shape[1], 1) * item:
        return False, max(s0 // item, x.shape[1], 1)
    if (s0 == item or x.shape[0] == 1) and s1 % item == 0 and s1 >= max(x.shape[0], 1) * item:
        return True, max(s1 // item, x.shape[0], 1)
    return None


def pool_matmul(a, b, bias=None):
    """a @ b (+ bias, a contiguous 1-D array of b's columns and dtype: torch.addmm's one pass)
    for 2-D float32/float64 arrays on the runtime's pool, or None (see the module)."""
    m, k = a.shape
    n = b.shape[1]
    if m * n * k < PARALLEL_MACS or a.dtype != b.dtype or a.dtype not in DTYPES or \
            config.read("num_threads") < 2 or config.interpreter_only():
        return None
    if bias is not None and (bias.dtype != a.dtype or bias.shape != (n,) or
                             not bias.flags.c_contiguous):
        return None
    by_cols = m < 2 * BLOCK_ROWS
    if by_cols and n < 2 * BLOCK_COLS:
        return None
    la, lb = _layout(a), _layout(b)
    if la is None or lb is None:
        return None
    call = _entry()
    if call is None:
        return None
    out = host_empty((m, n), a.dtype)      # reused storage: no page fault per 4 KiB
    ext = n if by_cols else m
    blocks = n // BLOCK_COLS if by_cols else max(2, m // ROWS_PER_BLOCK)
    ctx = np.array([a.ctypes.data, b.ctypes.data, out.ctypes.data, m, n, k, la[1], lb[1], n,
                    la[0], lb[0], by_cols, DTYPES[a.dtype], ext, min(MAX_BLOCKS, blocks),
                    0 if bias is None else bias.ctypes.data],
                   np.int64)
    call(ctx.ctypes.data)
    return out
