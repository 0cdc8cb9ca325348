"""Scratch memory of the LLVM opaque kernels (sort, LAPACK): on the stack up to SCRATCH_STACK
bytes, else malloc'd (and freed by the kernel); `extern` declares a C function once per module."""
from __future__ import annotations

from llvmlite import ir

from ..llvm_exprs import I8, I64

SCRATCH_STACK = 1 << 16     # bytes of scratch on the stack; more are malloc'd
I8P = ir.PointerType(I8)


def extern(fn, name, fnty):
    g = fn.module.globals.get(name)
    return g if g is not None else ir.Function(fn.module, fnty, name=name)


def malloc(fn, ty, nbytes):
    """A pointer to `nbytes` (an int or an i64 value) bytes of heap, as ty*."""
    f = extern(fn, "malloc", ir.FunctionType(I8P, [I64]))
    n = nbytes if isinstance(nbytes, ir.Value) else ir.Constant(I64, max(int(nbytes), 1))
    return fn.b.bitcast(fn.b.call(f, [n]), ir.PointerType(ty))


def free(fn, ptr):
    f = extern(fn, "free", ir.FunctionType(ir.VoidType(), [I8P]))
    fn.b.call(f, [fn.b.bitcast(ptr, I8P)])


def scratch(fn, ty, nbytes, n):
    """(pointer to n elements of ty of nbytes each, on the heap?)."""
    if n * nbytes <= SCRATCH_STACK:
        return fn.alloca(ty, max(n, 1)), False
    return malloc(fn, ty, n * nbytes), True
