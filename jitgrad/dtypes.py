"""Public dtypes and the promotion rules: JAX's lattice between arrays (which PyTorch's table
agrees with: float32 + int32 is float32; promotion_lattice.py), weak Python scalars as in
PyTorch and JAX (a Python float meets an int or bool tensor as the default float dtype, meets a
float tensor as that tensor's dtype; Python floats alone become the default float dtype), and
PyTorch's rank of 0-d tensors below dimensioned ones, for Tensor operators (torch_result_type).

The default float dtype is float32, float64 in the float64 mode: JAX's
`jg.config.update("enable_x64", True)` / `JITGRAD_ENABLE_X64=1`, or PyTorch's
`jg.set_default_dtype(jg.float64)` (which, when set, wins over enable_x64)."""
from __future__ import annotations

import numpy as np

from .ir import config
from .ir import types
from .ir.types import (bool_, canonical_dtype, complex64, complex128, complex_dtype, float16,
                       float32, float64, int8, int16, int32, int64, is_bfloat16, is_float, kind_of,
                       uint8, uint16, uint32, uint64)
from .promotion_lattice import jax_promote

_pybool = bool
bool = bool_  # noqa: A001  (jg.bool, like torch.bool)


def __getattr__(name):
    """bfloat16 and DTYPES (which holds it) load ml_dtypes on first use (ir/types.py)."""
    if name in ("bfloat16", "DTYPES"):
        return getattr(types, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_cached: dict = {}      # "float": default_float(), until enable_x64 or default_dtype changes


def _options_changed(_value) -> None:
    _cached.clear()


config.on_update("enable_x64", _options_changed)
config.on_update("default_dtype", _options_changed)


def default_float() -> np.dtype:
    """The dtype of Python floats and of float results computed from ints (a hot path: the
    answer is kept until one of the two options changes)."""
    dt = _cached.get("float")
    if dt is None:
        chosen = config.read("default_dtype")
        dt = chosen if chosen is not None else float64 if config.read("enable_x64") else float32
        _cached["float"] = dt
    return dt


def set_default_dtype(d) -> None:
    """PyTorch's torch.set_default_dtype: the dtype Python floats and new float tensors get
    (the option default_dtype of ir/config.py, which wins over enable_x64)."""
    config.update("default_dtype", d, where="set_default_dtype")


def get_default_dtype() -> np.dtype:
    """torch.get_default_dtype: the float dtype of new floating tensors."""
    return default_float()


def set_float32_matmul_precision(precision: str) -> None:
    """PyTorch's torch.set_float32_matmul_precision: "highest" (the default) or "high" /
    "medium" (TF32 products on CUDA tensor cores; the option float32_matmul_precision)."""
    config.update("float32_matmul_precision", precision, where="set_float32_matmul_precision")


def get_float32_matmul_precision() -> str:
    """torch.get_float32_matmul_precision: 'highest', 'high' or 'medium' (CUDA tensor cores)."""
    return config.read("float32_matmul_precision")


def default_complex() -> np.dtype:
    """The dtype of Python complex numbers: complex64, complex128 in the float64 mode."""
    return complex_dtype(default_float())

__all__ = ["float32", "float64", "int32", "int64", "bool_", "complex64", "complex128", "DTYPES",
           "float16", "bfloat16", "int8", "int16", "uint8", "uint16", "uint32", "uint64",
           "canonical_dtype", "default_complex",
           "result_type", "torch_result_type", "scalar_dtype", "default_float", "set_default_dtype", "get_default_dtype",
           "set_float32_matmul_precision", "get_float32_matmul_precision"]


def scalar_dtype(x) -> np.dtype:
    """dtype of a Python scalar standing alone (jg.tensor(1.5) is the default float dtype,
    jg.tensor(2) is int64)."""
    if isinstance(x, (_pybool, np.bool_)):
        return bool_
    if isinstance(x, (int, np.integer)) and not isinstance(x, np.bool_):
        if isinstance(x, np.integer):
            return canonical_dtype(x.dtype)
        if not -2**63 <= x < 2**63:
            raise OverflowError(f"Python integer {x} does not fit in int64, the dtype of "
                                "Python ints (np.uint64(x) holds up to 2**64 - 1)")
        return int64
    if isinstance(x, np.floating) or isinstance(x, np.generic) and is_bfloat16(x.dtype):
        return canonical_dtype(x.dtype)
    if isinstance(x, np.complexfloating):
        return canonical_dtype(x.dtype)
    if isinstance(x, complex):
        return default_complex()
    if isinstance(x, float):
        return default_float()
    raise TypeError(f"expected a number, got {type(x).__name__}")


_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def _complex_of(r) -> np.dtype:
    """The complex dtype keeping float dtype r's precision: complex64 for the 16-bit floats
    (JAX's; torch's complex32 is not a jitgrad dtype) and float32, complex128 for float64."""
    return complex128 if r == float64 else complex64


# a weak Python scalar of a higher kind meeting an array dtype r (JAX's rules: a complex scalar
# keeps a float array's precision, 1j * float32 is complex64)
_WEAK_OVER = {"i": lambda r: int64, "f": lambda r: default_float(),
              "c": lambda r: _complex_of(r) if is_float(r) else default_complex()}
# 0-d tensors' dtype z of a higher kind than dimensioned tensors' dtype d (torch's
# combine_categories): z, except that a complex z keeps a float d's precision
_ZERO_DIM_OVER = {"i": lambda d, z: z, "u": lambda d, z: z,
                  "f": lambda d, z: z, "c": lambda d, z: _complex_of(d) if is_float(d) else z}


def result_type(*items) -> np.dtype:
    """Promote (dtype, weak) items: array dtypes (strong) by JAX's lattice, as
    jax.numpy.promote_types and torch.promote_types do, then weak Python scalars."""
    strong = [d for d, weak in items if not weak]
    weak = [d for d, weak in items if weak]
    if strong:
        r = jax_promote(strong, default_float())
        for w in weak:
            if _KIND_RANK[kind_of(w)] > _KIND_RANK[kind_of(r)]:
                r = _WEAK_OVER[kind_of(w)](r)
        return r
    return max(weak, key=lambda d: _KIND_RANK[kind_of(d)]) if weak else default_float()


def torch_result_type(*items) -> np.dtype:
    """torch.result_type's rule over (dtype, weak, zero_dim) items: a 0-d tensor ranks below
    dimensioned tensors unless its kind (bool < int < float < complex) is higher, so
    `float32 [3] + float64 []` is float32 and `int8 [3] + int64 []` int8, while
    `int32 [3] + float64 []` is float64; among dimensioned tensors alone, or 0-d ones alone,
    `result_type`'s lattice. Weak Python scalars then join as in `result_type`."""
    dims = [d for d, weak, zero in items if not weak and not zero]
    zeros = [d for d, weak, zero in items if not weak and zero]
    if not (dims and zeros):
        return result_type(*((d, weak) for d, weak, _ in items))
    d, z = jax_promote(dims, default_float()), jax_promote(zeros, default_float())
    if _KIND_RANK[kind_of(z)] > _KIND_RANK[kind_of(d)]:
        d = _ZERO_DIM_OVER[kind_of(z)](d, z)
    return result_type((d, False), *((w, True) for w, weak, _ in items if weak))
