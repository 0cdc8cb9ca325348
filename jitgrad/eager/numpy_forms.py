"""Faster NumPy forms of op references, for eager CPU calls.

`matmul` of a stack of matrices by one matrix (`x @ W.T` in a Linear layer on a batch of
sequences, x (B, T, K)): NumPy runs one GEMM per stacked matrix (and, when W is a transposed
view, not the fastest one); folding the stack into the rows, (B*T, K) @ (K, N), is one GEMM,
about 25% faster at the GPT benchmark's sizes. A C-contiguous x reshapes without a copy;
anything else takes np.matmul as it is. A 2-D float product of at least pool_gemm.PARALLEL_MACS
multiply-adds runs in blocks on the runtime's pool (pool_gemm.py); any other first sets NumPy's
BLAS threads for its size (runtime/blas_threads.py: small products on one thread).

`select` (np.where) of two operands of one dtype: a select only copies bits, so it is computed
on the operands' bits viewed as unsigned integers of their size, with the condition widened into
a mask (all ones where it holds): (on_true & mask) | (on_false & ~mask), and a 0-d operand of
all-zero bits (ReLU's `where(x <= 0, 0, x)`, a masked fill of zeros) skips its half. NumPy's
where (and copyto with where=) branch per element: on the MNIST CNN's [64,32,26,26] ReLU 5.7 ms
against 0.4-1.2 ms here; `where(mask, att, -inf)` on GPT's scores 0.21 -> 0.10 ms. The same
bits as np.where (NaN payloads and signed zeros included); other dtypes (complex128, objects)
and a non-bool condition take np.where.

`tanh` and `expm1` on real floats: their references handle complex edge cases around the NumPy
ufunc; on float32/float64 they are the ufunc, called directly (the same values, one Python
call less per op).
"""
from __future__ import annotations

import numpy as np

from ..ir import Op
from ..runtime.allocator import empty as host_empty
from ..runtime.blas_threads import run_product
from .pool_gemm import pool_matmul


def folded_matmul(a, b):
    if b.ndim == 2 and (a.ndim == 2 or a.ndim > 2 and a.flags.c_contiguous):
        flat = a.reshape(-1, a.shape[-1]) if a.ndim > 2 else a
        out = pool_matmul(flat, b)
        if out is not None:
            return out.reshape(a.shape[:-1] + b.shape[-1:]) if a.ndim > 2 else out
    # multiply-adds: a's elements times b's columns, or b's elements times a's rows (stacks)
    macs = max(a.size * (b.shape[-1] if b.ndim > 1 else 1),
               b.size * (a.shape[-2] if a.ndim > 1 else 1))
    if a.ndim > 2 and b.ndim == 2 and a.flags.c_contiguous:
        flat = run_product(macs, _into_reused, a.reshape(-1, a.shape[-1]), b)
        return flat.reshape(a.shape[:-1] + b.shape[-1:])
    if a.ndim == 2 and b.ndim == 2:
        return run_product(macs, _into_reused, a, b)
    return run_product(macs, np.matmul, a, b)


def _into_reused(a, b):
    """np.matmul of 2-D float operands of one dtype into storage from the caching allocator
    (runtime/allocator.py): a fresh 1 MiB result page-faults 256 times, ~1300 faults in GPT's
    eager forward on one thread."""
    if a.dtype != b.dtype or a.dtype.kind != "f":
        return np.matmul(a, b)
    return np.matmul(a, b, out=host_empty((a.shape[0], b.shape[1]), a.dtype))


UINTS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}    # itemsize -> bits' view


def bit_select(pred, on_true, on_false):
    """np.where(pred, on_true, on_false) on the operands' bits (see the module's doc)."""
    u = UINTS.get(on_true.itemsize)
    if u is None or pred.dtype != np.bool_ or on_true.dtype != on_false.dtype or \
            on_true.dtype.kind not in "biufc":
        return np.where(pred, on_true, on_false)
    shape = np.broadcast_shapes(pred.shape, on_true.shape, on_false.shape)
    t, f = on_true.view(u), on_false.view(u)
    keep_f = pred.view(np.uint8).astype(u)      # 1 where pred
    keep_f -= 1                                 # 0 where pred, all ones elsewhere
    into = keep_f if keep_f.shape == shape else None
    if on_true.ndim == 0 and not t:
        out = np.bitwise_and(f, keep_f, out=into)
    elif on_false.ndim == 0 and not f:
        out = np.bitwise_and(t, np.invert(keep_f, out=keep_f), out=into)
    else:
        out = np.bitwise_or(np.bitwise_and(t, np.invert(keep_f)), np.bitwise_and(f, keep_f))
    return np.asarray(out).view(on_true.dtype)     # (0-d operands: NumPy returns a scalar)


# op -> fn(*arrays) used instead of its NumPy reference
FORMS = {Op.matmul: folded_matmul, Op.select: bit_select}
# on real floating-point arrays: the NumPy function the reference calls after its complex branch
REAL_FORMS = {Op.tanh: np.tanh, Op.expm1: np.expm1}
