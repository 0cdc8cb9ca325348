"""Which kernels the CPU backend runs on the host, with the NumPy reference between the compiled
kernels, and why.

Ops without a CPU kernel do (fft; control flow unless it compiles as a native loop:
codegen/cpu/loops.py), and so do the kernels with complex values that the LLVM units do not build
(`complex_gap`: an op codegen/cpu/llvm_complex.py lacks, such as arcsin or log1p of a complex).

`why_not(node)` is the CPU's entry in codegen/coverage.py: None when the kernel is an LLVM unit.
"""
from __future__ import annotations

from ..kernel.control import control_op
from . import llvm_kernels
from .kernels import opaque

# a matmul product's place (the memory plan's) does not decide whether a kernel is built
ANY_PRODUCT = ("scratch", 0)


def only_op(node):
    """The op of a one-op kernel, else None."""
    nodes = node.params["body"].nodes
    return nodes[0].op if len(nodes) == 1 else None


def _complex(node) -> bool:
    body = node.params["body"]
    return any(v.type.dtype.kind == "c" for n in body.nodes for v in (*n.inputs, *n.outputs))


def complex_gap(node):
    """Why a kernel with complex values runs on the host (llvm_kernels.why_not's reason: an op,
    reduction or matmul operand codegen/cpu/llvm_complex.py does not compute), or None: an LLVM
    unit, or no complex values."""
    return llvm_kernels.why_not(node, ANY_PRODUCT) if _complex(node) else None


def host_reason(node):
    """Why kernel `node` runs on the host, or None (control flow included: it holds sub-graphs;
    the backend then tries a native loop)."""
    op = only_op(node)
    gap = complex_gap(node)
    if gap is not None:
        return f"complex values ({gap})"
    if node.params["kind"] == "opaque" and op not in opaque.OPAQUE:
        return f"no CPU kernel implements {op or 'a multi-op opaque kernel'}"
    return None


def runs_on_host(node) -> bool:
    """Kernels with complex values that the LLVM units do not build (complex_gap) and
    ops no CPU kernel implements (structured control flow: cond, while_loop, scan hold
    sub-graphs; fft) run on the host with the NumPy reference between kernels."""
    return host_reason(node) is not None


def why_not(node):
    """None when the CPU backend compiles kernel `node` as one LLVM unit, else why not: a loop
    or branch over compiled sub-graphs, a host step, or a gap of the LLVM units."""
    op = control_op(node)
    if op is not None:
        return f"{op} holds sub-graphs (a native loop over their units, else a host step)"
    return host_reason(node) or llvm_kernels.why_not(node, ANY_PRODUCT)
