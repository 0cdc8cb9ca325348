"""Kernels as compilation units: each kernel node of a schedule becomes one LLVM IR module
(codegen/cpu/llvm_kernels.py, compiled by codegen/cpu/llvm_jit.py) holding one function with the C
ABI `int64 kernel(void **argv)` (argv[j]: the address of its j-th flat array; it returns non-zero
when a bounds check failed).

The module's text depends only on the kernel body (ops, params, types, layout) and where its
matmul product goes, never on value names or the user's source lines, so it is canonical: its
name is a hash of that text (and the versions, the generator's code and host CPU), identical
kernels anywhere share one compiled unit, in memory (once per process) and on disk (object code,
checksummed). A 200-layer model whose layers have the same shapes compiles a handful of units.

Every kernel the fusion pass forms is an LLVM unit (issue 26: numba no longer builds CPU
kernels); a kernel `llvm_kernels.why_not` refuses is an internal error naming the kernel and
the reason, never a silent fallback.

`kernel_unit(node, product_hint)` returns the Unit: its address and what each argv slot is
(`params`: ("in", k) | ("const", k) | ("out", k) | ("prod",) | ("status",)), for the sequencer.
"""
from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field

from ...ir import config
from ...ir.ops import Op
from ...runtime import thread_pool
from ..kernel import canonical
from . import llvm_jit, llvm_kernels, llvm_small_gemm
from .kernels import lapack, matmul, opaque
from .kernels.function import FN, POOL_ENTRY


@dataclass
class Unit:
    name: str                       # module name (content hash)
    address: int                    # its entry point
    params: list                    # per argv slot: ("in", k) | ("const", k) | ("out", k) | ...
    consts: list = field(default_factory=list)   # Literals read through ("const", k) slots
    check: tuple | None = None      # (op, check kind, size, source line) of its bounds check
    product_type: object = None     # the TensorType of a ("prod",) scratch slot
    files: list = field(default_factory=list)    # its cache files (what an artifact carries)
    text: object = ""               # its source, or a function building it (a unit from disk)
    shifted: bool = False           # an opaque slice/pad shared by kernels that differ only in
                                    # offsets: kernels/opaque.shifts(node) adds them to its slots

    @property
    def source(self) -> str:
        if callable(self.text):
            self.text = self.text()
        return self.text

    def assembly(self) -> str | None:
        """Its machine code as assembly text (llvmlite's)."""
        return llvm_jit.assembly(self.source)


_lock = threading.Lock()


def largest_array(node) -> int:
    """The largest array a kernel reads or writes, in elements."""
    body = node.params["body"]
    return max([v.type.size for n in body.nodes for v in (*n.inputs, *n.outputs)] + [0])


def _comment(node) -> list[str]:
    """The body as IR text without value names' origin (source lines): canonical."""
    return ["#   " + line for line in canonical.body_lines(node)]


def _body_key(node, product_hint):
    """What a kernel's unit depends on: its body as text without source lines and the role of
    its product buffer (not the arena offset of a scratch product: that is a slot, not code)."""
    body = node.params["body"]
    hint = None
    if product_hint is not None:
        hint = (product_hint[0], body.outputs.index(product_hint[1])
                if product_hint[0] == "output" else None)
    kind = node.params["kind"]
    return (kind, "\n".join(_comment(node)), hint, llvm_kernels.code_options(kind))


_UNITS: dict = {}           # _body_key -> Unit: generating a kernel's source costs milliseconds
_NAMES: dict = {}           # _body_key -> unit name: the prefetch and kernel_unit both ask


def forget() -> None:
    """Drop the units this process holds (the next use loads them from disk again)."""
    with _lock:
        _UNITS.clear()
        _NAMES.clear()
    llvm_jit.forget()


def unit_key(node, product_hint=None) -> tuple:
    """What the kernel's unit is cached under in this process: its body key, or (the shifted
    key,) for a slice or pad compiled without its offsets."""
    shifted = opaque.shifted_key(node)
    if shifted and llvm_kernels.why_not(node) is None:
        return (f"{shifted}; {llvm_kernels.code_options(node.params['kind'])}",)
    return _body_key(node, product_hint)


def needs_build(node, product_hint, key) -> bool:
    """Whether kernel_unit would build LLVM code now: the unit of `key` (unit_key's) is neither
    in this process nor on disk (codegen/cpu/unit_prefetch.py builds such units on two cores)."""
    if key in _UNITS:
        return False
    name = _shifted_name(key[0]) if len(key) == 1 else _llvm_name(node, product_hint, key)
    return not llvm_jit.has_code(name)


