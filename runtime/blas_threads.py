"""The threads of NumPy's BLAS, which eager matmuls and the compiled kernels run on: one, except
for a large eager product, which runs on the runtime's num_threads.

NumPy's wheel bundles OpenBLAS (numpy.libs/libscipy_openblas64_*.so); eager matmuls reach it
through np.matmul and the compiled kernels call its gemm by symbol (codegen/cpu/llvm_jit.py
BUNDLED_BLAS, the same library), splitting large products over the runtime's pool
(runtime/thread_pool.py), so it rests on one thread. OpenBLAS would otherwise start as many
threads as the machine has cores, whatever jg.config's num_threads says: with num_threads 1 an
eager [512,128]x[128,384] product took 16 ms on a busy 2-core machine (its second OpenBLAS
thread waiting for a core) and 0.58 ms on one thread; and its workers spin for a long while
after every threaded call, taking the core the Python thread needs for the ops in between
(GPT's eager training step, every product under 2^24 multiply-adds: 2.6x slower with two BLAS
threads than with one, on 2 busy cores).

`follow_runtime()` puts the library on one thread and keeps the option num_threads (now and after
every jg.config.update/reset of it); `run_product(macs, fn, *args)` runs an eager product on
num_threads where it has PARALLEL_MACS multiply-adds or more, whose halves save milliseconds (as
PyTorch splits only work above a grain size), and puts the library back on one thread after it.
`blas_threads()` reads the setting (None: no bundled OpenBLAS found, e.g. a NumPy built against
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
_lib: list = []          # [(setter, getter, path)] once looked up; [None] when there is none
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
                    found = (getattr(lib, setter), getattr(lib, getter), path)
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


def library_path():
    """The file of NumPy's bundled OpenBLAS whose threads these functions set (None: none)."""
    fns = _functions()
    return None if fns is None else fns[2]


def _set(n) -> None:
    _threads["now"] = n = max(1, int(n))
    fns = _functions()
    if fns is not None:
        fns[0](ctypes.c_int(n))


def _follow(n) -> None:
    _threads["limit"] = max(1, int(n))
    _set(1)


def follow_runtime() -> None:
    """Keep the option num_threads for large eager products, now and whenever it changes; the
    library rests on one thread."""
    if not _lib:
        config.on_update("num_threads", _follow)
    _follow(config.read("num_threads"))


def run_product(macs, fn, *args):
    """fn(*args), an eager product of `macs` multiply-adds, on num_threads BLAS threads from
    PARALLEL_MACS on (one below), the library back on one thread after it."""
    n = 1 if macs < PARALLEL_MACS else _threads["limit"]
    if n == 1:
        if _threads["now"] != 1:
            _set(1)
        return fn(*args)
    _set(n)
    try:
        return fn(*args)
    finally:
        _set(1)
