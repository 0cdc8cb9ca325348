"""LLVM IR -> machine code in this process, with compiled objects cached on disk.

llvmlite's MCJIT compiles a module of generated IR (codegen/cpu/llvm_kernels.py) in milliseconds,
where numba needs a second to start and a tenth of one per function to type and lower it. One
execution engine holds every unit of the process; each unit is its own module, named by the hash
of its IR text (and llvmlite's version and the host CPU), so identical kernels compile once.

Disk cache: `<kernel dir>/llvm/<name>.obj` holds the SHA-256 of the object code followed by the
object code MCJIT produced. A later process builds the (cheap) IR text, finds the entry, checks
its digest and hands the object to MCJIT instead of optimizing and compiling: a damaged entry is
logged and rebuilt, never run. Writes are atomic (temp file + rename); an unusable cache
directory means compiling in memory, with one warning (codegen/disk_cache.usable_root).

External functions (BLAS gemm) are resolved by symbol name through `llvm.add_symbol`, so cached
objects stay valid across processes (no absolute addresses are baked into the code).
"""
from __future__ import annotations

import ctypes
import glob
import os
import threading
import time

import llvmlite
import numpy as np

from ...ir import config
from ...runtime import cache
from .. import disk_cache

_lock = threading.RLock()
_state: dict = {}          # "engine", "tm", "llvm", "versions", "features", "blas_core"
_objects: dict = {}        # module name -> object bytes just compiled (for notify)
_disk: dict = {}           # module name -> object bytes read from disk (for getbuffer)
_ADDR: dict = {}           # (module name, function) -> address
_SYMBOLS: set = set()


def _binding():
    """llvmlite's binding, the host target machine and the engine (call under _lock)."""
    llvm = _state.get("llvm")
    if llvm is None:
        import llvmlite.binding as llvm     # lazy: LLVM itself (25 ms) loads on the first unit
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple()
        tm = target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                          features=llvm.get_host_cpu_features().flatten(),
                                          opt=3, jit=True)
        _state.update(llvm=llvm, tm=tm)
    if "engine" not in _state:
        engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), _state["tm"])
        engine.set_object_cache(_notify, _getbuffer)
        _state["engine"] = engine
    return llvm


_retired: list = []         # engines whose code units made before forget() may still run


def forget() -> None:
    """Forget the units loaded so far and the BLAS found: the next use loads them from disk
    again (into a fresh engine; the old one stays alive for executables that still call its
    code) and looks for the BLAS again (BUNDLED_BLAS, then scipy's cython_blas)."""
    with _lock:
        if "engine" in _state:
            _retired.append(_state.pop("engine"))
        _ADDR.clear()
        _BLAS.clear()
        _state.pop("blas_path", None)


def host_has(feature: str) -> bool:
    """Whether the host CPU has `feature` (LLVM's name: "avx512f", "avx2", ...)."""
    features = _state.get("features")
    if features is None:
        with _lock:
            features = _state["features"] = dict(_binding().get_host_cpu_features())
    return bool(features.get(feature))


def versions() -> str:
    """What a compiled object depends on besides its IR: part of every unit's name."""
    v = _state.get("versions")
    if v is None:
        with _lock:
            llvm = _binding()
        v = _state["versions"] = (f"llvmlite={llvmlite.__version__} "
                                  f"cpu={llvm.get_host_cpu_name()} "
                                  f"features={llvm.get_host_cpu_features().flatten()}")
    return v


def _notify(module, buffer):
    _objects[module.name] = bytes(buffer)


def _getbuffer(module):
    return _disk.pop(module.name, None)


def add_symbol(name: str, address: int) -> None:
    """Make `name` resolve to `address` in every module compiled from now on."""
    with _lock:
        if name not in _SYMBOLS:
            _binding().add_symbol(name, address)
            _SYMBOLS.add(name)


# ----------------------------------------------------------------------------- disk entries

def entry_path(name: str) -> str:
    return os.path.join(cache.kernel_dir("llvm"), name + ".obj")


def has_code(name: str) -> bool:
    """Whether unit `name` is loaded in this process or has a disk entry (not yet checked)."""
    return (name, name) in _ADDR or os.path.exists(entry_path(name))


def locked():
    """The lock every LLVM call of jitgrad holds (a fork must not copy it held by a thread)."""
    return _lock


def _read_entry(name: str):
    """(verified object code or None, 'hit' | 'miss' | 'rebuilt' (damaged: logged) | 'memory'
    (no usable cache directory))."""
    if disk_cache.usable_root("llvm") is None:
        return None, "memory"
    return disk_cache.read_sealed(entry_path(name))


def _write_entry(name: str, obj: bytes) -> None:
    root = disk_cache.usable_root("llvm")
    if root is not None:
        disk_cache.write_sealed(root, entry_path(name), obj)


# ----------------------------------------------------------------------------- compiling

def _optimize(mod, vectorized=False):
    """O3 with LLVM's vectorizers for generated scalar loops; O1 without them for IR that is
    vectorized already (llvm_small_gemm: its tiles ran as fast, and compiled in 0.07 instead of
    0.10-0.14 s each, a cold first call's largest units)."""
    llvm = _state["llvm"]
    pto = llvm.create_pipeline_tuning_options(1 if vectorized else 3)
    pto.loop_vectorization = not vectorized
    pto.slp_vectorization = not vectorized
    pto.loop_unrolling = False
    pb = llvm.create_pass_builder(_state["tm"], pto)
    pb.getModulePassManager().run(mod, pb)


