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

Small products run on one thread whatever num_threads says (`for_product(macs)`, called before
each eager matmul): OpenBLAS's workers spin for a long while after every threaded call, so on a
busy or 2-core machine they take the core the Python thread needs for the ops in between (GPT's
eager training step, every product under 2^24 multiply-adds: 2.6x slower with two BLAS threads
than with one, on 2 busy cores). Only a product of PARALLEL_MACS or more, whose halves save
milliseconds, runs on num_threads (as PyTorch splits only work above a grain size).
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
PARALLEL_MACS = 1 << 28  # multiply-adds of the smallest eager product run on num_threads
_threads = {"limit": 1, "now": None}    # the option num_threads; the BLAS's setting now


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
    _threads["now"] = n = max(1, int(n))
    fns = _functions()
    if fns is not None:
        fns[0](ctypes.c_int(n))


def _follow(n) -> None:
    _threads["limit"] = max(1, int(n))
    _set(n)


def follow_runtime() -> None:
    """NumPy's BLAS threads = the option num_threads, now and whenever it changes."""
    if not _lib:
        config.on_update("num_threads", _follow)
    _follow(config.read("num_threads"))


def for_product(macs) -> None:
    """Set NumPy's BLAS threads for a product of `macs` multiply-adds: one below PARALLEL_MACS,
    else num_threads (the setter is called only when that changes)."""
    n = 1 if macs < PARALLEL_MACS else _threads["limit"]
    if n != _threads["now"]:
        _set(n)
