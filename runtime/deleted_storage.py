"""The storage of a deleted tensor (donated to a jitted function, or `x.delete()`).

A donated tensor's memory belongs to the compiled code, which may have overwritten it with an
output: reading it would be a silent wrong answer. Its storage becomes a DeletedStorage, which
keeps shape and dtype (as JAX keeps `x.shape` of a deleted array) and raises on every other use —
NumPy conversion, ufuncs, indexing, arithmetic — with one message naming why."""
from __future__ import annotations

import numpy as np


class DeletedArrayError(RuntimeError):
    """Reading a tensor whose storage was donated or deleted."""


class DeletedStorage:
    __slots__ = ("shape", "dtype", "why")
    __array_priority__ = 10 ** 6      # NumPy operators defer to it, so they raise too

    def __init__(self, shape, dtype, why):
        self.shape, self.dtype, self.why = tuple(shape), np.dtype(dtype), why

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def error(self) -> DeletedArrayError:
        return DeletedArrayError(f"Array has been deleted with shape={self.dtype.name}"
                                 f"{list(self.shape)}: {self.why}")

    def _raise(self, *args, **kwargs):
        raise self.error()

    def __getattr__(self, name):
        raise self.error()

    def __array__(self, *args, **kwargs):
        raise self.error()

    def __array_ufunc__(self, *args, **kwargs):
        raise self.error()

    def __array_function__(self, *args, **kwargs):
        raise self.error()

    def __repr__(self):
        return f"<deleted {self.dtype.name}{list(self.shape)}>"


for _name in ("getitem", "setitem", "len", "iter", "bool", "float", "int", "index", "neg",
              "pos", "abs", "invert", "add", "radd", "sub", "rsub", "mul", "rmul", "truediv",
              "rtruediv", "floordiv", "rfloordiv", "mod", "rmod", "pow", "rpow", "matmul",
              "rmatmul", "and", "rand", "or", "ror", "xor", "rxor", "lshift", "rlshift",
              "rshift", "rrshift", "lt", "le", "gt", "ge", "copy", "deepcopy", "reduce_ex",
              "dlpack"):
    setattr(DeletedStorage, f"__{_name}__", DeletedStorage._raise)
del _name


def is_deleted(storage) -> bool:
    return type(storage) is DeletedStorage
