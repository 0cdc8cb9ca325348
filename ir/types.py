"""Tensor types: a shape and one of jitgrad's dtypes (NumPy's, bfloat16 from ml_dtypes as in JAX)."""
from __future__ import annotations

import math

from dataclasses import dataclass

import ml_dtypes
import numpy as np

float16 = np.dtype("float16")
bfloat16 = np.dtype(ml_dtypes.bfloat16)
int8 = np.dtype("int8")
int16 = np.dtype("int16")
uint8 = np.dtype("uint8")
uint16 = np.dtype("uint16")
uint32 = np.dtype("uint32")
uint64 = np.dtype("uint64")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
bool_ = np.dtype("bool")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")

DTYPES = (float32, float64, int32, int64, bool_, complex64, complex128,
          float16, bfloat16, int8, int16, uint8, uint16, uint32, uint64)
SHORT_NAME = {float32: "f32", float64: "f64", int32: "i32", int64: "i64", bool_: "bool",
              complex64: "c64", complex128: "c128", float16: "f16", bfloat16: "bf16",
              int8: "i8", int16: "i16", uint8: "u8", uint16: "u16", uint32: "u32", uint64: "u64"}
FROM_SHORT = {v: k for k, v in SHORT_NAME.items()}
_NAMES = ", ".join(d.name for d in DTYPES)


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
        raise TypeError(f"expected a dtype ({_NAMES}), got {dtype!r}") from None
    if d in DTYPES:
        return d
    raise TypeError(f"dtype {d.name} is not supported; jitgrad's dtypes are {_NAMES}")


def kind_of(dtype) -> str:
    """NumPy's dtype.kind, with 'f' for bfloat16 (ml_dtypes gives it kind 'V')."""
    return "f" if dtype == bfloat16 else np.dtype(dtype).kind


def is_float(dtype) -> bool:
    return dtype.kind == "f" or dtype == bfloat16     # ml_dtypes' bfloat16 has kind 'V'



def is_complex(dtype) -> bool:
    return dtype.kind == "c"


def is_inexact(dtype) -> bool:
    """float or complex: the dtypes of exp, log, division, ..."""
    return dtype.kind in "fc" or dtype == bfloat16


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
        object.__setattr__(self, "shape", tuple(map(int, self.shape)))

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
