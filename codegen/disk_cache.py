"""Generated modules on disk, so numba's own cache (cache=True) applies across processes.

A module's name is content-addressed: a hash of the optimized IR text, the generated source, the
backend, the jitgrad/numba/llvmlite versions and the host CPU. The source is written to
`<kernel dir>/<name>.py` (runtime/cache.py: a marked subdirectory of JITGRAD_CACHE_DIR; temp
file + os.replace, so a reader never sees half a file and two processes writing the same entry
both leave a whole one), imported from there and registered in sys.modules; numba keeps the
compiled code beside it in __pycache__.

Every entry carries `<name>.sha256`: the SHA-256 of each of its files (source, numba's index and
object code), written by `seal` once numba has compiled and checked by `load_module` before
numba reads anything. A source file that is not exactly the expected text, or compiled code
that does not match its checksums (or has none), is logged and rebuilt: numba never unpickles
or runs a damaged entry. A cache directory that cannot be written (read-only, a file, full,
not creatable) means compiling in memory, with one warning per directory.
"""
from __future__ import annotations

import ast
import glob
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
import types
import warnings

import llvmlite

from ..ir import config
from ..runtime import cache

_VERSIONS = None
_UNUSABLE: dict[str, str] = {}       # kernel dir -> why it cannot be written
_WARNED: set = set()                 # cache directories warned about


class CacheWarning(RuntimeWarning):
    """The kernel cache directory is unusable; kernels compile in memory."""


def versions() -> str:
    """jitgrad, numba and llvmlite versions and the host CPU: part of every entry's name."""
    global _VERSIONS
    if _VERSIONS is None:
        import numba     # lazy: numba (0.3 s) loads for numba units only, never on an LLVM-only run
        import llvmlite.binding as llvm
        from importlib.metadata import version
        _VERSIONS = (f"jitgrad={version('jitgrad')} numba={numba.__version__} "
                     f"llvmlite={llvmlite.__version__} cpu={llvm.get_host_cpu_name()}")
    return _VERSIONS


def module_name(ir_text: str, source: str, backend: str = "cpu") -> str:
    h = hashlib.sha256()
    for part in (backend, versions(), ir_text, source):
        h.update(part.encode())
        h.update(b"\0")
    return f"jg_{backend}_{h.hexdigest()[:24]}"


def cache_root(backend: str = "cpu") -> str:
    return cache.kernel_dir(backend)


# ----------------------------------------------------------------------------- loading

def load_module(name: str, source: str, backend: str = "cpu"):
    """(module, 'hit'|'miss'|'rebuilt'|'memory'): the generated module, from a verified cache
    entry when the cache directory is usable, else compiled in memory."""
    root = usable_root(backend)
    if root is not None:
        try:
            path, status = _ensure_source(root, name, source)
            if not _verified(root, name):
                status = "rebuilt"
            return _import_file(name, path), status
        except OSError as e:        # full disk, permissions changed meanwhile: as if unusable
            give_up(root, e)
    return _import_source(name, source), "memory"


def seal(name: str, backend: str = "cpu") -> None:
    """Record the checksums of the entry's files, after numba has written its code."""
    root = cache_root(backend)
    if root in _UNUSABLE or not os.path.isfile(os.path.join(root, name + ".py")):
        return
    sums = _checksums(root, name)
    try:
        if _read_sums(root, name) != sums:
            write_atomic(_sums_path(root, name), json.dumps(sums, indent=1, sort_keys=True))
    except OSError as e:
        config.log(1, f"kernel cache: cannot write checksums of {name} ({e}); it is rebuilt next time")


def entry_files(name: str, backend: str = "cpu") -> list:
    """The entry's source and numba's files for it (what an artifact carries)."""
    root = cache_root(backend)
    return [os.path.join(root, name + ".py")] + sorted(
        glob.glob(os.path.join(root, "__pycache__", glob.escape(name) + ".*")))


def drop_numba_cache(name: str, backend: str = "cpu") -> None:
    _drop(cache_root(backend), name)


def install(files: dict, mtimes: dict) -> None:
    """Write entries carried by a verified artifact: files maps '<backend>/<relative path>' to
    bytes (only names jitgrad gives its entries), mtimes the sources' numba stamps; then seal.
    Without a usable cache directory nothing is written (the backend compiles in memory)."""
    for rel in files:
        backend, _, inner = rel.partition("/")
        if backend not in ("cpu", "native", "llvm") or not cache.is_entry_path(inner):
            raise ValueError(f"{rel!r} is not a kernel cache entry")
    entries = set()
    for rel, data in sorted(files.items()):
        backend, _, inner = rel.partition("/")
        root = usable_root(backend)
        if root is None:
            continue
        dest = os.path.join(root, inner)
        try:
            write_atomic(dest, data)
            if rel in mtimes:              # numba's index checks the source file's stamp
                os.utime(dest, ns=(mtimes[rel], mtimes[rel]))
        except OSError as e:
            give_up(root, e)
            continue
        entries.add((backend, os.path.basename(inner).split(".")[0]))
    for backend, name in entries:
        if backend != "llvm":           # an LLVM object carries its own digest
            seal(name, backend)


# ----------------------------------------------------------------------------- the directory

