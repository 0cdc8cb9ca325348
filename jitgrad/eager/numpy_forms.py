"""Faster NumPy forms of op references, for eager CPU calls.

`matmul` of a stack of matrices by one matrix (`x @ W.T` in a Linear layer on a batch of
sequences, x (B, T, K)): NumPy runs one GEMM per stacked matrix (and, when W is a transposed
view, not the fastest one); folding the stack into the rows, (B*T, K) @ (K, N), is one GEMM,
about 25% faster at the GPT benchmark's sizes. A C-contiguous x reshapes without a copy;
anything else takes np.matmul as it is. A 2-D float product of at least pool_gemm.PARALLEL_MACS
multiply-adds runs in blocks on the runtime's pool (pool_gemm.py); any other first sets NumPy's
BLAS threads for its size (runtime/blas_threads.py: small products on one thread).

`select` (np.where) whose on-true operand has the result's shape (a mask applied to scores,
`jnp.where(mask, att, -inf)`): a copy of it with the on-false value written where the condition
is false (np.copyto with where=), about 30% faster than np.where broadcasting three operands;
the same values (both only copy elements).

`tanh` and `expm1` on real floats: their references handle complex edge cases around the NumPy
ufunc; on float32/float64 they are the ufunc, called directly (the same values, one Python
call less per op).
"""
from __future__ import annotations

import numpy as np

from ..ir import Op
from ..runtime.blas_threads import for_product
from .pool_gemm import pool_matmul


def folded_matmul(a, b):
    if b.ndim == 2 and (a.ndim == 2 or a.ndim > 2 and a.flags.c_contiguous):
        flat = a.reshape(-1, a.shape[-1]) if a.ndim > 2 else a
        out = pool_matmul(flat, b)
        if out is not None:
            return out.reshape(a.shape[:-1] + b.shape[-1:]) if a.ndim > 2 else out
    # multiply-adds: a's elements times b's columns, or b's elements times a's rows (stacks)
    for_product(max(a.size * (b.shape[-1] if b.ndim > 1 else 1),
                    b.size * (a.shape[-2] if a.ndim > 1 else 1)))
    if a.ndim > 2 and b.ndim == 2 and a.flags.c_contiguous:
        return np.matmul(a.reshape(-1, a.shape[-1]), b).reshape(a.shape[:-1] + b.shape[-1:])
    return np.matmul(a, b)


def masked_copy(pred, on_true, on_false):
    if on_true.dtype == on_false.dtype and pred.dtype == np.bool_ and \
            np.broadcast_shapes(pred.shape, on_true.shape, on_false.shape) == on_true.shape:
        out = on_true.copy()
        np.copyto(out, on_false, where=np.logical_not(pred))
        return out
    return np.where(pred, on_true, on_false)


# op -> fn(*arrays) used instead of its NumPy reference
FORMS = {Op.matmul: folded_matmul, Op.select: masked_copy}
# on real floating-point arrays: the NumPy function the reference calls after its complex branch
REAL_FORMS = {Op.tanh: np.tanh, Op.expm1: np.expm1}