def compile_ir(name: str, ir_text, functions: list, vectorized=False) -> tuple[list, str]:
    """Addresses of `functions` in module `name`, and where its code came from: 'loaded' (earlier
    in this process), 'hit' (the disk cache: `ir_text` is not needed), or compiled now from
    `ir_text` (a str, or a function returning it): 'miss', 'rebuilt' (the entry was damaged) or
    'memory' (no usable cache directory). vectorized: the IR's loops are vectorized by hand
    (see _optimize)."""
    with _lock:
        if (name, functions[0]) in _ADDR:
            return [_ADDR[name, f] for f in functions], "loaded"
        llvm = _binding()
        engine = _state["engine"]
        t0 = time.perf_counter()
        obj, status = _read_entry(name)
        if obj is not None:         # MCJIT takes the object for this (empty) module's name
            _disk[name] = obj
            mod = llvm.parse_assembly("")
        else:
            mod = llvm.parse_assembly(ir_text() if callable(ir_text) else ir_text)
        mod.name = name
        mod.triple = _state["tm"].triple
        mod.data_layout = str(_state["tm"].target_data)
        if obj is None:
            mod.verify()
            _optimize(mod, vectorized)
        engine.add_module(mod)
        engine.finalize_object()
        _disk.pop(name, None)
        obj = _objects.pop(name, None)
        if status in ("miss", "rebuilt") and obj is not None:
            _write_entry(name, obj)
        for f in functions:
            _ADDR[name, f] = engine.get_function_address(f)
        config.log(2, f"llvm unit {name}: {status} in {time.perf_counter() - t0:.4f} s")
        return [_ADDR[name, f] for f in functions], status


def assembly(ir_text: str) -> str:
    """The optimized machine code of a unit's IR as assembly text (for tests and debugging)."""
    with _lock:
        llvm = _binding()
        mod = llvm.parse_assembly(ir_text)
        mod.triple = _state["tm"].triple
        mod.data_layout = str(_state["tm"].target_data)
        _optimize(mod)
        return _state["tm"].emit_assembly(mod)


def capsule_address(capsule) -> int:
    """The pointer a PyCapsule holds (scipy's cython_blas exports its functions as capsules)."""
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return api.PyCapsule_GetPointer(capsule, api.PyCapsule_GetName(capsule))


def blas_symbol(fn: str) -> tuple[str, int]:
    """(symbol, integer bits) of the Fortran BLAS routine `fn` (sgemm, dgemm), registered as
    `jg_<fn><bits>`: the OpenBLAS that NumPy's or scipy's wheel bundles, opened directly (no
    scipy import: ~0.3 s), else scipy's cython_blas. NumPy's comes first: its OpenBLAS (0.3.31,
    64-bit integers) took 0.65-1.0x the time of scipy's (0.3.30) on every sgemm shape of the
    eager models here (LSTM's [20,200]x[200,800] 0.65x), and it is the library whose threads
    runtime/blas_threads.py sets, so eager and compiled products share one thread setting."""
    with _lock:
        found = _BLAS.get(fn)
        if found is None:
            found = _BLAS[fn] = _bundled_blas(fn) or _scipy_blas(fn)
        return found


def blas_core() -> str:
    """The name of the kernel set the bundled OpenBLAS chose for this CPU ("Haswell",
    "SkylakeX", ...), or "" when unknown (scipy's cython_blas)."""
    blas_symbol("sgemm")
    return _state.get("blas_core", "")


def blas_library() -> str:
    """The file of the bundled OpenBLAS the kernels call, or "" (scipy's cython_blas)."""
    blas_symbol("sgemm")
    return _state.get("blas_path", "")


_BLAS: dict = {}
# (wheel library directory, file pattern, symbol pattern, integer bits, its thread-count setter,
# its core-name getter)
BUNDLED_BLAS = (("numpy.libs", "libscipy_openblas64_*.so", "scipy_{fn}_64_", 64,
                 "scipy_openblas_set_num_threads64_", "scipy_openblas_get_corename64_"),
                ("scipy.libs", "libscipy_openblas-*.so", "scipy_{fn}_", 32,
                 "scipy_openblas_set_num_threads", "scipy_openblas_get_corename"))


def _bundled_blas(fn):
    site = os.path.dirname(os.path.dirname(np.__file__))
    for libs, pattern, symbol, bits, threads, core in BUNDLED_BLAS:
        for path in sorted(glob.glob(os.path.join(site, libs, pattern))):
            try:
                lib = ctypes.CDLL(path)
                address = ctypes.cast(getattr(lib, symbol.format(fn=fn)), ctypes.c_void_p).value
            except (OSError, AttributeError):
                continue
            # one BLAS thread per call: the runtime's pool splits large products by rows
            # (kernels/matmul.gen_matmul); OpenBLAS's own threads spin between calls and, beside
            # other work, took GPT's step from 150 ms to 2.7 s here
            if hasattr(lib, threads):
                getattr(lib, threads)(ctypes.c_int(1))
            if hasattr(lib, core):
                getattr(lib, core).restype = ctypes.c_char_p
                _state["blas_core"] = getattr(lib, core)().decode()
            _state["blas_path"] = path
            add_symbol(f"jg_{fn}{bits}", address)
            return f"jg_{fn}{bits}", bits
    return None


def _scipy_blas(fn):
    from scipy.linalg import cython_blas     # lazy: scipy, only when NumPy bundles no BLAS
    add_symbol(f"jg_{fn}32", capsule_address(cython_blas.__pyx_capi__[fn]))
    return f"jg_{fn}32", 32
