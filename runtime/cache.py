"""The on-disk kernel cache as a whole: what `jitgrad cache info` and `jitgrad cache clear` show.

Layout under JITGRAD_CACHE_DIR (runtime/config.cache_dir()): one directory per backend holding
the generated modules (`<backend>/<name>.py`, content-addressed, see codegen/disk_cache.py) and
numba's compiled code for them (`<backend>/__pycache__/<name>.*.nbi|.nbc`).
"""
from __future__ import annotations

import os
import shutil

from . import config


def cache_info() -> dict:
    """{'dir', 'modules', 'files', 'bytes'} of the kernel cache directory."""
    root = config.cache_dir()
    modules = files = size = 0
    for dirpath, _, names in os.walk(root):
        for n in names:
            try:
                size += os.path.getsize(os.path.join(dirpath, n))
            except OSError:
                continue            # removed by another process meanwhile
            files += 1
            modules += n.endswith(".py") and os.path.basename(dirpath) != "__pycache__"
    return {"dir": root, "modules": modules, "files": files, "bytes": size}


def cache_clear() -> dict:
    """Delete the kernel cache directory; returns what it held. Processes running code loaded
    from it keep running (their modules are in memory); later compiles rebuild entries."""
    info = cache_info()
    shutil.rmtree(info["dir"], ignore_errors=True)
    return info
