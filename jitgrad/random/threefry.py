"""The Threefry-2x32 counter-based hash (Salmon et al. 2011, 20 rounds), as JAX's threefry2x32:
written with uint32 add, xor and shifts only, so a draw is one elementwise kernel that fuses,
and vmap over keys is the same kernel over one more axis (no loop over keys).

The functions take NumPy uint32 arrays (eager keys: hashed directly) or jitgrad tensors and
tracers (the same operators record primitives), so every path computes the same bits."""
from __future__ import annotations

import numpy as np

_U32 = np.uint32
_PARITY = _U32(0x1BD11BDA)
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _rotate_left(x, d):
    return (x << _U32(d)) | (x >> _U32(32 - d))


def threefry2x32(k0, k1, x0, x1):
    """The two output words of the hash of the counter pair (x0, x1) under the key (k0, k1);
    all uint32, broadcast together."""
    ks = (k0, k1, k0 ^ k1 ^ _PARITY)
    x0, x1 = x0 + ks[0], x1 + ks[1]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x0 = x0 + x1
            x1 = _rotate_left(x1, r) ^ x0
        x0 = x0 + ks[(i + 1) % 3]
        x1 = x1 + ks[(i + 2) % 3] + _U32(i + 1)
    return x0, x1


def counters(shape):
    """The flat index of each element of `shape` as a 64-bit count split in (high, low) uint32
    words (JAX's iota_2x32_shape): NumPy constants."""
    n = int(np.prod(shape, dtype=np.int64))
    if n > 2 ** 64:
        raise ValueError(f"jg.random: cannot draw more than 2**64 values, asked for {shape}")
    if n <= 2 ** 32:
        return np.zeros((), _U32), np.arange(n, dtype=_U32).reshape(shape)
    flat = np.arange(n, dtype=np.uint64)
    return (flat >> np.uint64(32)).astype(_U32).reshape(shape), flat.astype(_U32).reshape(shape)
