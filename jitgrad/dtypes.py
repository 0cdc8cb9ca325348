"""Public dtypes and the promotion rules: NumPy's between arrays, weak Python scalars as in
PyTorch and JAX (a Python float meets an int or bool tensor as float32, meets a float tensor as
that tensor's dtype; Python floats alone become float32)."""
from __future__ import annotations

import numpy as np

from .ir.types import DTYPES, bool_, canonical_dtype, float32, float64, int32, int64, is_float

_pybool = bool
bool = bool_  # noqa: A001  (jg.bool, like torch.bool)
default_float = float32
default_int = int64

__all__ = ["float32", "float64", "int32", "int64", "bool_", "DTYPES", "canonical_dtype",
           "result_type", "scalar_dtype"]


def scalar_dtype(x) -> np.dtype:
    """dtype of a Python scalar standing alone (jg.tensor(1.5) is float32, jg.tensor(2) is int64)."""
    if isinstance(x, (_pybool, np.bool_)):
        return bool_
    if isinstance(x, (int, np.integer)) and not isinstance(x, np.bool_):
        if isinstance(x, np.integer):
            return canonical_dtype(x.dtype)
        if not -2**63 <= x < 2**63:
            raise OverflowError(f"Python integer {x} does not fit in int64; jitgrad computes in "
                                "float32, float64, int32, int64 and bool")
        return int64
    if isinstance(x, np.floating):
        return canonical_dtype(x.dtype)
    if isinstance(x, (complex, np.complexfloating)):
        return canonical_dtype(np.dtype(type(x)))     # not supported: jitgrad's dtype message
    if isinstance(x, float):
        return float32
    raise TypeError(f"expected a number, got {type(x).__name__}")


_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2}


def result_type(*items) -> np.dtype:
    """Promote array dtypes (strong, NumPy rules) with weak Python scalars."""
    strong = [d for d, weak in items if not weak]
    weak = [d for d, weak in items if weak]
    if strong:
        r = canonical_dtype(np.result_type(*strong))
        for w in weak:
            if _KIND_RANK[w.kind] > _KIND_RANK[r.kind]:
                r = float32 if is_float(w) else int64
        return r
    return max(weak, key=lambda d: _KIND_RANK[d.kind]) if weak else float32
