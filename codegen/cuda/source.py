"""Generated CUDA kernel modules: their source, the on-disk cache, and loading.

Every kernel is a plain, undecorated function in a module of its own, written to
`<JITGRAD_CACHE_DIR>/cuda/<name>-<hash>.py` and imported from there, so one definition serves
`numba.cuda.jit` (with numba's on-disk cache, which needs a real file), the simulator, and
`compile_ptx` in the PTX tests. Kernels are self-contained (no device-function calls) because
compile_ptx cannot compile callees without a GPU (see toolchain.py).
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import types
from dataclasses import dataclass

import numpy as np

from ...ir import config
from ...ir.types import SHORT_NAME, bfloat16, float16
from ...runtime import cache
from .. import disk_cache

HEADER = ("import math", "", "import numpy as np", "from numba import cuda",
          "from numba import boolean, float32, float64, int32, int64  # noqa: F401", "")

NUMBA_TYPE = {np.dtype("float32"): "float32", np.dtype("float64"): "float64",
              np.dtype("int32"): "int32", np.dtype("int64"): "int64", np.dtype("bool"): "boolean",
              **{np.dtype(d): d for d in ("int8", "int16", "uint8", "uint16", "uint32", "uint64")},
              # float16 and bfloat16 as their 16-bit words (codegen/cuda/lowp.py)
              np.dtype(float16): "uint16", np.dtype(bfloat16): "uint16"}
# what a module using the low-precision converts (codegen/cuda/halfwords.py), tensor cores
# (codegen/cuda/mma.py) or numba's small int types (shared arrays of them) imports besides
# HEADER; other modules' text stays as it was
_HALFWORDS = "from jitgrad.codegen.cuda.halfwords import *  # noqa: F401,F403"
_HALFWORD_CALL = re.compile(r"\b(B?F16|F32|F64)_TO_B?F(16|32)(_ODD)?\(")
_MMA = "from jitgrad.codegen.cuda.mma import mma_tf32, mma_tf32x3  # noqa: F401"
_SMALL_TYPES = "from numba import int8, int16, uint8, uint16, uint32, uint64  # noqa: F401"
_SMALL_TYPE_NAME = re.compile(r"(?<![.\w])(u?int(8|16)|uint(32|64))\b(?!\()")


def short(dtype) -> str:
    return SHORT_NAME[np.dtype(dtype)]


@dataclass(frozen=True)
class CudaKernelSource:
    """One generated kernel: `name` (also its function's name), the module text, and the numba
    types of its parameters (arrays as "float32[::1]"), from which its signature is built."""
    name: str
    text: str
    arg_types: tuple

    @property
    def signature(self) -> str:
        return f"void({', '.join(self.arg_types)})"

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    def path(self) -> str:
        return os.path.join(cache.kernel_dir("cuda"), f"{self.name}-{self.digest}.py")

    def load(self):
        """(the kernel's Python function, whether it comes from a file numba can cache beside):
        imported from its cached file (written when missing or when what is there is not exactly
        this source, e.g. a truncated write), or run from memory when the cache directory cannot
        be used (one warning: codegen/disk_cache.usable_root)."""
        modname = f"jitgrad_cuda_kernels.{self.name}_{self.digest}"
        module = sys.modules.get(modname)
        path = self.path()
        on_disk = module is not None and getattr(module, "__file__", None) == path
        if module is None and disk_cache.usable_root("cuda") is not None:
            try:
                if not _has_text(path, self.text):
                    disk_cache.write_atomic(path, self.text)    # a reader never sees half a file
                spec = importlib.util.spec_from_file_location(modname, path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                on_disk = True
            except OSError as e:         # full disk, permissions changed meanwhile
                disk_cache.give_up(cache.kernel_dir("cuda"), e)
                module = None
        if module is None:
            module = types.ModuleType(modname)
            exec(compile(self.text, f"<jitgrad cuda kernel {self.name}>", "exec"), module.__dict__)
        sys.modules[modname] = module       # numba's cache locator finds the module by name
        config.log(4, f"cuda kernel {self.name} ({path if on_disk else 'in memory'}):\n{self.text}")
        return getattr(module, self.name), on_disk


def _has_text(path, text) -> bool:
    try:
        with open(path) as f:
            return f.read() == text
    except OSError:
        return False


def module_text(comment: str, constants: list[str], body_lines: list[str], extra=()) -> str:
    """A kernel module: a comment naming what it computes, imports, constants, the function."""
    code = "\n".join(constants + body_lines)
    extra = list(extra) + ([_HALFWORDS] if _HALFWORD_CALL.search(code) else []) + \
        ([_MMA] if "mma_tf32" in code else []) + \
        ([_SMALL_TYPES] if _SMALL_TYPE_NAME.search(code) else [])
    lines = [f"# {line}" for line in comment.splitlines()] + list(HEADER) + list(extra)
    lines += constants + ([""] if constants else []) + [""] + body_lines
    return "\n".join(lines) + "\n"
