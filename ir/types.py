"""Tensor types: a shape and one of jitgrad's dtypes (NumPy's, bfloat16 from ml_dtypes as in JAX).

ml_dtypes' extension takes ~0.7 s to load, so bfloat16 loads on first use (load_bfloat16: the
attribute `types.bfloat16`, the names "bfloat16" / "bf16", a bfloat16 array reaching
canonical_dtype) and then joins SHORT_NAME and FROM_SHORT; a module with its own table of dtypes
adds bfloat16 to it through on_bfloat16. Among jitgrad's dtypes bfloat16 is the only one of NumPy
kind 'V' (canonical_dtype admits no other), which is how is_bfloat16 tells it without loading it.
"""
from __future__ import annotations

import math

from dataclasses import dataclass

import numpy as np

float16 = np.dtype("float16")
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

SHORT_NAME = {float32: "f32", float64: "f64", int32: "i32", int64: "i64", bool_: "bool",
              complex64: "c64", complex128: "c128", float16: "f16",
              int8: "i8", int16: "i16", uint8: "u8", uint16: "u16", uint32: "u32", uint64: "u64"}
FROM_SHORT = {v: k for k, v in SHORT_NAME.items()}
SHORT_NAMES = (*FROM_SHORT, "bf16")       # every dtype's, loaded or not
BFLOAT16_NAMES = ("bfloat16", "bf16")
_NAMES = ", ".join(d.name for d in SHORT_NAME).replace("float16", "float16, bfloat16")
_ON_BFLOAT16 = []       # functions that add bfloat16 to a module's tables, called when it loads


def load_bfloat16() -> np.dtype:
    """ml_dtypes' bfloat16 dtype, loaded the first time it is asked for. The tables get it before
    `bfloat16` is published, and adding it twice changes nothing, so threads need no lock."""
    bf16 = globals().get("bfloat16")
    if bf16 is None:
        import ml_dtypes  # lazy: its extension takes ~0.7 s to load, and only bfloat16 needs it
        bf16 = np.dtype(ml_dtypes.bfloat16)
        SHORT_NAME[bf16], FROM_SHORT["bf16"] = "bf16", bf16
        for add in _ON_BFLOAT16:
            add(bf16)
        globals()["bfloat16"] = bf16
    return bf16


def on_bfloat16(add) -> None:
    """Call add(bfloat16) when bfloat16 loads (now, if it has): how a module puts bfloat16 in a
    table of its own without loading ml_dtypes at import. `add` must be idempotent."""
    _ON_BFLOAT16.append(add)
    if "bfloat16" in globals():
        add(globals()["bfloat16"])


def __getattr__(name):
    """`bfloat16` and `DTYPES` (every dtype, bfloat16 among them) load ml_dtypes on first use."""
    if name == "bfloat16":
        return load_bfloat16()
    if name == "DTYPES":
        load_bfloat16()
        return tuple(SHORT_NAME)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_bfloat16(dtype) -> bool:
    return dtype.kind == "V"


def dtype_from_short(name: str):
    """The dtype of a short name ('f32', 'bf16'), None for an unknown name."""
    return load_bfloat16() if name == "bf16" else FROM_SHORT.get(name)


def canonical_dtype(dtype) -> np.dtype:
    """Map anything NumPy calls a dtype (np.float32, 'f4', float, a jitgrad dtype) to one of DTYPES."""
    if isinstance(dtype, str) and (dtype in FROM_SHORT or dtype in BFLOAT16_NAMES):
        return dtype_from_short("bf16" if dtype == "bfloat16" else dtype)
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
    if d in SHORT_NAME:
        return d
    if d.kind == "V" and d.name == "bfloat16":     # from a user who loaded ml_dtypes already
        return load_bfloat16()
    raise TypeError(f"dtype {d.name} is not supported; jitgrad's dtypes are {_NAMES}")


def kind_of(dtype) -> str:
    """NumPy's dtype.kind, with 'f' for bfloat16 (ml_dtypes gives it kind 'V')."""
    kind = np.dtype(dtype).kind
    return "f" if kind == "V" else kind


def is_float(dtype) -> bool:
    return dtype.kind in "fV"      # ml_dtypes' bfloat16 has kind 'V'


def is_complex(dtype) -> bool:
    return dtype.kind == "c"


def is_inexact(dtype) -> bool:
    """float or complex: the dtypes of exp, log, division, ..."""
    return dtype.kind in "fcV"


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
