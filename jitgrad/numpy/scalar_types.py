"""jax.numpy's dtype and scalar-type names beyond the concrete dtypes: NumPy's aliases (double,
single, int_, ...), its abstract type hierarchy (number, floating, ...) for issubdtype, and the
narrow ml_dtypes types (int4, float8_e4m3fn, ...), loaded on first use."""
from __future__ import annotations

import numpy as np

from ..dtypes import canonical_dtype

float_ = double = np.float64
single = np.float32
int_ = np.int64
uint = np.uint64
cdouble = complex_ = np.complex128
csingle = np.complex64
(generic, number, inexact, floating, complexfloating, integer, signedinteger, unsignedinteger,
 character, flexible, object_) = (np.generic, np.number, np.inexact, np.floating,
                                  np.complexfloating, np.integer, np.signedinteger,
                                  np.unsignedinteger, np.character, np.flexible, np.object_)
ComplexWarning = np.exceptions.ComplexWarning

# jax.numpy's narrow types, ml_dtypes' scalar types of those names (jnp loads them lazily)
NARROW_TYPES = ("int1", "int2", "int4", "uint1", "uint2", "uint4", "float4_e2m1fn",
                "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
                "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                "float8_e5m2fnuz", "float8_e8m0fnu")
_ML_KINDS = {"float": np.floating, "int": np.signedinteger, "uint": np.unsignedinteger,
             "bfloat": np.floating}


def _ml_kind(dtype):
    """NumPy's abstract type of an ml_dtypes dtype (bfloat16, int4, float8_*), else None."""
    if dtype.kind != "V":
        return None
    base = next((k for k in sorted(_ML_KINDS, key=len, reverse=True) if dtype.name.startswith(k)),
                None)
    return _ML_KINDS[base] if base else None


def _as_dtype(x):
    if isinstance(x, type) and issubclass(x, np.generic) and x in (
            np.generic, np.number, np.inexact, np.floating, np.complexfloating, np.integer,
            np.signedinteger, np.unsignedinteger, np.character, np.flexible):
        return None
    if getattr(x, "dtype", None) is not None and not isinstance(x, type):
        x = x.dtype                     # an array or a scalar: its dtype, as NumPy
    try:
        return np.dtype(x)
    except TypeError:                   # jitgrad's own spellings ("f32", jg.float32)
        return np.dtype(canonical_dtype(x))


def issubdtype(arg1, arg2):
    """numpy.issubdtype, knowing ml_dtypes' types as JAX does: bfloat16 and float8_* are
    floating, int4 is a signed integer."""
    d1 = _as_dtype(arg1)
    if d1 is None:
        return np.issubdtype(arg1, arg2)
    kind = _ml_kind(d1)
    if kind is None:
        return np.issubdtype(d1, arg2)
    d2 = _as_dtype(arg2)
    if d2 is not None:
        return d1 == d2
    return issubclass(kind, arg2)
