"""Tensor types: a shape and one of jitgrad's seven dtypes."""
from __future__ import annotations

import math

from dataclasses import dataclass

import numpy as np

float32 = np.dtype("float32")
float64 = np.dtype("float64")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
bool_ = np.dtype("bool")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")

DTYPES = (float32, float64, int32, int64, bool_, complex64, complex128)
SHORT_NAME = {float32: "f32", float64: "f64", int32: "i32", int64: "i64", bool_: "bool",
              complex64: "c64", complex128: "c128"}
FROM_SHORT = {v: k for k, v in SHORT_NAME.items()}

# NumPy dtypes jitgrad does not compute in are widened to the nearest one it does.
_WIDEN = {"float16": float32, "int8": int32, "int16": int32, "uint8": int32, "uint16": int32,
          "uint32": int64, "uint64": int64}


def canonical_dtype(dtype) -> np.dtype:
    """Map anything NumPy calls a dtype (np.float32, 'f4', float, a jitgrad dtype) to one of DTYPES."""
    if isinstance(dtype, str) and dtype in FROM_SHORT:
        return FROM_SHORT[dtype]
    if dtype is float:
        return float32
    if dtype is int:
        return int64
    if dtype is complex:
        return complex64
    try:
        d = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"expected a dtype (float32, float64, int32, int64, bool, complex64, "
                        f"complex128), got {dtype!r}") from None
    if d in DTYPES:
        return d
    if d.name in _WIDEN:
        return _WIDEN[d.name]
    raise TypeError(f"dtype {d.name} is not supported; jitgrad computes in float32, float64, "
                    "int32, int64, bool, complex64 and complex128")


def is_float(dtype) -> bool:
    return dtype.kind == "f"


def is_complex(dtype) -> bool:
    return dtype.kind == "c"


def is_inexact(dtype) -> bool:
    """float or complex: the dtypes of exp, log, division, ..."""
    return dtype.kind in "fc"


def real_dtype(dtype) -> np.dtype:
    """float32 for complex64, float64 for complex128, the dtype itself otherwise."""
    return {complex64: float32, complex128: float64}.get(dtype, dtype)


def complex_dtype(dtype) -> np.dtype:
    """The complex dtype of a float dtype's precision (complex64 for float32)."""
    return {float32: complex64, float64: complex128}.get(dtype, dtype)


def is_int(dtype) -> bool:
    return dtype.kind in "iu"


def is_bool(dtype) -> bool:
    return dtype.kind == "b"


@dataclass(frozen=True)
class TensorType:
    shape: tuple
    dtype: np.dtype

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(int(d) for d in self.shape))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def __str__(self) -> str:
        return f"{SHORT_NAME[self.dtype]}[{','.join(map(str, self.shape))}]"

    __repr__ = __str__


def parse_type(text: str) -> TensorType:
    """Inverse of str(TensorType): 'f32[256,784]' -> TensorType((256, 784), float32)."""
    text = text.strip()
    name, _, rest = text.partition("[")
    if name not in FROM_SHORT or not rest.endswith("]"):
        raise ValueError(f"expected a type like f32[2,3], got {text!r}")
    dims = rest[:-1].strip()
    shape = tuple(int(d) for d in dims.split(",")) if dims else ()
    return TensorType(shape, FROM_SHORT[name])
