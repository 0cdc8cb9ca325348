"""A caching host allocator: storage of dead arrays is reused instead of returned to the OS.

Writing a large result into freshly mapped memory costs a page fault per 4 KiB page (measured:
40 MB into fresh memory 12.6 ms, into reused memory 0.77 ms), so compiled functions take their
output arrays from here, as PyTorch's CUDA caching allocator does for device memory.

Blocks are plain uint8 NumPy arrays kept in a pool by size class (powers of two, and multiples of
1/4 of a power of two above 1 MiB so a 40 MB block does not take 64 MB). An array handed out is a
view of a block, so the block is referenced by every array or view made from it; when the pool's
own reference is the only one left, every user is gone and the block is free again. No finalizer
runs: freedom is checked (one refcount read) when a block of that class is next wanted.
Small requests (under SMALL bytes) go to NumPy directly: malloc serves them from warm memory.

`empty_cache()` drops every free block; the pool never holds more than `cap` bytes of free
blocks (JITGRAD_ALLOCATOR_CAP, bytes; default 2 GiB) and drops the oldest free ones past it.
"""
from __future__ import annotations

import functools
import math
import sys
import threading

import numpy as np

from ..ir import config

SMALL = 1 << 16
_ALIGN = 64


def aligned_empty(nbytes: int) -> np.ndarray:
    """An uninitialized uint8 array of `nbytes` whose first byte starts a 64-byte cache line (a
    view of a slightly larger one; NumPy itself aligns to 16): a compiled call's arena, whose
    memory plan puts every buffer at a multiple of 64 (ir/passes/plan_memory.ALIGNMENT), and the
    constants kernels read. Measured: the LSTM step's forward scan ran 7-9% slower with its
    body's arena at 16, 32 or 48 bytes past a line than at 0 (min of 40 calls, one thread)."""
    raw = np.empty(nbytes + _ALIGN, np.uint8)
    start = -raw.ctypes.data % _ALIGN
    return raw[start:start + nbytes]


def _size_class(nbytes: int) -> int:
    if nbytes <= 1 << 20:
        return 1 << max(nbytes - 1, 1).bit_length()
    quarter = 1 << (nbytes.bit_length() - 3)
    return -(-nbytes // quarter) * quarter


class CachingAllocator:
    def __init__(self, cap: int | None = None):
        self.cap = cap if cap is not None else config.read("allocator_cap")
        self._pool: dict[int, list] = {}
        self._offsets: dict[int, int] = {}      # id of a pooled block -> its aligned start
        self._lock = threading.Lock()
        self.hits = self.misses = 0
        # references to a block held by the pool itself: its list slot + getrefcount's argument
        self._idle_refs = 2

    def empty(self, shape, dtype) -> np.ndarray:
        return self.maker([(shape, dtype)])()[0]

    def maker(self, types):
        """A function returning a list of fresh arrays, one per (shape, dtype) of `types`: a
        compiled call's outputs, with the sizes worked out once and the lock taken once a call
        (a GPT step's 161 outputs one at a time: 0.25-0.3 ms a call, 6 us per large one)."""
        specs = []
        for shape, dtype in types:
            dtype = np.dtype(dtype)
            nbytes = math.prod(shape) * dtype.itemsize  # np.prod: ~4 us a call
            specs.append((tuple(shape), dtype, nbytes,
                          _size_class(nbytes + _ALIGN) if nbytes >= SMALL else 0))
        specs = tuple(specs)
        if not any(cls for *_, cls in specs):       # all from malloc: no lock, no pool
            empties = [functools.partial(np.empty, shape, dtype) for shape, dtype, _, _ in specs]
            return lambda: [e() for e in empties]

        def make():
            out = []
            with self._lock:
                for shape, dtype, nbytes, cls in specs:
                    if not cls:
                        out.append(np.empty(shape, dtype))
                        continue
                    block, off = self._take(cls)
                    out.append(block[off:off + nbytes].view(dtype).reshape(shape))
            return out
        return make

    def _take(self, cls):
        """(a free block of class cls, the offset of its first _ALIGN-aligned byte); the lock
        held."""
        blocks = self._pool.setdefault(cls, [])
        for i in range(len(blocks)):            # (enumerate's reused tuple holds b too)
            b = blocks[i]
            if sys.getrefcount(b) <= self._idle_refs + 1:   # + the loop variable
                self.hits += 1
                # to the back: the blocks in use gather there, so the search stops near the
                # front (a call's outputs die together, in the order they were made)
                blocks.append(blocks.pop(i))
                return b, self._offsets[id(b)]
        self._trim(cls)
        b = np.empty(cls, np.uint8)
        blocks.append(b)
        off = self._offsets[id(b)] = (-b.ctypes.data) % _ALIGN
        self.misses += 1
        return b, off

    def free_bytes(self) -> int:
        total = 0
        for blocks in self._pool.values():
            for i in range(len(blocks)):
                b = blocks[i]
                if self._is_free(b):
                    total += b.nbytes
        return total

    def held_bytes(self) -> int:
        return sum(b.nbytes for blocks in self._pool.values() for b in blocks)

    def _is_free(self, b) -> bool:
        """b: a pooled block the caller holds by one name (and nothing else: no copy of its
        list, no enumerate tuple)."""
        return sys.getrefcount(b) <= self._idle_refs + 2     # + the caller's name

    def _trim(self, incoming: int) -> None:
        """Drop free blocks until the held free bytes plus `incoming` fit under the cap."""
        excess = self.free_bytes() + incoming - self.cap
        for blocks in self._pool.values():
            for i in reversed(range(len(blocks))):
                if excess <= 0:
                    return
                b = blocks[i]
                if self._is_free(b):
                    excess -= b.nbytes
                    self._drop(blocks, i)

    def _drop(self, blocks, i) -> None:
        # by position: list.remove compares the blocks before it with ==, elementwise
        del self._offsets[id(blocks[i])]
        del blocks[i]

    def empty_cache(self) -> None:
        with self._lock:
            for blocks in self._pool.values():
                for i in reversed(range(len(blocks))):
                    b = blocks[i]
                    if self._is_free(b):
                        self._drop(blocks, i)


ALLOCATOR = CachingAllocator()
empty = ALLOCATOR.empty


def empty_cache() -> None:
    """Return every free cached block to the OS (jg.runtime.empty_cache())."""
    ALLOCATOR.empty_cache()
