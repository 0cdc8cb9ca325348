"""Kernels as compilation units: each kernel node of a schedule becomes one generated module
holding one numba `cfunc` with the C ABI `int64 kernel(void **argv)` (argv[j]: the address of its
j-th flat array; it returns non-zero when a bounds check failed).

The module's text depends only on the kernel body (ops, params, types, layout) and where its
matmul product goes, never on value names or the user's source lines, so it is canonical: its
name is a hash of that text (and the versions and host CPU), identical kernels anywhere share one
compiled unit, in memory (once per process) and on disk (numba's cache, checksummed by
disk_cache). A 200-layer model whose layers have the same shapes compiles a handful of units.

`kernel_unit(node, product_hint)` returns the Unit: its address and what each argv slot is
(`params`: ("in", k) | ("const", k) | ("out", k) | ("prod",) | ("status",)), for the sequencer.
"""
from __future__ import annotations

import hashlib
import re
import sys
import threading
import time
from dataclasses import dataclass, field

from ..ir import config
from ..ir.ops import Op
from ..runtime import thread_pool
from . import canonical, disk_cache, llvm_jit, llvm_kernels, llvm_lapack, llvm_opaque
from .cpu_kernels import generate
from .entry import ModuleBuilder, np_dtype

LONG_LOOP = 1024     # elements: below, a kernel's loops gain little from SIMD
SIG = "types.int64(types.CPointer(types.voidptr))"
_ROLE = re.compile(r"(in|c|out)(\d+)$")


@dataclass
class Unit:
    name: str                       # module name (content hash)
    address: int                    # the cfunc's entry point
    params: list                    # per argv slot: ("in", k) | ("const", k) | ("out", k) | ...
    consts: list = field(default_factory=list)   # Literals read through ("const", k) slots
    check: tuple | None = None      # (op, check kind, size, source line) of its bounds check
    product_type: object = None     # the TensorType of a ("prod",) scratch slot
    files: list = field(default_factory=list)    # its cache files (what an artifact carries)
    text: object = ""               # its source, or a function building it (a unit from disk)
    shifted: bool = False           # an opaque slice/pad shared by kernels that differ only in
                                    # offsets: llvm_opaque.shifts(node) adds them to its slots

    @property
    def source(self) -> str:
        if callable(self.text):
            self.text = self.text()
        return self.text

    def assembly(self) -> str | None:
        """Its machine code as assembly text: llvmlite's for an LLVM unit, numba's own for a
        numba unit (None once `forget()` dropped the loaded module)."""
        if self.name.startswith("jg_llvm_"):
            return llvm_jit.assembly(self.source)
        hit = _LOADED.get(self.name)
        return None if hit is None else hit[0].kernel._library.get_asm_str()   # no public API


_LOADED: dict = {}          # module name -> (module, address): one compile per process
_lock = threading.Lock()


def largest_array(node) -> int:
    """The largest array a kernel reads or writes, in elements."""
    body = node.params["body"]
    return max([v.type.size for n in body.nodes for v in (*n.inputs, *n.outputs)] + [0])


def _bindings(ks, node, product_type):
    """`name = carray(argv[j], (size,), dtype)` per array parameter, and the slot roles."""
    body = node.params["body"]
    lines, roles = [], []
    for p in ks.params:
        m = _ROLE.match(p)
        if p == "check":          # the kernel's one bounds check: its number within the kernel
            lines.append("check = 1")
            continue
        if m:
            kind, k = m.group(1), int(m.group(2))
            if kind == "c":
                arr = ks.consts[k].array
                size, dt = arr.size, arr.dtype
                roles.append(("const", k))
            else:
                t = (body.inputs if kind == "in" else body.outputs)[k].type
                size, dt = t.size, t.dtype
                roles.append(("in" if kind == "in" else "out", k))
        elif p == "prod":
            size, dt = product_type.size, product_type.dtype
            roles.append(("prod",))
        elif p == "status":
            size, dt = 2, None
            roles.append(("status",))
        else:
            raise AssertionError(f"cpu codegen: unknown kernel parameter {p!r}")
        dts = "np.int64" if dt is None else np_dtype(dt)
        lines.append(f"{p} = carray(argv[{len(roles) - 1}], ({max(size, 0)},), {dts})")
    return lines, roles


def _comment(node) -> list[str]:
    """The body as IR text without value names' origin (source lines): canonical."""
    return ["#   " + line for line in canonical.body_lines(node)]


def unit_source(node, product_hint=None):
    """(module source, KernelSource, argv roles) of kernel `node`."""
    mb = ModuleBuilder()
    mb.product_hint = product_hint
    mb.long_loop = largest_array(node) >= LONG_LOOP
    kind = node.params["kind"]
    ks = generate(mb, "kernel", node)
    product_type = None
    if "prod" in ks.params:
        body = node.params["body"]
        product_type = next(n for n in body.nodes if n.op == Op.matmul).output.type
    lines, roles = _bindings(ks, node, product_type)
    buf = mb.header("jitgrad kernel unit", "from numba import carray, cfunc, prange, types")
    buf.writeline()
    buf.writeline()
    buf.writeline(f"# {kind} kernel")
    buf.writelines(_comment(node))
    opts = ", ".join(["cache=True", 'error_model="numpy"', *ks.flags])
    buf.writeline(f"@cfunc({SIG}, {opts})")
    with buf.indent("def kernel(argv):"):
        buf.writelines(lines)
        buf.writelines(ks.body.rstrip("\n").splitlines())
        buf.writeline("return status[0]" if "status" in ks.params else "return 0")
    return buf.getvalue(), ks, roles, product_type, mb