def kernel_unit(node, product_hint=None, key=None) -> Unit:
    """The unit of kernel `node` (`key`: its unit_key, when the caller has it)."""
    key = key or unit_key(node, product_hint)
    unit = _UNITS.get(key)
    if unit is None:
        why = llvm_kernels.why_not(node, product_hint)
        if why is not None:
            raise AssertionError(
                f"internal error: the LLVM units do not build this {node.params['kind']} kernel "
                f"({why}); every kernel the fusion pass forms should be covered "
                f"(scripts/llvm_inventory.py lists gaps) (at {node.source_info})")
        unit = _shifted_unit(node, key[0]) if len(key) == 1 else _llvm_unit(node, product_hint, key)
        _UNITS[key] = unit
    return unit


def _llvm_unit(node, product_hint, key) -> Unit:
    """The kernel as LLVM IR compiled by llvmlite (codegen/cpu/llvm_kernels.py): milliseconds. Its
    name hashes the kernel's canonical text and the generator's code, so a unit on disk is found
    without building its IR."""
    llvm_jit.add_symbol(POOL_ENTRY, thread_pool.entry_address())
    roles, consts, product_type, check = llvm_kernels.signature(node, product_hint)
    name = _llvm_name(node, product_hint, key)
    small = small_gemm(node)
    if small:       # its unpacked GEMM function resolves by name before the unit loads
        llvm_small_gemm.register(*small)

    def source() -> str:
        text = llvm_kernels.build(node, product_hint, parallel=True)[0]
        return "\n".join([f"; {node.params['kind']} kernel"] + [";" + c[1:] for c in _comment(node)]
                         + [text.replace(f'@"{FN}"', f'@"{name}"')])
    t0 = time.perf_counter()
    (address,), status = llvm_jit.compile_ir(name, source, [name])
    if status != "loaded":
        how = "llvm hit" if status == "hit" else "llvm compiled"
        config.log(1, f"kernel cache {status}: {name} ({node.params['kind']} kernel, {how}, "
                      f"{time.perf_counter() - t0:.3f} s)")
    return Unit(name, address, roles, consts, check, product_type, [llvm_jit.entry_path(name)],
                source)


def small_gemm(node):
    """(form, dtype) of the llvm_small_gemm function a matmul kernel calls, or None."""
    return matmul.small_gemm(node) if node.params["kind"] == "matmul" else None


def _gemms(node):
    """The BLAS routines a matmul unit may call, registered before it loads: cgemm/zgemm too
    for a complex product."""
    complex_product = any(n.op == Op.matmul and n.output.type.dtype.kind == "c"
                          for n in node.params["body"].nodes)
    return ("sgemm", "dgemm", "cgemm", "zgemm") if complex_product else ("sgemm", "dgemm")


def _llvm_name(node, product_hint, key) -> str:
    name = _NAMES.get(key)
    if name is None:
        blas = [llvm_jit.blas_symbol(fn) for fn in _gemms(node)] \
            if node.params["kind"] == "matmul" else []
        blas += lapack.symbols(node)       # LAPACK routines by address, before it loads
        name = _NAMES[key] = "jg_llvm_" + canonical.digest(
            node, key, llvm_jit.versions(), llvm_kernels.generator_version(), blas)
    return name


def _shifted_name(key) -> str:
    return "jg_llvm_" + hashlib.sha256("\0".join([key, llvm_jit.versions(),
                                                  llvm_kernels.generator_version()]).encode()
                                      ).hexdigest()[:24]


def _shifted_unit(node, key) -> Unit:
    """An opaque slice or pad compiled without its offsets (kernels/opaque.shifts: they are added
    to its argv slots by the caller), named by `key`: the k*k tap slices of a convolution, and
    the pads of their gradients, of one shape are one unit, not k*k (issue 25)."""
    roles, consts, product_type, check = llvm_kernels.signature(node, None, shifted=True)
    name = _shifted_name(key)

    def source() -> str:
        text = llvm_kernels.build(node, parallel=True, shifted=True)[0]
        return "\n".join([f"; opaque kernel, {key} (its offsets are argv slots)"]
                         + [text.replace(f'@"{FN}"', f'@"{name}"')])
    t0 = time.perf_counter()
    (address,), status = llvm_jit.compile_ir(name, source, [name])
    if status != "loaded":
        config.log(1, f"kernel cache {status}: {name} ({key}, {time.perf_counter() - t0:.3f} s)")
    return Unit(name, address, roles, consts, check, product_type, [llvm_jit.entry_path(name)],
                source, shifted=True)
