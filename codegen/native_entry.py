"""A jitted function as a standalone C library: `libNAME.so` + `NAME.h`.

    int32_t NAME(const float* in0, ..., float* out0, ..., void* workspace);

The CPU backend generates the same kernels and ONE @njit entry as for Python, in native mode
(ModuleBuilder(native=True)): matmul calls C BLAS through `gemm` below instead of numba's np.dot
and loops stay serial (no thread pool in a library). The generated source is then made
library-safe by a few rewrites (_REWRITES): what numba lowers through its runtime or Python's
error machinery (allocation, the reshape helper, overlap checks of slice assignment, np.transpose
with axes) becomes an equivalent below that needs neither; the kernels' small fixed-size
temporaries (scratch rows, lane accumulators) become stack arrays. Left unsupported (the build
names the symbols): sort/argsort, which allocate, and random, which runs in Python.

A generated numba `cfunc` wraps the entry: `carray` views over the caller's pointers and
workspace, array constants baked in as global arrays, pointer checks returning an error code.
codegen/native.py turns that cfunc's LLVM IR into the library (O3, PIC object, gcc) and checks it
needs nothing beyond libc, libm and OpenBLAS.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from llvmlite import ir as llvm_ir
from numba import carray, cfunc, types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic, overload
from numba.np.numpy_support import as_dtype

from ..ir import config
from ..ir.kernel import kernel_nodes
from ..ir.passes.manager import run_pipeline
from ..ir.types import is_bool
from . import disk_cache, native, native_units
from .entry_program import EntryProgram, unsupported

WORKSPACE_ALIGN = 16        # what malloc gives; the arena's own offsets are 64-byte aligned
STACK_LIMIT = 1 << 18       # bytes per stack temporary: keep far below an 8 MiB thread stack
ERRORS = {"OK": 0, **native_units.STATUS}

_C_TYPES = {"float32": "float", "float64": "double", "int32": "int32_t", "int64": "int64_t",
            "bool": "uint8_t"}


class NativeExportError(ValueError):
    """The function cannot become a standalone library (what and why in the message)."""


# ----------------------------------------------------------------------------- used by kernels

def gemm(a, b, c, trans_a, trans_b):
    """c = op(a) @ op(b) through C BLAS (cblas_sgemm/cblas_dgemm); native-mode matmul kernels."""
    raise NotImplementedError("gemm runs only inside numba-compiled code")


@overload(gemm, inline="always")
def _gemm(a, b, c, trans_a, trans_b):
    impl = {types.float32: native.sgemm, types.float64: native.dgemm}.get(getattr(a, "dtype", None))
    if impl is None:
        return None
    return lambda a, b, c, trans_a, trans_b: impl(a, b, c, trans_a, trans_b)


def _stack_array(n, dtype, fill):
    """(array type, codegen) of a 1-d C array of n (a literal) elements on the stack of the
    calling function, every element set to `fill` (a value's type, or None to leave it)."""
    if not isinstance(n, types.IntegerLiteral) or not isinstance(dtype, (types.NumberClass, types.DType)):
        return None
    dt = dtype.dtype if isinstance(dtype, types.DType) else dtype.instance_type
    count = n.literal_value
    size = count * as_dtype(dt).itemsize
    if size > STACK_LIMIT:
        raise NativeExportError(f"a kernel temporary of {size} bytes does not fit on the stack "
                                f"(limit {STACK_LIMIT}); this function cannot be exported")
    arrty = types.Array(dt, 1, "C")

    def codegen(context, builder, sig, args):
        lty = context.get_data_type(dt)
        with builder.goto_entry_block():
            ptr = builder.alloca(lty, size=llvm_ir.Constant(llvm_ir.IntType(64), max(count, 1)))
            ptr.align = 64
        if fill is not None:
            value = context.cast(builder, args[1], fill, dt)
            with cgutils.for_range(builder, context.get_constant(types.intp, count)) as loop:
                builder.store(value, builder.gep(ptr, [loop.index]))
        ary = context.make_array(arrty)(context, builder)
        item = context.get_constant(types.intp, context.get_abi_sizeof(lty))
        context.populate_array(ary, data=ptr, shape=[context.get_constant(types.intp, count)],
                               strides=[item], itemsize=item, meminfo=None)
        return ary._getvalue()
    return arrty, codegen


@intrinsic(prefer_literal=True)
def stack_empty(typingctx, n, dtype):
    """np.empty(n, dtype) for native-mode kernels (n a literal)."""
    made = _stack_array(n, dtype, None)
    return made and (made[0](n, dtype), made[1])


@intrinsic(prefer_literal=True)
def stack_full(typingctx, n, value, dtype):
    """np.full(n, value, dtype) for native-mode kernels (n a literal)."""
    made = _stack_array(n, dtype, value)
    return made and (made[0](n, value, dtype), made[1])


def stack_zeros(n, dtype):
    """np.zeros(n, dtype) for native-mode kernels (n a literal)."""
    raise NotImplementedError("stack_zeros runs only inside numba-compiled code")


@overload(stack_zeros, prefer_literal=True, inline="always")
def _stack_zeros(n, dtype):
    if isinstance(n, types.IntegerLiteral):
        return lambda n, dtype: stack_full(n, 0, dtype)
    return None


@intrinsic
def reshape_c(typingctx, arr, shape):
    """arr.reshape(shape) for a contiguous arr, as a view: numba's reshape calls a helper in its
    runtime and raises on failure; the generator only reshapes to sizes that match."""
    dims_t = [shape] if isinstance(shape, types.Integer) else list(getattr(shape, "types", ()))
    if not isinstance(arr, types.Array) or not all(isinstance(t, types.Integer) for t in dims_t):
        return None
    retty = types.Array(arr.dtype, len(dims_t), "C")

    def codegen(context, builder, sig, args):
        src = context.make_array(arr)(context, builder, args[0])
        raw = [args[1]] if isinstance(shape, types.Integer) else cgutils.unpack_tuple(builder, args[1])
        dims = [context.cast(builder, d, t, types.intp) for d, t in zip(raw, dims_t)]
        strides, step = [], src.itemsize
        for d in reversed(dims):
            strides.insert(0, step)
            step = builder.mul(step, d)
        out = context.make_array(retty)(context, builder)
        context.populate_array(out, data=src.data, shape=dims, strides=strides,
                               itemsize=src.itemsize, meminfo=src.meminfo, parent=src.parent)
        return impl_ret_borrowed(context, builder, retty, out._getvalue())
    return retty(arr, shape), codegen


@intrinsic(prefer_literal=True)
def transpose_c(typingctx, arr, perm):
    """np.transpose(arr, perm) as a view for a literal perm (numba's builds the axes in a new array)."""
    axes = [getattr(t, "literal_value", None) for t in getattr(perm, "types", ())]
    if not isinstance(arr, types.Array) or sorted(axes, key=str) != list(range(arr.ndim)):
        return None
    retty = types.Array(arr.dtype, arr.ndim, "A")

    def codegen(context, builder, sig, args):
        src = context.make_array(arr)(context, builder, args[0])
        shape = cgutils.unpack_tuple(builder, src.shape)
        strides = cgutils.unpack_tuple(builder, src.strides)
        out = context.make_array(retty)(context, builder)
        context.populate_array(out, data=src.data, shape=[shape[a] for a in axes],
                               strides=[strides[a] for a in axes], itemsize=src.itemsize,
                               meminfo=src.meminfo, parent=src.parent)
        return impl_ret_borrowed(context, builder, retty, out._getvalue())
    return retty(arr, perm), codegen


def assign(dst, src):
    """dst[...] = src for native-mode kernels: numba's slice assignment checks at run time
    whether the two overlap and copies src to a fresh array if so; here they never do."""
    raise NotImplementedError("assign runs only inside numba-compiled code")


@overload(assign, inline="always")
def _assign(dst, src):
    if not isinstance(dst, types.Array):
        return None
    if isinstance(src, types.Array):
        def copy(dst, src):
            for idx in np.ndindex(dst.shape):
                dst[idx] = src[idx]
        return copy

    def fill(dst, src):
        for idx in np.ndindex(dst.shape):
            dst[idx] = src
    return fill


@intrinsic
def _address(typingctx, ptr):
    """A pointer as an integer (for NULL and alignment checks)."""
    if not isinstance(ptr, (types.CPointer, types.RawPointer)):
        return None

    def codegen(context, builder, sig, args):
        return builder.ptrtoint(args[0], context.get_value_type(types.uintp))
    return types.uintp(ptr), codegen


# The generated source, made library-safe: calls that numba lowers through its runtime (NRT
# allocation, the reshape helper) or Python's error machinery become equivalents that need neither.
_REWRITES = (
    (re.compile(r"\bnp\.(empty|zeros|full)\("), r"stack_\1("),     # small temporaries
    (re.compile(r"\b(\w+)\.reshape\("), r"reshape_c(\1, "),        # receivers are plain names
    (re.compile(r"\bnp\.transpose\("), "transpose_c("),
    (re.compile(r"^(\s*)(\S.*?)(\[\.\.\.\]|\[[^\]]*:[^\]]*\]) = (.+)$", re.M),   # slice assignment
     lambda m: f"{m[1]}assign({m[2]}{'' if m[3] == '[...]' else m[3]}, {m[4]})"),
)


def native_source(source: str) -> str:
    for pattern, repl in _REWRITES:
        source = pattern.sub(repl, source)
    return source


# ----------------------------------------------------------------------------- the library

@dataclass
class Port:
    """One C parameter: its name in the prototype, the traced argument's name and type."""
    cname: str
    label: str
    type: object

    @property
    def ctype(self) -> str:
        return _C_TYPES[self.type.dtype.name if not is_bool(self.type.dtype) else "bool"]


@dataclass
class NativeLibrary:
    name: str
    so_path: Path
    header_path: Path
    inputs: list
    outputs: list
    workspace_bytes: int
    blas: bool              # links OpenBLAS (the function has a matmul)


def export(graph, out_dir, name: str) -> NativeLibrary:
    """Build lib{name}.so and {name}.h in out_dir from a traced graph (jg.jit(f).lower(...).graph)."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise NativeExportError(f"library name {name!r} is not a C identifier")
    optimized, schedule, plan = run_pipeline(graph)
    if getattr(plan, "donated", None):
        raise NativeExportError("cannot export a function with donated arguments (donate_argnums)")
    nodes = kernel_nodes(optimized, schedule)
    why = native_units.why_not(nodes, plan)
    if why is None:
        return _export_units(graph, optimized, nodes, plan, out_dir, name)
    config.log(1, f"native export {name}: through the numba entry ({why})")
    err = unsupported(nodes)
    if err is not None:
        raise NativeExportError(f"cannot export {graph.name}: {err}")
    prog = EntryProgram(optimized, nodes, plan, native=True)
    if prog.hosts:
        ops = ", ".join(sorted({str(n.params["body"].nodes[0].op) for n in prog.hosts}))
        raise NativeExportError(f"cannot export {graph.name}: it uses {ops}, which runs in Python "
                                "(NumPy's generator); pass random numbers in as an input instead")
    prog.layout(plan)
    source = native_source(prog.generate())
    if config.debug_level() >= 4:
        print(source, flush=True)
    module = _load_module(optimized, source)
    inputs = [Port(f"in{i}", _label(graph, i), v.type) for i, v in enumerate(optimized.inputs)]
    outputs = [Port(f"out{j}", f"output {j}", v.type) for j, v in enumerate(optimized.outputs)]
    uses_arena = bool(prog.arena_values) or bool(getattr(plan, "scratch", None))
    workspace = prog.arena_bytes if uses_arena else 0
    fn = _wrapper(prog, module, name, inputs, outputs, workspace)
    defines = _defines(name, inputs, outputs, workspace)
    decl = _decl(name, inputs, outputs)
    blas = "gemm(" in source
    so, header = native.build_shared_library(fn, name, out_dir, header_decl=decl, defines=defines,
                                             link_blas=blas, comment=_comment(inputs, outputs, workspace))
    native.check_portable(so)
    config.log(1, f"native export {name}: {so} ({workspace} bytes of workspace)")
    return NativeLibrary(name, so, header, inputs, outputs, workspace, blas)


def _export_units(graph, optimized, nodes, plan, out_dir, name) -> NativeLibrary:
    """The library from the LLVM kernel units (codegen/native_units.py)."""
    mod, workspace, blas = native_units.build(optimized, nodes, plan, name, WORKSPACE_ALIGN)
    inputs = [Port(f"in{i}", _label(graph, i), v.type) for i, v in enumerate(optimized.inputs)]
    outputs = [Port(f"out{j}", f"output {j}", v.type) for j, v in enumerate(optimized.outputs)]
    so, header = native.link_module(mod, name, out_dir, header_decl=_decl(name, inputs, outputs),
                                    defines=_defines(name, inputs, outputs, workspace),
                                    link_blas=blas,
                                    comment=_comment(inputs, outputs, workspace, units=True))
    native.check_portable(so)
    config.log(1, f"native export {name}: {so} from {len(nodes)} LLVM kernel units "
                  f"({workspace} bytes of workspace)")
    return NativeLibrary(name, so, header, inputs, outputs, workspace, blas)


def _decl(name, inputs, outputs) -> str:
    return (f"int32_t {name}(" + ", ".join([f"const {p.ctype}* {p.cname}" for p in inputs] +
                                           [f"{p.ctype}* {p.cname}" for p in outputs] +
                                           ["void* workspace"]) + ");")


def _label(graph, i):
    names = graph.arg_names or []
    return names[i] if i < len(names) and names[i] else f"in{i}"


def _load_module(optimized, source):
    name = disk_cache.module_name(str(optimized), source, backend="native")
    module, status = disk_cache.load_module(name, source, backend="native")
    config.log(1, f"native kernels {status}: {name}")
    return module


def _np_dtype(t) -> str:
    return "np.bool_" if is_bool(t.dtype) else f"np.{t.dtype.name}"


def _shape(t) -> str:
    shape = t.shape or (1,)       # a scalar is one element
    return "(" + ", ".join(str(d) for d in shape) + ",)"


def _wrapper(prog, module, name, inputs, outputs, workspace):
    """The cfunc: check pointers, view them as arrays, run the entry, copy aliased outputs."""
    g = prog.graph
    params = [p.cname for p in inputs] + [p.cname for p in outputs] + ["workspace"]
    lines = [f"def {name}({', '.join(params)}):"]
    pointers = [p.cname for p in inputs + outputs] + (["workspace"] if workspace else [])
    if pointers:
        lines.append(f"    if {' or '.join(f'_address({p}) == 0' for p in pointers)}:")
        lines.append(f"        return {ERRORS['ERR_NULL_POINTER']}")
    lines.append(f"    if _address(workspace) % {WORKSPACE_ALIGN} != 0:")
    lines.append(f"        return {ERRORS['ERR_WORKSPACE_ALIGN']}")
    for i, p in enumerate(inputs):
        lines.append(f"    x{i} = carray({p.cname}, {_shape(p.type)}, {_np_dtype(p.type)})")
    for j in range(len(prog.consts)):
        lines.append(f"    cv{j} = CONST{j}")
    lines.append(f"    arena = carray(workspace, ({workspace},), np.uint8)")
    written = {v: k for k, v in enumerate(prog.outputs)}
    copies = []
    for j, (p, v) in enumerate(zip(outputs, g.outputs)):
        k = written.pop(v, None)
        lines.append(f"    {'o%d' % k if k is not None else 'r%d' % j} = "
                     f"carray({p.cname}, {_shape(p.type)}, {_np_dtype(p.type)})")
        if k is None:
            copies.append((j, v))
    for e in prog.entry_names:
        lines.append(f"    {e}({', '.join(prog.params)})")
    for j, v in copies:      # an output that is an input, a constant or another output
        src = prog.flat[v]
        lines.append(f"    {src} = {prog.bind[src]}")
        lines.append(f"    rf{j} = r{j}.reshape({max(v.type.size, 1)})")
        lines.append(f"    for i in range({v.type.size}):")
        lines.append(f"        rf{j}[i] = {src}[i]")
    lines.append("    return 0")
    text = native_source("\n".join(lines) + "\n")
    if config.debug_level() >= 4:
        print(text, flush=True)
    env = {"np": np, "carray": carray, "_address": _address, "reshape_c": reshape_c,
           **{e: getattr(module, e) for e in prog.entry_names},
           **{f"CONST{j}": c for j, c in enumerate(prog.consts)}}
    exec(compile(text, f"<jitgrad native entry {name}>", "exec"), env)
    sig = types.int32(*([types.voidptr] * len(params)))
    return cfunc(sig, error_model="numpy", nogil=True)(env[name])


def _defines(name, inputs, outputs, workspace) -> dict:
    up = name.upper()
    d = {f"{up}_WORKSPACE_BYTES": workspace, f"{up}_WORKSPACE_ALIGN": WORKSPACE_ALIGN,
         f"{up}_NUM_INPUTS": len(inputs), f"{up}_NUM_OUTPUTS": len(outputs)}
    for kind, ports in (("IN", inputs), ("OUT", outputs)):
        for i, p in enumerate(ports):
            d[f"{up}_{kind}{i}_SIZE"] = p.type.size
            d[f"{up}_{kind}{i}_NDIM"] = p.type.ndim
            for k, dim in enumerate(p.type.shape):
                d[f"{up}_{kind}{i}_DIM{k}"] = dim
    d.update({f"{up}_{k}": v for k, v in ERRORS.items()})
    return d


def _comment(inputs, outputs, workspace, units=False) -> str:
    lines = ["Arrays are dense, C order (row-major). Arguments:"]
    lines += [f"  {p.cname}: {p.label} {p.type}" for p in inputs]
    lines += [f"  {p.cname}: {p.label} {p.type}" for p in outputs]
    lines.append(f"  workspace: {workspace} bytes of scratch, {WORKSPACE_ALIGN}-byte aligned "
                 "(NULL when 0), not shared between concurrent calls")
    lines.append("Returns 0, or 1 for a NULL pointer, 2 for a misaligned workspace"
                 + (", 3 for an index out of range (take, gather)." if units else "."))
    return "\n".join(lines)
