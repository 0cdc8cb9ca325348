"""A jitted function as a C library built from the same LLVM kernel units the Python runtime runs.

    int32_t NAME(const float* in0, ..., float* out0, ..., void* workspace);

Every kernel of the schedule is built by codegen/llvm_kernels.py (identical kernels once), the
units are linked into one LLVM module, and NAME is an LLVM function that does what the sequencer
does per call: for each kernel, an argv of pointers (the caller's inputs and outputs, the
workspace at the memory plan's offsets, array constants as global arrays, the status pair) and
a call. A kernel whose bounds check fails (take/gather index out of range) makes NAME return
ERR_INDEX_OUT_OF_RANGE, where the numba-built library (codegen/native_entry.py) clamps the index.
matmul calls C BLAS (cblas_sgemm/dgemm, column-major: the units' Fortran-style call).

`why_not(nodes, plan)` says when this path cannot build the function (a kernel the LLVM units
do not cover, or one that would allocate); export then goes through the numba entry, logged.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ..runtime.executable import ARENA, FIXED, INPUT, OUTPUT
from . import llvm_kernels

I8, I32, I64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
PTR = ir.PointerType(I8)
STATUS = {"ERR_NULL_POINTER": 1, "ERR_WORKSPACE_ALIGN": 2, "ERR_INDEX_OUT_OF_RANGE": 3}
_BLAS = {"sgemm": (ir.FloatType(), "cblas_sgemm"), "dgemm": (ir.DoubleType(), "cblas_dgemm")}


def _blas32(fn):
    return f"jg_{fn}32", 32


def why_not(nodes, plan):
    from .cpu import _on_host, _product_hint
    for i, n in enumerate(nodes):
        if _on_host(n):
            return f"{n.params['body'].nodes[0].op} runs on the host"
        why = llvm_kernels.why_not(n, _product_hint(plan, i, n))
        if why is not None:
            return f"its {n.params['kind']} kernel needs numba ({why})"
        if llvm_kernels.needs_heap(n):
            return f"its {n.params['kind']} kernel needs heap scratch"
    return None


def build(optimized, nodes, plan, name, workspace_align):
    """(llvmlite module with the external function `name`, workspace bytes, uses BLAS)."""
    import llvmlite.binding as llvm

    from .cpu import _Layout, _product_hint, _results
    layout = _Layout(optimized, nodes, plan)
    units, texts, blas = [], {}, set()
    for i, n in enumerate(nodes):
        text, roles, consts, _, _ = llvm_kernels.build(n, _product_hint(plan, i, n), blas=_blas32)
        fn = texts.setdefault(text, f"jg_unit{len(texts)}")
        units.append((fn, roles, consts))
        blas.update(b for b in _BLAS if f"@\"jg_{b}32\"" in text or f"@jg_{b}32" in text)
    main = ir.Module(name=name)
    results = _results(optimized, layout)
    entry = _entry(main, name, optimized, layout, nodes, units, results, plan, workspace_align)
    for fn in blas:
        _blas_wrapper(main, fn)
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    mod = llvm.parse_assembly(str(main))
    mod.triple = llvm.get_process_triple()
    for text, fn in texts.items():
        unit = llvm.parse_assembly(text.replace(f'@"{llvm_kernels.FN}"', f'@"{fn}"'))
        unit.triple, unit.data_layout = mod.triple, mod.data_layout
        mod.link_in(unit)
    for f in mod.functions:
        if not f.is_declaration and f.name != entry:
            f.linkage = llvm.Linkage.internal
    for g in mod.global_variables:
        if not g.is_declaration:
            g.linkage = llvm.Linkage.internal
    mod.verify()
    return mod, layout.arena_bytes if _uses_arena(layout, plan) else 0, bool(blas)


def _uses_arena(layout, plan):
    return any(b.kind == ARENA for b in layout.buffer.values()) or bool(getattr(plan, "scratch", None))


def _entry(main, name, graph, layout, nodes, units, results, plan, align):
    n_in, n_out = len(graph.inputs), len(graph.outputs)
    fn = ir.Function(main, ir.FunctionType(I32, [PTR] * (n_in + n_out + 1)), name=name)
    ins, outs, ws = fn.args[:n_in], fn.args[n_in:n_in + n_out], fn.args[-1]
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    workspace = _uses_arena(layout, plan)

    def fail(cond, code):
        with b.if_then(cond, likely=False):
            b.ret(ir.Constant(I32, code))

    for p in [*ins, *outs] + ([ws] if workspace else []):
        fail(b.icmp_unsigned("==", b.ptrtoint(p, I64), ir.Constant(I64, 0)), STATUS["ERR_NULL_POINTER"])
    fail(b.icmp_unsigned("!=", b.urem(b.ptrtoint(ws, I64), ir.Constant(I64, align)), ir.Constant(I64, 0)),
         STATUS["ERR_WORKSPACE_ALIGN"])
    status = b.alloca(I64, size=ir.Constant(I64, 2))
    for k in range(2):
        b.store(ir.Constant(I64, 0), b.gep(status, [ir.Constant(I64, k)]))
    out_param = {r: outs[j] for j, r in enumerate(results) if isinstance(r, int)}
    consts = {}

    def pointer(buf):
        if buf.kind == INPUT:
            return ins[buf.index]
        if buf.kind == OUTPUT:
            return out_param[buf.index]
        if buf.kind == ARENA:
            return b.gep(ws, [ir.Constant(I64, buf.offset)])
        raise AssertionError(f"native units: a {buf.kind} buffer")

    def const(array):
        """An array constant as a global of the library (read-only data)."""
        data = np.ascontiguousarray(array).tobytes() or b"\0"
        g = consts.get(data)
        if g is None:
            ty = ir.ArrayType(I8, len(data))
            g = consts[data] = ir.GlobalVariable(main, ty, name=f"jg_const{len(consts)}")
            g.initializer = ir.Constant(ty, bytearray(data))
            g.global_constant = True
            g.align = 64
        return b.bitcast(g, PTR)

    decls = {}
    for i, ((unit, roles, lits), node) in enumerate(zip(units, nodes)):
        callee = decls.get(unit) or decls.setdefault(
            unit, ir.Function(main, ir.FunctionType(I64, [ir.PointerType(PTR)]), name=unit))
        argv = b.alloca(PTR, size=ir.Constant(I64, max(len(roles), 1)))
        for j, role in enumerate(roles):
            if role[0] == "in":
                p = pointer(layout.buffer[node.inputs[role[1]]])
            elif role[0] == "out":
                p = pointer(layout.buffer[node.outputs[role[1]]])
            elif role[0] == "const":
                p = const(lits[role[1]].array)
            elif role[0] == "prod":
                p = b.gep(ws, [ir.Constant(I64, plan.scratch[i][0])])
            else:
                p = b.bitcast(status, PTR)
            b.store(p, b.gep(argv, [ir.Constant(I64, j)]))
        st = b.call(callee, [argv])
        fail(b.icmp_unsigned("!=", st, ir.Constant(I64, 0)), STATUS["ERR_INDEX_OUT_OF_RANGE"])
    for j, r in enumerate(results):      # an output that is an input, a constant, another output
        if isinstance(r, int):
            continue
        buf, t = r
        src = const(layout.bases.fixed[buf.index]) if buf.kind == FIXED else pointer(buf)
        _memcpy(b, outs[j], src, t.nbytes)
    b.ret(ir.Constant(I32, 0))
    return name


def _memcpy(b, dst, src, n):
    if n:
        fn = b.module.declare_intrinsic("llvm.memcpy", [PTR, PTR, I64])
        b.call(fn, [dst, src, ir.Constant(I64, n), ir.Constant(ir.IntType(1), 0)])


def _blas_wrapper(main, fn):
    """jg_<fn>32 (the units' Fortran-style call: pointers to every argument) on C BLAS:
    cblas_<fn>(ColMajor, ...) computes the same column-major product."""
    ty, cname = _BLAS[fn]
    P, IP, CP = ir.PointerType(ty), ir.PointerType(I32), ir.PointerType(I8)
    f = ir.Function(main, ir.FunctionType(ir.VoidType(), [CP, CP, IP, IP, IP, P, P, IP, P, IP, P, P, IP]),
                    name=f"jg_{fn}32")
    cblas = ir.Function(main, ir.FunctionType(ir.VoidType(), [I32, I32, I32, I32, I32, I32, ty, P, I32,
                                                              P, I32, ty, P, I32]), name=cname)
    b = ir.IRBuilder(f.append_basic_block("entry"))
    ta, tb, m, n, k, alpha, a, lda, bb, ldb, beta, c, ldc = f.args

    def trans(p):
        return b.select(b.icmp_unsigned("==", b.load(p), ir.Constant(I8, ord("T"))),
                        ir.Constant(I32, 112), ir.Constant(I32, 111))
    b.call(cblas, [ir.Constant(I32, 102), trans(ta), trans(tb), b.load(m), b.load(n), b.load(k),
                   b.load(alpha), a, b.load(lda), bb, b.load(ldb), b.load(beta), c, b.load(ldc)])
    b.ret_void()