def usable_root(backend: str):
    """The backend's kernel dir, created and probed for writing; None (warned once) if unusable."""
    root = cache_root(backend)
    if root in _UNUSABLE:
        return None
    try:
        cache.make_root()
        probe = root if backend in ("llvm", "pipeline") else os.path.join(root, "__pycache__")  # numba's
        os.makedirs(probe, exist_ok=True)
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as e:
        give_up(root, e)
        return None
    return root


def give_up(root: str, e: OSError) -> None:
    """Stop using the backend dir `root`; one warning per cache directory, whichever backend
    (numba units, LLVM units) finds it unusable first."""
    if root not in _UNUSABLE:
        _UNUSABLE[root] = str(e)
        if config.cache_dir() not in _WARNED:
            _WARNED.add(config.cache_dir())
            warnings.warn(f"jitgrad: the kernel cache {config.cache_dir()} cannot be used "
                          f"({type(e).__name__}: {e}); compiling in memory (set JITGRAD_CACHE_DIR "
                          "to a writable directory)", CacheWarning, stacklevel=2)


def read_sealed(path: str):
    """(payload, 'hit' | 'miss' | 'rebuilt') of an entry `write_sealed` wrote: the SHA-256 of its
    payload, then the payload. A truncated or garbled one is logged and reported 'rebuilt' (the
    caller computes it again), never returned."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None, "miss"
    digest, payload = data[:32], data[32:]
    if len(data) > 32 and hashlib.sha256(payload).digest() == digest:
        return payload, "hit"
    config.log(1, f"kernel cache: {path} fails its checksum; rebuilding it")
    return None, "rebuilt"


def write_sealed(root: str, path: str, payload: bytes) -> None:
    """Write `payload` behind its SHA-256, atomically; a failing write gives up on `root`."""
    try:
        write_atomic(path, hashlib.sha256(payload).digest() + payload)
    except OSError as e:        # full disk, permissions changed meanwhile: as if unusable
        give_up(root, e)


def write_atomic(path: str, data) -> None:
    suffix = os.path.splitext(path)[1]
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _ensure_source(root: str, name: str, source: str) -> tuple[str, str]:
    """Write the module file unless an identical one is there. Returns (path, 'hit'|'miss'|'rebuilt')."""
    path = os.path.join(root, name + ".py")
    try:
        with open(path) as f:
            on_disk = f.read()
    except FileNotFoundError:
        _drop(root, name)
        write_atomic(path, source)
        return path, "miss"
    except (OSError, UnicodeDecodeError):
        on_disk = None
    if on_disk == source:
        return path, "hit"
    config.log(1, f"kernel cache: {path} is corrupt or truncated; rebuilding it")
    _drop(root, name)
    write_atomic(path, source)
    return path, "rebuilt"


def _drop(root: str, name: str) -> None:
    """Delete the entry's compiled code and checksums (the source stays)."""
    for p in _numba_files(root, name) + [_sums_path(root, name)]:
        try:
            os.unlink(p)
        except OSError:
            pass


# ----------------------------------------------------------------------------- checksums

def _numba_files(root: str, name: str) -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(root, "__pycache__", glob.escape(name) + ".*"))
                  if p.endswith((".nbi", ".nbc")))


def _sums_path(root: str, name: str) -> str:
    return os.path.join(root, name + ".sha256")


def _checksums(root: str, name: str) -> dict:
    sums = {}
    for p in [os.path.join(root, name + ".py")] + _numba_files(root, name):
        try:
            with open(p, "rb") as f:
                sums[os.path.relpath(p, root)] = hashlib.sha256(f.read()).hexdigest()
        except FileNotFoundError:
            pass                            # replaced by another process meanwhile
    return sums


def _read_sums(root: str, name: str):
    try:
        with open(_sums_path(root, name)) as f:
            sums = json.load(f)
    except (OSError, ValueError):
        return None
    return sums if isinstance(sums, dict) else None


def _verified(root: str, name: str) -> bool:
    """True when the entry's compiled code (if any) matches its checksums; else it is dropped
    (numba compiles afresh) and the mismatch logged."""
    if not _numba_files(root, name):
        return True
    recorded, now = _read_sums(root, name), _checksums(root, name)
    if recorded == now:
        return True
    bad = sorted(k for k in set(now) | set(recorded or {}) if (recorded or {}).get(k) != now.get(k))
    why = "has no checksums" if recorded is None else f"fails its checksum ({', '.join(bad)})"
    config.log(1, f"kernel cache: {name} {why}; rebuilding its compiled code")
    _drop(root, name)
    return False


# ----------------------------------------------------------------------------- importing

def _import_file(name: str, path: str):
    """Import the module at `path` under `name` (a fresh module object each time)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class _NoDiskCache(ast.NodeTransformer):
    """njit(cache=True, ...) -> njit(cache=False, ...): a module without a file has no cache."""

    def visit_keyword(self, node):
        if node.arg == "cache":
            node.value = ast.Constant(False)
        return node


def _import_source(name: str, source: str):
    tree = ast.fix_missing_locations(_NoDiskCache().visit(ast.parse(source)))
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(tree, f"<jitgrad kernels {name}>", "exec"), module.__dict__)
    return module