def _body_key(node, product_hint):
    """What a kernel's unit depends on: its body as text without source lines and the role of
    its product buffer (not the arena offset of a scratch product: that is a slot, not code)."""
    body = node.params["body"]
    hint = None
    if product_hint is not None:
        hint = (product_hint[0], body.outputs.index(product_hint[1])
                if product_hint[0] == "output" else None)
    return (node.params["kind"], "\n".join(_comment(node)), hint)


_UNITS: dict = {}           # _body_key -> Unit: generating a kernel's source costs milliseconds


def forget() -> None:
    """Drop the units this process holds (the next use loads them from disk again)."""
    with _lock:
        _UNITS.clear()
        _LOADED.clear()
    llvm_jit.forget()


def kernel_unit(node, product_hint=None) -> Unit:
    shifted = None if config.numba_kernels_only() else llvm_opaque.shifted_key(node)
    key = (config.numba_kernels_only(), *((shifted,) if shifted and
                                           llvm_kernels.why_not(node) is None
                                           else _body_key(node, product_hint)))
    unit = _UNITS.get(key)
    if unit is None:
        why = "JITGRAD_KERNELS=numba" if config.numba_kernels_only() else \
            llvm_kernels.why_not(node, product_hint)
        if why is None and len(key) == 2:
            unit = _shifted_unit(node, shifted)
        elif why is None:
            unit = _llvm_unit(node, product_hint)
        else:
            config.log(1, f"kernel unit: {node.params['kind']} kernel compiled with numba ({why})")
            unit = _compile_unit(node, product_hint)
        _UNITS[key] = unit
    return unit


def _llvm_unit(node, product_hint) -> Unit:
    """The kernel as LLVM IR compiled by llvmlite (codegen/llvm_kernels.py): milliseconds. Its
    name hashes the kernel's canonical text and the generator's code, so a unit on disk is found
    without building its IR."""
    llvm_jit.add_symbol(llvm_kernels.POOL_ENTRY, thread_pool.entry_address())
    roles, consts, product_type, check = llvm_kernels.signature(node, product_hint)
    blas = [llvm_jit.blas_symbol(fn) for fn in ("sgemm", "dgemm")] if node.params["kind"] == "matmul" else []
    blas += llvm_lapack.symbols(node)       # LAPACK routines by address, before it loads
    name = "jg_llvm_" + canonical.digest(node, _body_key(node, product_hint), llvm_jit.versions(),
                                         llvm_kernels.generator_version(), blas)

    def source() -> str:
        text = llvm_kernels.build(node, product_hint, parallel=True)[0]
        return "\n".join([f"; {node.params['kind']} kernel"] + [";" + c[1:] for c in _comment(node)]
                         + [text.replace(f'@"{llvm_kernels.FN}"', f'@"{name}"')])
    t0 = time.perf_counter()
    (address,), status = llvm_jit.compile_ir(name, source, [name])
    if status != "loaded":
        how = "llvm hit" if status == "hit" else "llvm compiled"
        config.log(1, f"kernel cache {status}: {name} ({node.params['kind']} kernel, {how}, "
                      f"{time.perf_counter() - t0:.3f} s)")
    return Unit(name, address, roles, consts, check, product_type, [llvm_jit.entry_path(name)],
                source)


def _shifted_unit(node, key) -> Unit:
    """An opaque slice or pad compiled without its offsets (llvm_opaque.shifts: they are added
    to its argv slots by the caller), named by `key`: the k*k tap slices of a convolution, and
    the pads of their gradients, of one shape are one unit, not k*k (issue 25)."""
    roles, consts, product_type, check = llvm_kernels.signature(node, None, shifted=True)
    name = "jg_llvm_" + hashlib.sha256("\0".join([key, llvm_jit.versions(),
                                                   llvm_kernels.generator_version()]).encode()
                                       ).hexdigest()[:24]

    def source() -> str:
        text = llvm_kernels.build(node, parallel=True, shifted=True)[0]
        return "\n".join([f"; opaque kernel, {key} (its offsets are argv slots)"]
                         + [text.replace(f'@"{llvm_kernels.FN}"', f'@"{name}"')])
    t0 = time.perf_counter()
    (address,), status = llvm_jit.compile_ir(name, source, [name])
    if status != "loaded":
        config.log(1, f"kernel cache {status}: {name} ({key}, {time.perf_counter() - t0:.3f} s)")
    return Unit(name, address, roles, consts, check, product_type, [llvm_jit.entry_path(name)],
                source, shifted=True)


def _compile_unit(node, product_hint) -> Unit:
    source, ks, roles, product_type, mb = unit_source(node, product_hint)
    h = hashlib.sha256(f"{disk_cache.versions()}\0{source}".encode()).hexdigest()[:24]
    name = f"jg_kernel_{h}"
    with _lock:
        hit = _LOADED.get(name)
        if hit is None:
            t0 = time.perf_counter()
            module, status = disk_cache.load_module(name, source)
            disk_cache.seal(name)
            hit = _LOADED[name] = (module, module.kernel.address)
            how = "numba cache hit" if module.kernel.cache_hits else "numba compiled"
            config.log(1, f"kernel cache {status}: {name} ({node.params['kind']} kernel, {how}, "
                          f"{time.perf_counter() - t0:.3f} s)")
    check = None
    if mb.checks:
        (check,) = mb.checks
    return Unit(name, hit[1], roles, list(ks.consts), check, product_type,
                disk_cache.entry_files(name), source)
