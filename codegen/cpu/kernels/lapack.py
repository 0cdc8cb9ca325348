"""The LAPACK decompositions as LLVM opaque kernels: per matrix of the batch, the routines
NumPy's np.linalg calls, reached by address (scipy.linalg.cython_lapack's capsules, registered
as `jg_lapack_<routine>` by `symbols(node)` before a unit compiles or loads):

    cholesky  potrf('L')              eigh   syevd('V', 'L')         slogdet  getrf
    solve     gesv                    qr     geqrf + orgqr           svd      gesdd('A' | 'S')

Each matrix is copied into a column-major (Fortran) scratch, the routine runs on it, and the
results are copied back row-major, as NumPy's umath_linalg does (so LAPACK factors the matrix
itself, not its transpose). Workspace sizes are asked of LAPACK (lwork = -1) once per call. A
matrix LAPACK cannot factor (info != 0: not positive definite, singular, no convergence) gives
NaN results, as ir/reference.lapack; slogdet of a singular matrix is (0, -inf), as NumPy.

`OPAQUE[op](fn, node, input pointers, output pointer)`: the entries opaque.OPAQUE takes
(the outputs are read from fn.outs: several for eigh, qr, svd, slogdet).
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir

from ....ir.ops import Op
from .. import llvm_jit
from ..llvm_exprs import I8, I32, I64, ltype
from ..llvm_math import fconst, intrinsic
from .heap import extern, free, malloc

# op -> the routines (without their s/d prefix) it calls
ROUTINES = {Op.cholesky: ("potrf",), Op.eigh: ("syevd",), Op.slogdet: ("getrf",),
            Op.solve: ("gesv",), Op.qr: ("geqrf", "orgqr"), Op.svd: ("gesdd",)}
_PREFIX = {"float32": "s", "float64": "d"}


def routine_names(node) -> list[str]:
    """The LAPACK routines (e.g. 'dpotrf') kernel `node` calls; [] for another kernel."""
    if node.params["kind"] != "opaque" or len(node.params["body"].nodes) != 1:
        return []
    (n,) = node.params["body"].nodes
    if n.op not in ROUTINES:
        return []
    p = _PREFIX[np.dtype(n.inputs[0].type.dtype).name]
    return [p + r for r in ROUTINES[n.op]]


def symbols(node) -> list[str]:
    """Register the routines `node` calls (scipy's cython_lapack, by address) and return their
    symbols: before its unit compiles or loads from disk."""
    names = routine_names(node)
    if names:
        from scipy.linalg import cython_lapack      # lazy: only for a LAPACK kernel
        for r in names:
            llvm_jit.add_symbol("jg_lapack_" + r, llvm_jit.capsule_address(cython_lapack.__pyx_capi__[r]))
    return ["jg_lapack_" + r for r in names]


def why_not(n):
    """None when a LAPACK node builds, else the reason (its dtype)."""
    if np.dtype(n.inputs[0].type.dtype).name not in _PREFIX:
        return f"{n.op.name} on {n.inputs[0].type.dtype}"
    return None


class _Call:
    """The pieces of one kernel's LAPACK calls: typed constants passed by pointer, scratch
    matrices, the routine's declaration."""

    def __init__(self, fn, dt):
        self.fn, self.b, self.dt = fn, fn.b, np.dtype(dt)
        self.ty = ltype(dt)
        self.p = _PREFIX[self.dt.name]
        self.heap = []

    def int(self, value):
        """An i32* holding value (an int or an i32/i64 value)."""
        slot = self.fn.alloca(I32)
        if not isinstance(value, ir.Value):
            value = ir.Constant(I32, int(value))
        elif value.type != I32:
            value = self.b.trunc(value, I32)
        self.b.store(value, slot)
        return slot

    def char(self, c):
        slot = self.fn.alloca(I8)
        self.b.store(ir.Constant(I8, ord(c)), slot)
        return slot

    def array(self, n, ty=None):
        ty = ty or self.ty
        nbytes = 4 if ty == I32 else self.dt.itemsize
        ptr = malloc(self.fn, ty, max(n, 1) * nbytes)
        self.heap.append(ptr)
        return ptr

    def call(self, routine, args):
        f = extern(self.fn, f"jg_lapack_{self.p}{routine}",
                   ir.FunctionType(ir.VoidType(), [a.type for a in args]))
        self.b.call(f, args)

    def workspaces(self, routine, args, slots):
        """The workspaces LAPACK asks for, in one query (every lwork-like slot -1): slots is
        [(position of the lwork slot, element type)], the workspace itself at position - 1.
        Fills them into args (the lwork slots then hold the sizes)."""
        b = self.b
        answers = []
        for at, ty in slots:
            answers.append(self.fn.alloca(ty))
            args[at - 1], args[at] = answers[-1], self.int(-1)
        self.call(routine, args)
        for (at, ty), one in zip(slots, answers):
            got = b.load(one)
            size = b.fptosi(got, I64) if ty != I32 else b.sext(got, I64)
            size = b.select(b.icmp_signed("<", size, _c(1)), _c(1), size)
            ptr = malloc(self.fn, ty, b.mul(size, _c(4 if ty == I32 else self.dt.itemsize)))
            self.heap.append(ptr)
            b.store(b.trunc(size, I32), args[at])
            args[at - 1] = ptr
        return args

    def free(self):
        for ptr in self.heap:
            free(self.fn, ptr)


def _c(v):
    return ir.Constant(I64, v)


def _to_fortran(fn, src, base, rows, cols, dst, ld=None):
    """dst[j * ld + i] = src[base + i * cols + j] (a row-major matrix into a column-major one)."""
    b, ld = fn.b, ld or rows

    def emit(ij):
        i, j = ij
        v = b.load(b.gep(src, [b.add(base, b.add(b.mul(i, _c(cols)), j))]))
        b.store(v, b.gep(dst, [b.add(b.mul(j, _c(ld)), i)]))
    fn.nest((rows, cols), emit)


def _from_fortran(fn, src, rows, cols, dst, base, ld=None, keep=None, nan=None):
    """dst[base + i * cols + j] = src[j * ld + i] (keep(i, j) -> i1: else 0; nan: an i1, all
    NaN when set)."""
    b, ld = fn.b, ld or rows
    ty = dst.type.pointee

    def emit(ij):
        i, j = ij
        v = b.load(b.gep(src, [b.add(b.mul(j, _c(ld)), i)]))
        if keep is not None:
            v = b.select(keep(i, j), v, fconst(ty, 0))
        if nan is not None:
            v = b.select(nan, fconst(ty, float("nan")), v)
        b.store(v, b.gep(dst, [b.add(base, b.add(b.mul(i, _c(cols)), j))]))
    fn.nest((rows, cols), emit)


def _outs(fn, n):
    """Per output of n: the pointers it is stored to (none when the kernel drops it)."""
    return [fn.outs.get(v, []) for v in n.outputs]


def _batch(n):
    return math.prod(n.inputs[0].type.shape[:-2])


def _per_matrix(fn, n, emit):
    """emit(p) for each matrix p of the batch (an i64 value)."""
    with fn.loop(_batch(n)) as p:
        emit(p)


def _failed(fn, info):
    return fn.b.icmp_signed("!=", fn.b.load(info), ir.Constant(I32, 0))


def _cholesky(fn, n, x, out):
    k = _Call(fn, n.inputs[0].type.dtype)
    N = n.inputs[0].type.shape[-1]
    a, info = k.array(N * N), k.int(0)
    b = fn.b

    def emit(p):
        base = b.mul(p, _c(N * N))
        _to_fortran(fn, x[0], base, N, N, a)
        k.call("potrf", [k.char("L"), k.int(N), a, k.int(N), info])
        bad = _failed(fn, info)
        for o in _outs(fn, n)[0]:
            _from_fortran(fn, a, N, N, o, base, keep=lambda i, j: b.icmp_signed(">=", i, j), nan=bad)
    _per_matrix(fn, n, emit)
    k.free()


def _eigh(fn, n, x, out):
    k = _Call(fn, n.inputs[0].type.dtype)
    N = n.inputs[0].type.shape[-1]
    b = fn.b
    a, w, info = k.array(N * N), k.array(N), k.int(0)
    args = [k.char("V"), k.char("L"), k.int(N), a, k.int(N), w, None, k.int(0), None, k.int(0), info]
    k.workspaces("syevd", args, [(7, k.ty), (9, I32)])
    vals, vecs = _outs(fn, n)

    def emit(p):
        _to_fortran(fn, x[0], b.mul(p, _c(N * N)), N, N, a)
        k.call("syevd", args)
        bad = _failed(fn, info)
        for o in vals:
            _from_fortran(fn, w, 1, N, o, b.mul(p, _c(N)), ld=1, nan=bad)
        for o in vecs:
            _from_fortran(fn, a, N, N, o, b.mul(p, _c(N * N)), nan=bad)
    _per_matrix(fn, n, emit)
    k.free()


def _slogdet(fn, n, x, out):
    dt = n.inputs[0].type.dtype
    k = _Call(fn, dt)
    N = n.inputs[0].type.shape[-1]
    b, ty = fn.b, ltype(dt)
    a, ipiv, info = k.array(N * N), k.array(N, I32), k.int(0)
    sign_slot, log_slot = fn.alloca(ty), fn.alloca(ty)
    signs, logs = _outs(fn, n)

    def emit(p):
        _to_fortran(fn, x[0], b.mul(p, _c(N * N)), N, N, a)
        k.call("getrf", [k.int(N), k.int(N), a, k.int(max(N, 1)), ipiv, info])  # lda >= 1
        b.store(fconst(ty, 1), sign_slot)
        b.store(fconst(ty, 0), log_slot)
        with fn.loop(N) as i:       # NumPy's order: the pivots' sign, then the diagonal's
            swapped = b.icmp_signed("!=", b.load(b.gep(ipiv, [i])), b.add(b.trunc(i, I32), ir.Constant(I32, 1)))
            s = b.load(sign_slot)
            b.store(b.select(swapped, b.fneg(s), s), sign_slot)
        with fn.loop(N) as i:
            d = b.load(b.gep(a, [b.mul(i, _c(N + 1))]))
            neg = b.fcmp_ordered("<", d, fconst(ty, 0))
            s = b.load(sign_slot)
            b.store(b.select(neg, b.fneg(s), s), sign_slot)
            b.store(b.fadd(b.load(log_slot), intrinsic(b, "llvm.log", ty, b.select(neg, b.fneg(d), d))),
                    log_slot)
        bad = _failed(fn, info)
        sign = b.select(bad, fconst(ty, 0), b.load(sign_slot))
        logdet = b.select(bad, fconst(ty, float("-inf")), b.load(log_slot))
        for o in signs:
            b.store(sign, b.gep(o, [p]))
        for o in logs:
            b.store(logdet, b.gep(o, [p]))
    _per_matrix(fn, n, emit)
    k.free()


def _solve(fn, n, x, out):
    k = _Call(fn, n.inputs[0].type.dtype)
    N, R = n.inputs[0].type.shape[-1], n.inputs[1].type.shape[-1]
    b = fn.b
    a, rhs, ipiv, info = k.array(N * N), k.array(N * R), k.array(N, I32), k.int(0)

    def emit(p):
        _to_fortran(fn, x[0], b.mul(p, _c(N * N)), N, N, a)
        _to_fortran(fn, x[1], b.mul(p, _c(N * R)), N, R, rhs)
        k.call("gesv", [k.int(N), k.int(R), a, k.int(N), ipiv, rhs, k.int(N), info])
        bad = _failed(fn, info)
        for o in _outs(fn, n)[0]:
            _from_fortran(fn, rhs, N, R, o, b.mul(p, _c(N * R)), nan=bad)
    _per_matrix(fn, n, emit)
    k.free()


def _qr(fn, n, x, out):
    k = _Call(fn, n.inputs[0].type.dtype)
    m, cols = n.inputs[0].type.shape[-2:]
    kk = min(m, cols)
    mc = m if n.params["mode"] == "complete" else kk        # Q is m x mc, R is mc x cols
    b = fn.b
    a, tau, q, info = k.array(m * cols), k.array(kk), k.array(m * mc), k.int(0)
    qr_args = [k.int(m), k.int(cols), a, k.int(m), tau, None, k.int(0), info]
    k.workspaces("geqrf", qr_args, [(6, k.ty)])
    org_args = [k.int(m), k.int(mc), k.int(kk), q, k.int(m), tau, None, k.int(0), info]
    k.workspaces("orgqr", org_args, [(7, k.ty)])
    qs, rs = _outs(fn, n)

    def emit(p):
        _to_fortran(fn, x[0], b.mul(p, _c(m * cols)), m, cols, a)
        k.call("geqrf", qr_args)
        for o in rs:        # R: the upper triangle of the factored matrix's first mc rows
            _from_fortran(fn, a, mc, cols, o, b.mul(p, _c(mc * cols)), ld=m,
                          keep=lambda i, j: b.icmp_signed("<=", i, j))
        with fn.loop(m * mc) as i:      # Q's columns: the reflectors (the first kk columns)
            src = b.select(b.icmp_signed("<", i, _c(m * kk)), i, _c(0))
            v = b.load(b.gep(a, [src]))
            b.store(b.select(b.icmp_signed("<", i, _c(m * kk)), v, fconst(k.ty, 0)), b.gep(q, [i]))
        k.call("orgqr", org_args)
        for o in qs:
            _from_fortran(fn, q, m, mc, o, b.mul(p, _c(m * mc)))
    _per_matrix(fn, n, emit)
    k.free()


def _svd(fn, n, x, out):
    k = _Call(fn, n.inputs[0].type.dtype)
    m, cols = n.inputs[0].type.shape[-2:]
    kk = min(m, cols)
    full = bool(n.params["full_matrices"])
    ucols, vrows = (m, cols) if full else (kk, kk)
    b = fn.b
    a, s, u, vt = k.array(m * cols), k.array(kk), k.array(m * ucols), k.array(vrows * cols)
    iwork, info = k.array(8 * kk, I32), k.int(0)
    args = [k.char("A" if full else "S"), k.int(m), k.int(cols), a, k.int(m), s, u, k.int(m),
            vt, k.int(max(vrows, 1)), None, k.int(0), iwork, info]
    k.workspaces("gesdd", args, [(11, k.ty)])
    us, ss, vts = _outs(fn, n)

    def emit(p):
        _to_fortran(fn, x[0], b.mul(p, _c(m * cols)), m, cols, a)
        k.call("gesdd", args)
        bad = _failed(fn, info)
        for o in us:
            _from_fortran(fn, u, m, ucols, o, b.mul(p, _c(m * ucols)), nan=bad)
        for o in ss:
            _from_fortran(fn, s, 1, kk, o, b.mul(p, _c(kk)), ld=1, nan=bad)
        for o in vts:
            _from_fortran(fn, vt, vrows, cols, o, b.mul(p, _c(vrows * cols)), ld=vrows, nan=bad)
    _per_matrix(fn, n, emit)
    k.free()


OPAQUE = {Op.cholesky: _cholesky, Op.eigh: _eigh, Op.slogdet: _slogdet, Op.solve: _solve,
          Op.qr: _qr, Op.svd: _svd}
