"""The kernel cache directory's shared mechanics: a usable directory per backend (created and
probed for writing, else compiling in memory with one warning per cache directory), atomic
writes and sealed entries (the payload behind its SHA-256; a damaged one is logged and rebuilt,
never used: the file operations are runtime/cache.py's, which the runtime's own native code
uses too), a failing write giving up on the directory. The LLVM units
(codegen/cpu/llvm_jit.py), the pipeline cache and the CUDA sources (codegen/cuda/source.py, beside
which numba.cuda keeps its own cache) use it; `install` writes the entries a verified artifact
carries.
"""
from __future__ import annotations

import os
import tempfile
import warnings

from ..ir import config
from ..runtime import cache

_UNUSABLE: dict[str, str] = {}       # kernel dir -> why it cannot be written
_WARNED: set = set()                 # cache directories warned about


class CacheWarning(RuntimeWarning):
    """The kernel cache directory is unusable; kernels compile in memory."""


def cache_root(backend: str = "cpu") -> str:
    return cache.kernel_dir(backend)


def install(files: dict, mtimes: dict) -> None:
    """Write entries carried by a verified artifact: files maps '<backend>/<relative path>' to
    bytes (only names jitgrad gives its entries); an LLVM object carries its own digest. Entries
    of the numba CPU units older artifacts carry ("cpu/", "native/") are skipped: nothing loads
    them since issue 26 (the function compiles from its IR). `mtimes` is accepted for those
    artifacts and unused. Without a usable cache directory nothing is written (the backend
    compiles in memory)."""
    for rel in files:
        backend, _, inner = rel.partition("/")
        if backend not in ("cpu", "native", "llvm") or not cache.is_entry_path(inner):
            raise ValueError(f"{rel!r} is not a kernel cache entry")
    for rel, data in sorted(files.items()):
        backend, _, inner = rel.partition("/")
        root = usable_root(backend) if backend == "llvm" else None
        if root is None:
            continue
        try:
            write_atomic(os.path.join(root, inner), data)
        except OSError as e:
            give_up(root, e)


# ----------------------------------------------------------------------------- the directory

def usable_root(backend: str):
    """The backend's kernel dir, created and probed for writing; None (warned once) if unusable."""
    root = cache_root(backend)
    if root in _UNUSABLE:
        return None
    try:
        cache.make_root()
        probe = root if backend in ("llvm", "pipeline") else os.path.join(root, "__pycache__")  # numba.cuda's
        os.makedirs(probe, exist_ok=True)
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as e:
        give_up(root, e)
        return None
    return root


def give_up(root: str, e: OSError) -> None:
    """Stop using the backend dir `root`; one warning per cache directory, whichever backend
    (LLVM units, CUDA sources) finds it unusable first."""
    if root not in _UNUSABLE:
        _UNUSABLE[root] = str(e)
        if config.cache_dir() not in _WARNED:
            _WARNED.add(config.cache_dir())
            warnings.warn(f"jitgrad: the kernel cache {config.cache_dir()} cannot be used "
                          f"({type(e).__name__}: {e}); compiling in memory (set JITGRAD_CACHE_DIR "
                          "to a writable directory)", CacheWarning, stacklevel=2)


def read_sealed(path: str):
    """(payload, 'hit' | 'miss' | 'rebuilt'): runtime/cache.read_sealed."""
    return cache.read_sealed(path)


def write_sealed(root: str, path: str, payload: bytes) -> None:
    """Write `payload` behind its SHA-256, atomically; a failing write gives up on `root`."""
    try:
        cache.write_sealed(path, payload)
    except OSError as e:        # full disk, permissions changed meanwhile: as if unusable
        give_up(root, e)


write_atomic = cache.write_atomic
