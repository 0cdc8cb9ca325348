"""Generated modules on disk, so numba's own cache (cache=True) applies across processes.

A module's name is content-addressed: a hash of the optimized IR text, the generated source, the
backend, the jitgrad/numba/llvmlite versions and the host CPU. The source is written to
`<JITGRAD_CACHE_DIR>/cpu/<name>.py` (temp file + os.replace, so a reader never sees half a file
and two processes writing the same entry both leave a whole one), imported from there with
importlib and registered in sys.modules; numba keeps the compiled machine code beside it in
__pycache__. A file whose text is not exactly the expected source (truncated, garbled) is logged
and rewritten; a numba cache entry that fails to load is deleted and compiled again.
"""
from __future__ import annotations

import glob
import hashlib
import importlib.util
import os
import sys
import tempfile

from ..runtime import config

_VERSIONS = None


def _versions() -> str:
    global _VERSIONS
    if _VERSIONS is None:
        import llvmlite
        import llvmlite.binding as llvm
        import numba

        import jitgrad
        _VERSIONS = (f"jitgrad={jitgrad.__version__} numba={numba.__version__} "
                     f"llvmlite={llvmlite.__version__} cpu={llvm.get_host_cpu_name()}")
    return _VERSIONS


def module_name(ir_text: str, source: str, backend: str = "cpu") -> str:
    h = hashlib.sha256()
    for part in (backend, _versions(), ir_text, source):
        h.update(part.encode())
        h.update(b"\0")
    return f"jg_{backend}_{h.hexdigest()[:24]}"


def cache_root(backend: str = "cpu") -> str:
    return os.path.join(config.cache_dir(), backend)


def _write_atomic(path: str, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-", suffix=".py")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def ensure_source(name: str, source: str, backend: str = "cpu") -> tuple[str, str]:
    """Write the module file unless an identical one is there. Returns (path, 'hit'|'miss'|'rebuilt')."""
    root = cache_root(backend)
    os.makedirs(root, exist_ok=True)
    path = os.path.join(root, name + ".py")
    try:
        with open(path) as f:
            on_disk = f.read()
    except FileNotFoundError:
        _write_atomic(path, source)
        return path, "miss"
    except (OSError, UnicodeDecodeError):
        on_disk = None
    if on_disk == source:
        return path, "hit"
    config.log(1, f"kernel cache: {path} is corrupt or truncated; rebuilding it")
    drop_numba_cache(name, backend)
    _write_atomic(path, source)
    return path, "rebuilt"


def drop_numba_cache(name: str, backend: str = "cpu") -> None:
    for p in glob.glob(os.path.join(cache_root(backend), "__pycache__", name + ".*")):
        try:
            os.unlink(p)
        except OSError:
            pass


def import_module(name: str, path: str):
    """Import the module at `path` under `name` (a fresh module object each time)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
