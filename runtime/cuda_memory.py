"""A caching device allocator: freed blocks are kept and reused by size class, per stream.

cudaMalloc/cudaFree synchronize the device and cost tens of microseconds, and fresh memory costs
page-mapping work (FACTS: a reused buffer is 16x faster to write than a fresh one on the CPU),
so, as in PyTorch, a tensor's storage goes back to a free list when the tensor dies and the next
request of the same size class takes it. Blocks are stream-ordered: a block freed on stream S is
only handed out again for work on S, which runs after everything queued before the free, so
reuse needs no synchronization.

Every array handed out is C-contiguous and views a raw uint8 block. A block returns to its free
list when the last array viewing it dies (`view` registers derived arrays).
"""
from __future__ import annotations

import threading
import weakref

import numpy as np

from . import cuda_device

SMALL = 1 << 20          # below 1 MiB: classes are multiples of 512 bytes
SMALL_ROUND = 512
STEPS_PER_OCTAVE = 4     # above: 4 classes per power of two, so at most 25% is wasted


def size_class(nbytes: int) -> int:
    """The block size a request of `nbytes` gets."""
    if nbytes <= SMALL:
        return max(SMALL_ROUND, -(-nbytes // SMALL_ROUND) * SMALL_ROUND)
    step = (1 << ((nbytes - 1).bit_length() - 1)) // STEPS_PER_OCTAVE
    return -(-nbytes // step) * step


class _Block:
    __slots__ = ("raw", "size", "stream", "refs")

    def __init__(self, raw, size, stream):
        self.raw, self.size, self.stream, self.refs = raw, size, stream, 0


class CudaCachingAllocator:
    """One per device. `empty(shape, dtype)` -> a C-contiguous device array from the pool."""

    def __init__(self, index: int):
        self.index = index
        self._free: dict = {}          # (stream id, size class) -> [blocks]
        self._owners: dict = {}        # id(array) -> block, for arrays handed out and alive
        # reentrant: a garbage-collected array's finalizer (_release) can run while this
        # thread holds the lock in _take / _register (a GC pass inside the allocation)
        self._lock = threading.RLock()
        self.allocated = 0             # bytes of blocks in use
        self.reserved = 0              # bytes of blocks in use or cached
        self.peak_allocated = 0

    def empty(self, shape, dtype, stream=None):
        dtype = np.dtype(dtype)
        shape = tuple(int(d) for d in shape)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        stream = stream if stream is not None else cuda_device.stream(self.index)
        block = self._take(size_class(nbytes), stream)
        arr = block.raw[:nbytes].view(dtype).reshape(shape)
        return self._register(arr, block)

    def view(self, arr, shape):
        """`arr` reshaped (no copy); the block stays in use while either array lives."""
        out = arr.reshape(tuple(int(d) for d in shape))
        block = self._owners.get(id(arr))
        return out if block is None else self._register(out, block)

    def _take(self, size, stream):
        key = (id(stream), size)
        with self._lock:
            blocks = self._free.get(key)
            block = blocks.pop() if blocks else None
            if block is None:
                with cuda_device.context(self.index):
                    raw = cuda_device.numba_cuda().device_array(size, np.uint8, stream=stream)
                block = _Block(raw, size, stream)
                self.reserved += size
            self.allocated += size
            self.peak_allocated = max(self.peak_allocated, self.allocated)
            return block

    def _register(self, arr, block):
        with self._lock:
            block.refs += 1
            self._owners[id(arr)] = block
        weakref.finalize(arr, self._release, id(arr), block)
        return arr

    def _release(self, key, block):
        with self._lock:
            self._owners.pop(key, None)
            block.refs -= 1
            if block.refs:
                return
            self.allocated -= block.size
            self._free.setdefault((id(block.stream), block.size), []).append(block)

    def empty_cache(self) -> None:
        """Give every cached (free) block back to the driver."""
        with self._lock:
            for blocks in self._free.values():
                self.reserved -= sum(b.size for b in blocks)
            self._free.clear()

    def cached_blocks(self) -> int:
        return sum(len(b) for b in self._free.values())


_ALLOCATORS: dict = {}


def allocator(index: int = 0) -> CudaCachingAllocator:
    alloc = _ALLOCATORS.get(index)
    if alloc is None:
        alloc = _ALLOCATORS.setdefault(index, CudaCachingAllocator(index))
    return alloc


def index_of(arr) -> int | None:
    """The device index of an array this process's allocators handed out, else None."""
    for index, alloc in list(_ALLOCATORS.items()):
        if id(arr) in alloc._owners:
            return index
    return None
