"""A jitted function as a C library built from the same LLVM kernel units the Python runtime runs.

    int32_t NAME(const float* in0, ..., float* out0, ..., void* workspace);

Every kernel of the schedule is built by codegen/cpu/llvm_kernels.py (identical kernels once), the
units are linked into one LLVM module, and NAME is an LLVM function that does what the sequencer
does per call: for each kernel, an argv of pointers (the caller's inputs and outputs, the
workspace at the memory plan's offsets, array constants as global arrays, the status pair) and
a call. A kernel whose bounds check fails (take/gather index out of range) makes NAME return
ERR_INDEX_OUT_OF_RANGE. matmul calls C BLAS (cblas_sgemm/dgemm, column-major: the units'
Fortran-style call); the decompositions call OpenBLAS's LAPACK (`dpotrf_`, ...: the symbols the
JIT registers as `jg_lapack_<routine>`). Kernels that need heap scratch (accumulator rows of a
column reduction over 64 KiB, a long sort line, LAPACK's matrices and workspaces) call libc's
malloc and free, as in the JIT.

`why_not(nodes, plan)` says when this path cannot build the function (an op that runs on the
host, or a kernel the LLVM units do not cover); export then refuses it. `kernel_why_not(node)`
says it of one kernel (the native entry of codegen/coverage.py).
"""
from __future__ import annotations

import re

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir

from ...ir.control_flow import SCAN, WHILE
from ...ir.errors import UnsupportedOpError
from ...ir.kernel import kernel_nodes
from ...ir.passes.manager import run_pipeline
from ...runtime.executable import ARENA, FIXED, INPUT, OUTPUT
from ..cpu import llvm_kernels, llvm_small_gemm
from ..cpu.kernels import lapack as cpu_lapack
from ..cpu.kernels.function import FN
from ..cpu.backend import Layout, matmul_product_hint, output_results
from ..cpu.host import ANY_PRODUCT, runs_on_host
from ..kernel import control

I8, I32, I64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
PTR = ir.PointerType(I8)
STATUS = {"ERR_NULL_POINTER": 1, "ERR_WORKSPACE_ALIGN": 2, "ERR_INDEX_OUT_OF_RANGE": 3}
_LAPACK_SYMBOL = re.compile(r'@"?jg_lapack_([a-z]+)"?')
_BLAS = {"sgemm": (ir.FloatType(), "cblas_sgemm"), "dgemm": (ir.DoubleType(), "cblas_dgemm")}


def _blas32(fn):
    return f"jg_{fn}32", 32


def _optimized(graph):
    """A control-flow sub-graph through the pass pipeline: (optimized, kernel nodes, plan)."""
    optimized, schedule, plan = run_pipeline(graph)
    return optimized, kernel_nodes(optimized, schedule), plan


def _complex_op(node):
    """The first op of a kernel with a complex value, or None."""
    return next((n for n in node.params["body"].nodes
                 if any(v.type.dtype.kind == "c" for v in (*n.inputs, *n.outputs))), None)


def why_not(nodes, plan):
    """Why the library cannot hold the schedule's kernels (the first refusal), or None."""
    return next(filter(None, (kernel_why_not(n, matmul_product_hint(plan, i, n))
                              for i, n in enumerate(nodes))), None)


def kernel_why_not(n, product_hint=ANY_PRODUCT):
    """Why the library cannot hold kernel `n`, or None: the native entry of codegen/coverage.py.
    `product_hint`: where the memory plan puts a matmul's product (any place by default)."""
    op = control.control_op(n)
    if op is not None:      # a loop or branch: its sub-graphs must build too
        for g in control.sub_graphs(n):
            _, sub_nodes, sub_plan = _optimized(g)
            why = why_not(sub_nodes, sub_plan)
            if why is not None:
                return f"{op}'s {g.name}: {why}"
        return None
    if runs_on_host(n):
        return _host_reason(n.params["body"].nodes[0])
    c = _complex_op(n)
    if c is not None:
        return str(UnsupportedOpError(c.op, "native", "complex values (a C library's "
                                      "signature has no complex type)", c.source_info))
    why = llvm_kernels.why_not(n, product_hint)
    if why is not None:
        return f"its {n.params['kind']} kernel has no LLVM unit ({why})"
    return None


def _host_reason(op_node):
    """Why a library cannot hold an op the JIT runs on the host (NumPy, between kernels)."""
    return str(UnsupportedOpError(op_node.op, "native", "the JIT runs it on the host (NumPy), "
                                  "which a library has not", op_node.source_info))


