"""The caching host allocator (runtime/allocator.py): reuse, alignment, the batch maker that a
compiled call's outputs come from, trimming and empty_cache."""
import numpy as np

from jitgrad.runtime import allocator
from jitgrad.runtime.allocator import CachingAllocator, SMALL


def _addr(a):
    return a.__array_interface__["data"][0]


def test_large_arrays_are_aligned_and_reused_once_dead():
    pool = CachingAllocator()
    a = pool.empty((256, 256), np.float32)
    assert a.shape == (256, 256) and a.dtype == np.float32 and a.flags.c_contiguous
    assert _addr(a) % 64 == 0
    where = _addr(a)
    b = pool.empty((256, 256), np.float32)          # a is alive: another block
    assert _addr(b) != where
    del a
    c = pool.empty((256, 256), np.float32)          # a's block again
    assert _addr(c) == where and (pool.hits, pool.misses) == (1, 2)
    del b, c


def test_a_view_keeps_its_block_busy():
    pool = CachingAllocator()
    a = pool.empty((128, 256), np.float32)
    v = a[3:5]
    where = _addr(a)
    del a
    assert _addr(pool.empty((128, 256), np.float32)) != where      # v still reads it
    del v


def test_maker_gives_distinct_arrays_of_each_type():
    pool = CachingAllocator()
    types = [((128, 128), np.float32), ((4,), np.int64), ((128, 128), np.float32),
             ((), np.float64), ((64, 300), np.float64)]
    make = pool.maker(types)
    outs = make()
    assert [(o.shape, o.dtype) for o in outs] == [(s, np.dtype(d)) for s, d in types]
    big = [o for o in outs if o.nbytes >= SMALL]
    assert len({_addr(o) for o in big}) == len(big)        # no two share a block
    for i, o in enumerate(outs):                            # writable, independent
        o[...] = i
    assert [float(o.reshape(-1)[0]) for o in outs] == [0, 1, 2, 3, 4]
    first = {_addr(o) for o in big}
    old = outs
    outs = make()                                           # the old ones still alive
    assert not first & {_addr(o) for o in outs if o.nbytes >= SMALL}
    del old, big, o
    again = make()                                          # the first call's blocks back
    assert {_addr(o) for o in again if o.nbytes >= SMALL} == first


def test_busy_blocks_gather_at_the_back():
    """A call's outputs die together; the search for a free block does not walk the busy ones
    first (they move to the back of their class's list when taken)."""
    pool = CachingAllocator()
    make = pool.maker([((128, 256), np.float32)] * 20)
    keep = make()
    keep = make()               # the first 20 are free again, the second 20 busy
    cls = next(iter(pool._pool))
    blocks = pool._pool[cls]
    held = {id(o.base) for o in keep}
    assert len(blocks) == 40
    assert {id(b) for b in blocks[20:]} == held and not held & {id(b) for b in blocks[:20]}


def test_trim_drops_free_blocks_behind_a_busy_one():
    """The cap holds: trimming drops free blocks (it once iterated a copy of the list, whose
    extra reference made every block look busy), by position (list.remove would compare the
    blocks before it elementwise)."""
    pool = CachingAllocator(cap=1 << 20)
    busy = pool.empty((256, 256), np.float32)       # 256 KiB blocks of one class
    free = [pool.empty((256, 256), np.float32) for _ in range(4)]
    del free
    assert pool.free_bytes() > 0
    pool._trim(1 << 20)                             # room for 1 MiB more: every free block goes
    assert pool.free_bytes() == 0 and pool.held_bytes() == busy.base.nbytes
    nxt = pool.empty((256, 256), np.float32)
    assert _addr(nxt) != _addr(busy)
    del busy, nxt


def test_empty_cache_keeps_blocks_in_use():
    pool = CachingAllocator()
    a = pool.empty((512, 512), np.float32)
    b = pool.empty((512, 512), np.float32)
    del b
    pool.empty_cache()
    assert pool.free_bytes() == 0 and pool.held_bytes() == a.base.nbytes
    a[...] = 1.0
    assert float(a.sum()) == 512 * 512


def test_module_level_empty_uses_the_process_pool():
    a = allocator.empty((100, 1000), np.float32)
    assert a.shape == (100, 1000) and _addr(a) % 64 == 0
