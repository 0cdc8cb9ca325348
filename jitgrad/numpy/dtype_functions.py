"""The standard's data type functions on jitgrad's dtypes: can_cast, isdtype, result_type,
finfo, iinfo (machine limits as Python numbers, as the standard asks)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as _np

from ..ir.types import is_bfloat16, kind_of
from ..dtypes import (canonical_dtype, default_complex, default_float, result_type as _promote,
                      scalar_dtype)
from ._convert import is_array, numpy_scalar

_KINDS = ("bool", "signed integer", "unsigned integer", "integral", "real floating",
          "complex floating", "numeric")


def _dtype_of(x, what):
    """A dtype, or an array's dtype; anything else is an error naming what came."""
    if hasattr(x, "dtype") and not isinstance(x, (type, _np.dtype)):
        return canonical_dtype(x.dtype)
    try:
        return canonical_dtype(x)
    except TypeError as e:
        if isinstance(x, _np.dtype) or isinstance(x, type) and issubclass(x, _np.generic):
            raise TypeError(f"{what}: {e}") from None       # a NumPy dtype jitgrad lacks
        raise TypeError(f"{what}: expected a dtype or an array, got {type(x).__name__} "
                        f"{x!r}") from None


def can_cast(from_, to, /):
    """Whether from_ (a dtype or array) casts to `to` without loss, by NumPy's "safe" rule."""
    return bool(_np.can_cast(_dtype_of(from_, "can_cast"), _dtype_of(to, "can_cast")))


def isdtype(dtype, kind):
    """The standard's isdtype: is `dtype` of `kind` (a kind name, a dtype, or a tuple of them)?"""
    if not isinstance(dtype, _np.dtype) and not (isinstance(dtype, type)
                                                 and issubclass(dtype, _np.generic)):
        raise TypeError(f"isdtype: expected a dtype, got {type(dtype).__name__} {dtype!r}")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str) and k not in _KINDS:
            raise ValueError(f"isdtype: unknown kind {k!r}; kinds are {', '.join(_KINDS)}")
    d = _np.dtype(dtype)
    if d.name == "bfloat16":     # ml_dtypes' bfloat16 is a real floating dtype (NumPy: kind V)
        return any(k in ("real floating", "numeric") or k == d for k in kinds)
    return any(_np.isdtype(d, k if isinstance(k, str) else _np.dtype(k)) for k in kinds)


def promote_types(type1, type2, /):
    """The dtype two dtypes promote to: jax.numpy.promote_types, JAX's lattice
    (jitgrad/promotion_lattice.py; int32 with float32 is float32, NumPy's float64)."""
    return _promote((_dtype_of(type1, "promote_types"), False),
                    (_dtype_of(type2, "promote_types"), False))


def result_type(*arrays_and_dtypes):
    """jax.numpy.result_type: JAX's lattice between arrays and dtypes; Python scalars are weak
    (they take the arrays' dtype unless of a higher kind), and so are NumPy scalars next to a
    jitgrad array, as in jitgrad's operators."""
    if not arrays_and_dtypes:
        raise ValueError("result_type: at least one array or dtype is required")
    weak_np = any(is_array(a) for a in arrays_and_dtypes)
    entries = []
    for a in arrays_and_dtypes:
        if isinstance(a, (bool, int, float, complex)) and not isinstance(a, _np.generic) \
                or weak_np and numpy_scalar(a):
            entries.append((scalar_dtype(a[()] if isinstance(a, _np.ndarray) else a), True))
        else:
            entries.append((_dtype_of(a, "result_type"), getattr(a, "_weak", False)))
    return _promote(*entries)


@dataclass(frozen=True)
class finfo_object:
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    resolution: float
    tiny: float
    dtype: _np.dtype


@dataclass(frozen=True)
class iinfo_object:
    bits: int
    max: int
    min: int
    dtype: _np.dtype


def _bfloat16_finfo():
    import ml_dtypes  # lazy: loaded already where a bfloat16 exists; ~0.7 s at import otherwise
    return ml_dtypes.finfo(ml_dtypes.bfloat16)


def finfo(type, /):  # noqa: A002
    """numpy.finfo: machine limits for floating point types."""
    d = _dtype_of(type, "finfo")
    if kind_of(d) not in "fc":
        raise ValueError(f"finfo: expected a floating or complex dtype, got {d.name}")
    f = _bfloat16_finfo() if is_bfloat16(d) else _np.finfo(d)      # of a complex dtype: its parts' float dtype, as the standard says
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min),
                        float(f.smallest_normal), float(f.resolution), float(f.tiny), f.dtype)


def iinfo(type, /):  # noqa: A002
    """numpy.iinfo: machine limits for integer types."""
    d = _dtype_of(type, "iinfo")
    if kind_of(d) not in "iu":
        raise ValueError(f"iinfo: expected an integer dtype, got {d.name}")
    i = _np.iinfo(d)
    return iinfo_object(int(i.bits), int(i.max), int(i.min), d)


def default_dtypes():
    return {"real floating": default_float(), "complex floating": default_complex(),
            "integral": _np.dtype("int64"),
            "indexing": _np.dtype("int64")}
