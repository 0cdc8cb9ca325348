"""The on-disk kernel cache as a whole: its layout, and what `jitgrad cache info|clear` do.

JITGRAD_CACHE_DIR (ir/config.py: cache_dir) may be any directory, even one holding the user's
own files, so jitgrad keeps everything it writes in one subdirectory it marks as its own:

    <JITGRAD_CACHE_DIR>/jitgrad-kernels/
        CACHEDIR.TAG                      the marker (the standard tag: backup tools skip it)
        <backend>/<name>.py               a generated module (content-addressed: jg_<backend>_<hex>)
        <backend>/<name>.sha256           the entry's checksums: every file of the entry
        <backend>/__pycache__/<name>.*    numba's index (.nbi) and object code (.nbc)
        llvm/<name>.obj                   an LLVM unit's object code behind its SHA-256
        runtime/<name>.obj                the runtime's native helpers (runtime/native_code.py)
        pipeline/<name>.pkl               a graph's optimized form (codegen/pipeline_cache.py)

`cache_clear` deletes only files under the marked subdirectory whose names jitgrad gives its
entries; on a directory without the marker it refuses and deletes nothing.
"""
from __future__ import annotations

import hashlib
import os
import re

from ..ir import config

SUBDIR = "jitgrad-kernels"
MARKER = "CACHEDIR.TAG"
MARKER_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
               "# This directory is jitgrad's kernel cache; `jitgrad cache clear` empties it.\n")
# what jitgrad writes: generated modules and their checksums, numba's files for them, CUDA
# kernel modules (`<kernel>-<16 hex>.py`), and temporary files of an interrupted write
_ENTRY = r"(jg_[a-z]+_[0-9a-f]{24}|\w+-[0-9a-f]{16})"
_OWN_FILE = re.compile(_ENTRY + r"(\.py|\.sha256|\.obj|\.pkl|\..+\.nb[ic])(\.tmp\.\w+|\.\d+\.tmp)?"
                       r"|\.tmp-\w+\.(py|sha256|obj|pkl)")
_OWN_DIRS = {"cpu", "native", "cuda", "llvm", "pipeline", "runtime", "__pycache__"}
_ENTRY_PATH = re.compile(_ENTRY + r"\.(py|obj)|__pycache__/" + _ENTRY + r"\.[^/]+\.nb[ic]")


class CacheError(OSError):
    """`jitgrad cache clear` on a directory that is not a jitgrad cache."""


def root() -> str:
    """Where jitgrad's entries live: a marked subdirectory of JITGRAD_CACHE_DIR."""
    return os.path.join(config.cache_dir(), SUBDIR)


def kernel_dir(backend: str) -> str:
    return os.path.join(root(), backend)


def is_entry_path(rel: str) -> bool:
    """Whether rel (relative to a backend's kernel dir) names a module or numba's code for it."""
    return _ENTRY_PATH.fullmatch(rel) is not None


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


def write_sealed(path: str, payload: bytes) -> None:
    """Write `payload` behind its SHA-256, atomically (OSError when it cannot)."""
    write_atomic(path, hashlib.sha256(payload).digest() + payload)


def write_atomic(path: str, data) -> None:
    """Write a whole file or nothing: a temporary file, then os.replace (a reader never sees
    half a file; two processes writing the same entry both leave a whole one)."""
    import tempfile  # lazy: with shutil and random ~10 ms of `import jitgrad`, used on writes only
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


def make_root() -> str:
    """Create the marked subdirectory (OSError when the cache directory cannot be written)."""
    r = root()
    os.makedirs(r, exist_ok=True)
    tag = os.path.join(r, MARKER)
    if not os.path.isfile(tag):
        with open(tag, "w") as f:
            f.write(MARKER_TEXT)
    return r


def is_marked(path: str) -> bool:
    try:
        with open(os.path.join(path, MARKER)) as f:
            return f.read() == MARKER_TEXT
    except (OSError, UnicodeDecodeError):
        return False


def _own_files(r: str):
    """(own files, foreign files) under the marked root r."""
    own, foreign = [], []
    for dirpath, dirnames, names in os.walk(r):
        rel = os.path.relpath(dirpath, r)
        ours = rel == "." or all(part in _OWN_DIRS for part in rel.split(os.sep))
        for n in names:
            p = os.path.join(dirpath, n)
            (own if ours and (rel != "." and _OWN_FILE.fullmatch(n)) else foreign).append(p)
    tag = os.path.join(r, MARKER)
    if tag in foreign:
        foreign.remove(tag)
    return own, foreign


def cache_info() -> dict:
    """{'dir', 'marked', 'files', 'bytes', 'foreign'} of the kernel cache."""
    r = root()
    own, foreign = _own_files(r) if is_marked(r) else ([], [])
    size = 0
    for p in own:
        try:
            size += os.path.getsize(p)
        except OSError:
            pass            # removed by another process meanwhile
    return {"dir": r, "marked": is_marked(r), "files": len(own), "bytes": size,
            "foreign": len(foreign)}


def cache_clear() -> dict:
    """Delete jitgrad's entries (never anything else) and the directories they leave empty;
    returns what was there. Raises CacheError, deleting nothing, unless the directory is marked
    as a jitgrad cache. Processes running code loaded from it keep running."""
    base, r = config.cache_dir(), root()
    if not os.path.lexists(base) or (os.path.isdir(base) and not os.listdir(base)):
        return {"dir": r, "marked": False, "files": 0, "bytes": 0, "foreign": 0}   # nothing there
    if os.path.islink(r) or not os.path.isdir(r) or not is_marked(r):
        raise CacheError(f"{base} does not look like a jitgrad cache (no {SUBDIR}/{MARKER} "
                         "marker); nothing deleted")
    info = cache_info()
    own, _ = _own_files(r)
    for p in own:
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass
    for dirpath, _, _ in os.walk(r, topdown=False):
        if dirpath != r and os.path.basename(dirpath) in _OWN_DIRS:
            try:
                os.rmdir(dirpath)        # only when empty: a foreign file keeps its directory
            except OSError:
                pass
    return info