def build(optimized, nodes, plan, name, workspace_align):
    """(llvmlite module with the external function `name`, workspace bytes, uses BLAS)."""
    layout = Layout(optimized, nodes, plan,
                    lambda n: control.control_op(n) is None and runs_on_host(n))
    units, texts, blas, subs, lapack = [], {}, set(), [], set()
    top = _round(layout.arena_bytes if _uses_arena(layout, plan) else 0, workspace_align)
    for i, n in enumerate(nodes):
        if control.control_op(n) is not None:   # its sub-graphs as functions of this library
            loop = _Loop(n, name, i, top, workspace_align)
            subs.extend(loop.modules)
            blas.update(loop.blas)
            top = loop.end
            units.append(loop)
            continue
        if layout.is_view(i, n):
            units.append(None)
            continue
        text, roles, consts, _, _ = llvm_kernels.build(n, matmul_product_hint(plan, i, n), blas=_blas32)
        fn = texts.setdefault(text, f"jg_unit{len(texts)}")
        units.append((fn, roles, consts))
        blas.update(b for b in _BLAS if f"@\"jg_{b}32\"" in text or f"@jg_{b}32" in text)
        lapack.update(cpu_lapack.routine_names(n))
    main = ir.Module(name=name)
    results = output_results(optimized, layout)
    entry = _entry(main, name, optimized, layout, nodes, units, results, plan, workspace_align,
                   bool(subs))
    for fn in blas:
        _blas_wrapper(main, fn)
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    mod = llvm.parse_assembly(str(main))
    mod.triple = llvm.get_process_triple()
    for text, fn in texts.items():
        text = _LAPACK_SYMBOL.sub(r'@"\1_"', text)    # the JIT's name -> OpenBLAS's Fortran one
        unit = llvm.parse_assembly(text.replace(f'@"{FN}"', f'@"{fn}"'))
        unit.triple, unit.data_layout = mod.triple, mod.data_layout
        mod.link_in(unit)
    for sub in subs:
        sub.triple, sub.data_layout = mod.triple, mod.data_layout
        mod.link_in(sub)
    for form, dt in llvm_small_gemm.called(texts):     # the unpacked GEMMs, defined here
        small = llvm.parse_assembly(llvm_small_gemm.module_text(form, dt))
        small.triple, small.data_layout = mod.triple, mod.data_layout
        mod.link_in(small)
    for f in mod.functions:
        if not f.is_declaration and f.name != entry:
            f.linkage = llvm.Linkage.internal
    for g in mod.global_variables:
        if not g.is_declaration:
            g.linkage = llvm.Linkage.internal
    mod.verify()
    workspace = top if subs else (layout.arena_bytes if _uses_arena(layout, plan) else 0)
    return mod, workspace, bool(blas) or bool(lapack)


def _uses_arena(layout, plan):
    return any(b.kind == ARENA for b in layout.buffer.values()) or bool(getattr(plan, "scratch", None))


def _entry(main, name, graph, layout, nodes, units, results, plan, align, loops=False):
    n_in, n_out = len(graph.inputs), len(graph.outputs)
    fn = ir.Function(main, ir.FunctionType(I32, [PTR] * (n_in + n_out + 1)), name=name)
    ins, outs, ws = fn.args[:n_in], fn.args[n_in:n_in + n_out], fn.args[-1]
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    workspace = _uses_arena(layout, plan) or loops

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
    for i, (u, node) in enumerate(zip(units, nodes)):
        if u is None:           # a view: no copy
            continue
        if isinstance(u, _Loop):
            u.emit(b, [pointer(layout.buffer[v]) for v in node.inputs],
                   [pointer(layout.buffer[v]) for v in node.outputs], ws)
            continue
        unit, roles, lits = u
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
        buf, t = r[:2]      # (a donated input given back: copied to the output here)
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


