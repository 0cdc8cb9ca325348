"""jnp.r_ and jnp.c_: NumPy's concatenation by index expression (r_[1:4, [7, 8], x], c_[a, b]).
Slices become aranges (a complex step `5j` means that many points, as np.linspace); a leading
string such as "0,2" or "r"/"c" sets the axis and minimum dimension as in NumPy."""
from __future__ import annotations

import numbers

import numpy as np

from ._convert import asarray
from .shape import concatenate, reshape
from .spaced import arange, linspace


def _item(k):
    if isinstance(k, slice):
        start = 0 if k.start is None else k.start
        step = 1 if k.step is None else k.step
        if isinstance(step, complex):
            return linspace(start, k.stop, int(abs(step)))
        return arange(start, k.stop, step)
    if isinstance(k, numbers.Number) and not isinstance(k, np.ndarray):
        return asarray([k])
    return asarray(k)


class _Concatenator:
    def __init__(self, axis, ndmin, trans1d):
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        if key and isinstance(key[0], str):
            spec, key = key[0], key[1:]
            if spec in ("r", "c"):
                raise NotImplementedError(f"r_: the matrix directive {spec!r} is not supported")
            parts = [int(p) for p in spec.split(",")]
            axis, ndmin, trans1d = (parts + [ndmin, trans1d][len(parts) - 1:])[:3] \
                if len(parts) > 1 else (parts[0], ndmin, trans1d)
        if not key:
            raise ValueError("r_/c_: nothing to concatenate")
        items = []
        for k in key:
            x = _item(k)
            if x.ndim < ndmin:
                # NumPy: the original axes go where trans1d says (-1: last), ones fill the rest
                extra = ndmin - x.ndim
                t = trans1d % ndmin if trans1d != -1 else ndmin - 1
                shape = [1] * ndmin
                start = t - x.ndim + 1 if trans1d != -1 else ndmin - x.ndim
                shape[start:start + x.ndim] = x.shape
                x = reshape(x, tuple(shape)) if extra else x
            items.append(x)
        return concatenate(items, axis=axis)


r_ = _Concatenator(0, 1, -1)
c_ = _Concatenator(-1, 2, 0)
