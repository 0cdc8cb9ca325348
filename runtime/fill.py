"""fill(bases, start, *arrays): the arrays' data addresses into bases[start:start + len(arrays)],
the one compiled call of a sequenced run before its kernels (runtime/sequencer.py). Called with at
most CHUNK arrays at a time (a long tuple makes numba unroll a long loop): numba caches one
specialization per tuple of array types on disk, so a new signature with known array types
compiles nothing."""
from numba import literal_unroll, njit

CHUNK = 8


@njit(cache=True)
def fill(bases, start, *arrays):
    i = start
    for a in literal_unroll(arrays):
        bases[i] = a.ctypes.data
        i += 1
