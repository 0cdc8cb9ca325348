"""Integer GEMM for the LLVM matmul kernels: a function of the unit's own module with the
Fortran BLAS gemm signature the float path calls (transa, transb, m, n, k, alpha, A, lda, B,
ldb, beta, C, ldc; column-major, every argument by pointer, 64-bit integers), so
llvm_kernels' GEMM code calls it where it calls sgemm/dgemm. NumPy's integer matmul: products
and sums wrap in the element's width (exact: the order of the sums does not change the result
modulo 2**bits).

C = alpha * op(A) op(B) + beta * C (beta == 0: C is not read), as loops j, l, i with the i loop
innermost: a column of C and of op(A) (when not transposed) are contiguous, so it vectorizes.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ..llvm_exprs import I8, I64, counted_loop, ltype

BITS = 64


def symbol(fn, dt) -> tuple[str, int]:
    """(name, integer bits) of the integer gemm of dtype dt, defined in fn's module once."""
    name = f"jg_igemm_{np.dtype(dt).name}"
    if name not in fn.module.globals:
        _define(fn.module, name, ltype(dt))
    return name, BITS


def _define(module, name, ty):
    pty, ipt, cpt = ir.PointerType(ty), ir.PointerType(I64), ir.PointerType(I8)
    f = ir.Function(module, ir.FunctionType(ir.VoidType(), [cpt, cpt, ipt, ipt, ipt, pty, pty, ipt,
                                                            pty, ipt, pty, pty, ipt]), name=name)
    f.linkage = "internal"
    ta, tb, pm, pn, pk, palpha, A, plda, B, pldb, pbeta, C, pldc = f.args
    b = ir.IRBuilder(f.append_basic_block("entry"))
    m, n, k, lda, ldb, ldc = (b.load(p) for p in (pm, pn, pk, plda, pldb, pldc))
    alpha, beta = b.load(palpha), b.load(pbeta)
    one = ir.Constant(I64, 1)

    def strides(trans, ld):
        """(stride of the row index, of the column index) of op(X) with leading dimension ld."""
        t = b.icmp_unsigned("!=", b.load(trans), ir.Constant(I8, ord("N")))
        return b.select(t, ld, one), b.select(t, one, ld)
    a_row, a_col = strides(ta, lda)
    b_row, b_col = strides(tb, ldb)
    zero = ir.Constant(ty, 0)
    keep = b.icmp_signed("!=", beta, zero)

    def loop(count, body):
        with counted_loop(b, count) as i:
            body(i)

    def column(j):
        def scale(i):           # C[:, j] = beta * C[:, j] (or 0)
            at = b.gep(C, [b.add(i, b.mul(j, ldc))])
            b.store(b.select(keep, b.mul(beta, b.load(at)), zero), at)
        loop(m, scale)

        def term(l_):
            x = b.mul(alpha, b.load(b.gep(B, [b.add(b.mul(l_, b_row), b.mul(j, b_col))])))

            def add(i):
                at = b.gep(C, [b.add(i, b.mul(j, ldc))])
                a = b.load(b.gep(A, [b.add(b.mul(i, a_row), b.mul(l_, a_col))]))
                b.store(b.add(b.load(at), b.mul(a, x)), at)
            loop(m, add)
        loop(k, term)
    loop(n, column)
    b.ret_void()
