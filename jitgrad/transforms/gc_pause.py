"""The garbage collector paused while a function is traced and compiled.

Tracing and compiling allocate tens of thousands of small objects (tracers, IR values, types,
kernel text) that live until the compile ends, and each collection of the older generations
walks all of them again: 17-19 ms of the GPT step's 0.27 s first call from the disk cache
(measured with gc.callbacks). Their garbage is freed by reference counting as it goes; the
few cycles wait for the first collection after the compile.
"""
from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def paused():
    """No automatic collection inside (nested and concurrent uses: the outermost re-enables)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
