"""Debug flags, all in one place, read from the environment at the moment they are needed.

JITGRAD_DEBUG=0..4         1 compiles and cache hits, 2 pass timings, 3 optimized IR, 4 kernel source
JITGRAD_PRINT_AFTER=all|fuse,dce   print the IR after these passes
JITGRAD_VERIFY=1           verify the graph between passes (always on under tests)
JITGRAD_DISABLE=fuse,cse   turn passes off (they return their input unchanged)
JITGRAD_CACHE_DIR=path     where generated kernel source and numba's cache live
JITGRAD_EXPLAIN_RECOMPILES=1   say which argument changed when a jitted function retraces
JITGRAD_TRACEBACK=full     keep jitgrad's internal frames in tracebacks
JITGRAD_KERNELS=numba      compile every CPU kernel with numba (default: LLVM IR built with llvmlite
                           for the kernels codegen/llvm_kernels.py covers, numba for the rest)
JITGRAD_BACKEND=interpreter   run jitted CPU graphs (still optimized) on the NumPy reference
                           interpreter instead of generated code: a debugging aid, and what the
                           test suite uses where it checks semantics rather than code generation
"""
from __future__ import annotations

import os

# the flags the pass manager reads live in ir/ (which imports nothing above it)
from ..ir.debug_flags import debug_level, disabled_passes, log, print_after, verify_enabled  # noqa: F401


def _get(name, default=""):
    return os.environ.get(name, default)


def explain_recompiles() -> bool:
    return _get("JITGRAD_EXPLAIN_RECOMPILES") not in ("", "0")


def interpreter_only() -> bool:
    return _get("JITGRAD_BACKEND") == "interpreter"


def numba_kernels_only() -> bool:
    return _get("JITGRAD_KERNELS") == "numba"


def full_traceback() -> bool:
    return _get("JITGRAD_TRACEBACK") == "full"


def cache_dir() -> str:
    d = _get("JITGRAD_CACHE_DIR")
    if not d:
        base = _get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "jitgrad")
    return d

