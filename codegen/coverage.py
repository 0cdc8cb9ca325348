"""Coverage: why a target does not compile a kernel node as one kernel of its own, or None.

    why_not(node, target) -> str | None          target: "cpu", "cuda" or "native"

One entry over a table of each target's reason (kept in the target's folder). What the target
then does is its own: the CPU runs the kernel on the host with the NumPy reference (or a loop
over compiled sub-graphs), CUDA runs it op by op through the eager kernels (or a host loop), a
native export refuses it. A caller with a finer question asks the target's function directly
(the LLVM units given a matmul product's place in the memory plan: cpu/llvm_kernels.why_not).
"""
from __future__ import annotations


def _cpu(node):
    from .cpu import host       # lazy: the CPU backend's modules (llvmlite)
    return host.why_not(node)


def _cuda(node):
    from .cuda import kernel_coverage     # lazy: the CUDA generators (not on a CPU-only run)
    return kernel_coverage.why_not(node)


def _native(node):
    from .native import library     # lazy: the native library's builder (llvmlite)
    return library.kernel_why_not(node)


REASONS = {"cpu": _cpu, "cuda": _cuda, "native": _native}


def why_not(node, target: str):
    """None when `target` compiles kernel node `node` as one kernel, else the reason it does not."""
    reason = REASONS.get(target)
    if reason is None:
        raise ValueError(f"unknown codegen target {target!r}; known: {', '.join(REASONS)}")
    return reason(node)
