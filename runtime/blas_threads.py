"""The threads of NumPy's BLAS, which eager matmuls run on: the runtime's setting.

Compiled code calls its BLAS with one thread and splits large products over the runtime's
pool (codegen/cpu/llvm_jit.py, runtime/thread_pool.py). Eager matmuls run np.matmul, whose
OpenBLAS (the one NumPy's wheel bundles, numpy.libs/libscipy_openblas64_*.so) otherwise starts
as many threads as the machine has cores, whatever jg.config's num_threads says: with
num_threads 1 an eager [512,128]x[128,384] product took 16 ms on a busy 2-core machine (its
second OpenBLAS thread waiting for a core) and 0.58 ms on one thread. `follow_runtime()` sets
that BLAS's threads to the option num_threads now and after every jg.config.update/reset of it;
`blas_threads()` reads them back (None: no bundled OpenBLAS found, e.g. a NumPy built against
another BLAS, which keeps its own settings).
"""
from __future__ import annotations

import ctypes
import glob
import os

import numpy as np

from ..ir import config

# (library folder beside numpy, file pattern, setter, getter) of NumPy wheels' OpenBLAS
NUMPY_BLAS = (("numpy.libs", "libscipy_openblas64_*.so", "scipy_openblas_set_num_threads64_",
               "scipy_openblas_get_num_threads64_"),
              ("numpy.libs", "libopenblas64_*.so", "openblas_set_num_threads64_",
               "openblas_get_num_threads64_"))
_lib: list = []          # [(setter, getter)] once looked up; [None] when there is none


def _functions():
    if not _lib:
        site = os.path.dirname(os.path.dirname(np.__file__))
        found = None
        for folder, pattern, setter, getter in NUMPY_BLAS:
            for path in sorted(glob.glob(os.path.join(site, folder, pattern))):
                try:
                    lib = ctypes.CDLL(path)
                    found = (getattr(lib, setter), getattr(lib, getter))
                except (OSError, AttributeError):
                    continue
                break
            if found:
                break
        _lib.append(found)
    return _lib[0]


def blas_threads():
    """How many threads NumPy's bundled OpenBLAS runs a product on (None: none found)."""
    fns = _functions()
    return None if fns is None else int(fns[1]())


def _set(n) -> None:
    fns = _functions()
    if fns is not None:
        fns[0](ctypes.c_int(max(1, int(n))))


def follow_runtime() -> None:
    """NumPy's BLAS threads = the option num_threads, now and whenever it changes."""
    if not _lib:
        config.on_update("num_threads", _set)
    _set(config.read("num_threads"))
