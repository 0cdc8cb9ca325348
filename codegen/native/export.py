"""A jitted function as a standalone C library: `libNAME.so` + `NAME.h`.

    int32_t NAME(const float* in0, ..., float* out0, ..., void* workspace);

The library is built from the same LLVM kernel units the Python runtime runs
(codegen/native/library.py), linked by codegen/native/link.py, which checks it needs nothing beyond
libc (malloc/free for the heap scratch of large kernels), libm and OpenBLAS (BLAS and LAPACK). What
a library cannot hold is a NativeExportError naming the op and why: the ops the JIT runs on the
host with NumPy (fft, complex values).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ...ir import config
from ...ir.kernel import kernel_nodes
from ...ir.passes.manager import run_pipeline
from ...ir.types import is_bool
from . import library, link

WORKSPACE_ALIGN = 16        # what malloc gives; the arena's own offsets are 64-byte aligned
ERRORS = {"OK": 0, **library.STATUS}

_C_TYPES = {"float32": "float", "float64": "double", "int8": "int8_t", "int16": "int16_t",
            "int32": "int32_t", "int64": "int64_t", "uint8": "uint8_t", "uint16": "uint16_t",
            "uint32": "uint32_t", "uint64": "uint64_t", "bool": "uint8_t"}


class NativeExportError(ValueError):
    """The function cannot become a standalone library (what and why in the message)."""


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
    blas: bool              # links OpenBLAS (a matmul or a decomposition)


def export(graph, out_dir, name: str) -> NativeLibrary:
    """Build lib{name}.so and {name}.h in out_dir from a traced graph (jg.jit(f).lower(...).graph)."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise NativeExportError(f"library name {name!r} is not a C identifier")
    optimized, schedule, plan = run_pipeline(graph)
    if getattr(plan, "donated", None):
        raise NativeExportError("cannot export a function with donated arguments (donate_argnums)")
    nodes = kernel_nodes(optimized, schedule)
    why = library.why_not(nodes, plan)
    if why is not None:
        raise NativeExportError(f"cannot export {graph.name}: {why}")
    mod, workspace, blas = library.build(optimized, nodes, plan, name, WORKSPACE_ALIGN)
    inputs = [Port(f"in{i}", _label(graph, i), v.type) for i, v in enumerate(optimized.inputs)]
    outputs = [Port(f"out{j}", f"output {j}", v.type) for j, v in enumerate(optimized.outputs)]
    so, header = link.link_module(mod, name, out_dir, header_decl=_decl(name, inputs, outputs),
                                  defines=_defines(name, inputs, outputs, workspace),
                                  link_blas=blas,
                                  comment=_comment(inputs, outputs, workspace))
    link.check_portable(so)
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


def _comment(inputs, outputs, workspace) -> str:
    lines = ["Arrays are dense, C order (row-major). Arguments:"]
    lines += [f"  {p.cname}: {p.label} {p.type}" for p in inputs]
    lines += [f"  {p.cname}: {p.label} {p.type}" for p in outputs]
    lines.append(f"  workspace: {workspace} bytes of scratch, {WORKSPACE_ALIGN}-byte aligned "
                 "(NULL when 0), not shared between concurrent calls")
    lines.append("Returns 0, or 1 for a NULL pointer, 2 for a misaligned workspace, 3 for an index "
                 "out of range (take, gather).")
    return "\n".join(lines)
