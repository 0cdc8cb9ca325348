"""Sizes, as PyTorch and NumPy both spell them: `jg.Size` is torch.Size (a tuple of dims with
numel()), and `x.size` is an `ElementCount`: NumPy's element count (an int), that called as
`x.size()` / `x.size(d)` gives torch's shape / length of dim d."""
from __future__ import annotations


class Size(tuple):
    """torch.Size: a tuple of dimension lengths; slicing and concatenation stay Sizes."""

    def numel(self) -> int:
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __repr__(self):
        return f"jitgrad.Size({list(self)})"

    def __reduce__(self):
        return Size, (tuple(self),)


class ElementCount(int):
    """NumPy's `x.size` (an int: arithmetic, comparisons, range(), JSON) that is also torch's
    `x.size()` -> Size and `x.size(d)` -> the length of dim d (negative d counts from the end)."""

    def __new__(cls, shape):
        n = 1
        for d in shape:
            n *= d
        self = int.__new__(cls, n)
        self._shape = tuple(shape)
        return self

    def __call__(self, dim=None):
        if dim is None:
            return Size(self._shape)
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"size(dim): expected an int dim, got {type(dim).__name__}")
        ndim = len(self._shape)
        if not -max(ndim, 1) <= dim < max(ndim, 1) or ndim == 0:
            raise IndexError(f"size({dim}): dimension out of range for a {ndim}-d tensor "
                             f"(expected to be in range of [{-ndim}, {ndim - 1}])")
        return self._shape[dim]

    def __getnewargs__(self):
        return (self._shape,)

    def __repr__(self):
        return int.__repr__(self)