def _round(n, align):
    return -(-n // align) * align


class _Loop:
    """A control-flow node in the library. Each sub-graph (body, condition, branch) is built by
    `build` as a function NAME_l{i}_{k}(inputs..., outputs..., workspace) linked into the library,
    with its own part of the workspace; the entry runs scan / while_loop as a loop around the
    body's call (the carry ping-pongs between the node's output and a workspace copy, xs and ys
    are strided pointers) and cond / switch as the call the clamped index picks."""

    def __init__(self, node, name, i, start, align):
        self.node, self.op = node, control.control_op(node)
        self.inner = node.params["body"].nodes[0]
        self.fns, self.modules, self.blas = [], [], set()
        top = start
        for k, g in enumerate(control.sub_graphs(node)):
            fname = f"{name}_l{i}_{k}"
            optimized, sub_nodes, sub_plan = _optimized(g)
            mod, ws, uses_blas = build(optimized, sub_nodes, sub_plan, fname, align)
            self.modules.append(mod)
            self.blas.update({"sgemm"} if uses_blas else ())
            self.fns.append((fname, len(g.inputs) + len(g.outputs), top))
            top = _round(top + ws, align)

        def alloc(nbytes):
            nonlocal top
            at, top = top, _round(top + max(nbytes, 1), align)
            return at
        carried = self.inner.params.get("n_carry", 0)
        self.copies = [alloc(v.type.nbytes) for v in self.inner.outputs[:carried]]
        self.flag = alloc(1) if self.op == WHILE else None
        read = set(node.params["body"].outputs)
        self.unread = [alloc(v.type.nbytes) for v in self.inner.outputs if v not in read]
        self.end = top

    def emit(self, b, ins, outs, ws):
        def at(offset):
            return b.gep(ws, [ir.Constant(I64, offset)])
        unread = iter(self.unread)
        ins, outs = control.operands(self.node, ins, outs, lambda n: at(next(unread)))
        fns = []
        for fname, n_args, offset in self.fns:
            f = b.module.globals.get(fname) or ir.Function(
                b.module, ir.FunctionType(I32, [PTR] * (n_args + 1)), name=fname)
            fns.append((f, at(offset)))
        if self.op in (SCAN, WHILE):
            self._loop(b, ins, outs, fns, [at(o) for o in self.copies],
                       None if self.flag is None else at(self.flag))
        else:
            self._branch(b, ins, outs, fns)

    @staticmethod
    def _call(b, fn, args):
        f, ws = fn
        st = b.call(f, list(args) + [ws])
        with b.if_then(b.icmp_unsigned("!=", st, ir.Constant(I32, 0)), likely=False):
            b.ret(st)

    def _loop(self, b, ins, outs, fns, copies, flag):
        p, types = self.inner.params, [v.type for v in self.inner.outputs]
        nc = p["n_carry"]
        nx = p.get("n_xs", 0)
        length = p.get("length", 0)
        init, xs, consts = ins[:nc], ins[nc:nc + nx], ins[nc + nx:]
        carry, ys = outs[:nc], outs[nc:]
        for c in range(nc):
            _memmove(b, carry[c], init[c], types[c].nbytes)
        pre = b.block
        head = b.append_basic_block("loop_head")
        step = b.append_basic_block("loop_step")
        done = b.append_basic_block("loop_done")
        b.branch(head)
        b.position_at_end(head)
        it = b.phi(I64)
        it.add_incoming(ir.Constant(I64, 0), pre)
        odd = b.trunc(b.and_(it, ir.Constant(I64, 1)), ir.IntType(1))
        cur = [b.select(odd, copies[c], carry[c]) for c in range(nc)]
        nxt = [b.select(odd, carry[c], copies[c]) for c in range(nc)]
        if flag is None:
            more = b.icmp_signed("<", it, ir.Constant(I64, length))
        else:
            self._call(b, fns[1], cur + consts + [flag])
            more = b.icmp_unsigned("!=", b.load(flag), ir.Constant(I8, 0))
        b.cbranch(more, step, done)
        b.position_at_end(step)
        i = b.sub(ir.Constant(I64, length - 1), it) if p.get("reverse") else it

        def row(ptr, t):
            return b.gep(ptr, [b.mul(i, ir.Constant(I64, t.nbytes // max(length, 1)))])
        x_rows = [row(x, v.type) for x, v in zip(xs, self.inner.inputs[nc:nc + nx])]
        y_rows = [row(y, t) for y, t in zip(ys, types[nc:])]
        self._call(b, fns[0], cur + x_rows + consts + nxt + y_rows)
        it.add_incoming(b.add(it, ir.Constant(I64, 1)), b.block)
        b.branch(head)
        b.position_at_end(done)
        with b.if_then(odd):          # the last step wrote the scratch copy
            for c in range(nc):
                _memmove(b, carry[c], copies[c], types[c].nbytes)

    def _branch(self, b, ins, outs, fns):
        index_t = self.inner.inputs[0].type.dtype
        width = ir.IntType(8 * index_t.itemsize)
        raw = b.load(b.bitcast(ins[0], ir.PointerType(width)))
        k = raw if width.width == 64 else (
            b.zext(raw, I64) if index_t.kind in "bu" else b.sext(raw, I64))
        top = ir.Constant(I64, len(fns) - 1)
        k = b.select(b.icmp_signed("<", k, ir.Constant(I64, 0)), ir.Constant(I64, 0), k)
        k = b.select(b.icmp_signed(">", k, top), top, k)
        for j, fn in enumerate(fns):
            with b.if_then(b.icmp_signed("==", k, ir.Constant(I64, j))):
                self._call(b, fn, list(ins[1:]) + list(outs))


def _memmove(b, dst, src, n):
    if n:
        fn = b.module.declare_intrinsic("llvm.memmove", [PTR, PTR, I64])
        b.call(fn, [dst, src, ir.Constant(I64, n), ir.Constant(ir.IntType(1), 0)])
