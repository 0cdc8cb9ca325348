"""Bit-level functions with NumPy's names: packbits, unpackbits (uint8 bytes, big- or
little-endian bit order) and bitwise_count (the set bits of |x|, as NumPy and jax.numpy)."""
from __future__ import annotations

import numpy as np

from ..ir.types import kind_of
from ._convert import asarray, astype, normalize_axis
from .reductions import sum  # noqa: A004
from .shape import moveaxis, pad, ravel, reshape
from .ufuncs import abs, bitwise_and, not_equal, right_shift  # noqa: A004

_ORDERS = {"big": np.arange(7, -1, -1), "little": np.arange(8)}


def _bit_order(bitorder, name):
    if bitorder not in _ORDERS:
        raise ValueError(f"{name}: bitorder must be 'big' or 'little', got {bitorder!r}")
    return _ORDERS[bitorder]


def packbits(a, axis=None, bitorder="big"):
    """numpy.packbits: each 8 truth values along axis packed into one uint8 (zero-padded)."""
    shifts = _bit_order(bitorder, "packbits")
    x = asarray(a)
    if kind_of(x.dtype) not in "biu":
        raise TypeError(f"packbits: expected an integer or boolean array, got {x.dtype}")
    x, ax = (ravel(x), 0) if axis is None else (x, normalize_axis(axis, x.ndim))
    bits = moveaxis(astype(not_equal(x, 0), "int32"), ax, -1)
    n = bits.shape[-1]
    bits = pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, -n % 8)])
    bits = reshape(bits, tuple(bits.shape[:-1]) + (-1, 8))
    weights = asarray((1 << shifts).astype(np.int32))
    return moveaxis(astype(sum(bits * weights, axis=-1), "uint8"), -1, ax)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """numpy.unpackbits: each uint8 along axis as 8 bits (0/1 uint8); count keeps that many."""
    shifts = _bit_order(bitorder, "unpackbits")
    x = asarray(a)
    if x.dtype != np.uint8:
        raise TypeError(f"unpackbits: expected an input array of unsigned byte data type "
                        f"(uint8), got {x.dtype}")
    x, ax = (ravel(x), 0) if axis is None else (x, normalize_axis(axis, x.ndim))
    v = moveaxis(astype(x, "int32"), ax, -1)
    bits = bitwise_and(right_shift(v[..., None], asarray(shifts.astype(np.int32))), 1)
    bits = reshape(bits, tuple(v.shape[:-1]) + (-1,))
    if count is not None:
        n = bits.shape[-1]
        keep = count if count >= 0 else max(n + count, 0)
        bits = bits[..., :keep] if keep <= n else pad(bits, [(0, 0)] * (bits.ndim - 1) +
                                                       [(0, keep - n)])
    return moveaxis(astype(bits, "uint8"), -1, ax)


def bitwise_count(x, /):
    """numpy.bitwise_count: the number of 1 bits in |x| (uint8)."""
    v = asarray(x)
    if kind_of(v.dtype) not in "biu":
        raise TypeError(f"bitwise_count: expected an integer or boolean array, got {v.dtype}")
    if kind_of(v.dtype) == "b":
        return astype(v, "uint8")
    v = abs(v) if kind_of(v.dtype) == "i" else v
    total = None
    for k in range(np.dtype(str(v.dtype)).itemsize * 8):
        bit = bitwise_and(right_shift(v, k), 1)
        total = bit if total is None else total + bit
    return astype(total, "uint8")
