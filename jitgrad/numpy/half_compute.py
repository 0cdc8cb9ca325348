"""float16/bfloat16 composites computed in float32 and rounded once (DESIGN §14).

Each primitive on a 16-bit float already computes in float32 and rounds its result (ir/lowp.py),
but a composite (mean = sum / n, var, norms, softmax, layer_norm) rounds between its primitives:
the sum of 70000 halves is inf before the division, n itself is inf in float16. So these
composites widen their 16-bit operands once and round the result once, as JAX's mean/var do
(`_upcast_f16`) and PyTorch's CPU kernels do (`acc_type`), and as NumPy's mean does."""
from __future__ import annotations

from ..ir.lowp import HALF_FLOATS
from ..ir.types import float32
from ._convert import asarray, astype
from .dtype_functions import result_type


def compute_dtype(dtype):
    """The dtype a composite computes in: float32 for float16/bfloat16, else `dtype` itself."""
    return float32 if dtype in HALF_FLOATS else dtype


def widened(*xs):
    """(the operands, the 16-bit float ones in float32; the dtype their promotion gives, which
    `narrowed` rounds results to, when it is a 16-bit float, else None). None operands stay."""
    arrays = [None if x is None else asarray(x) for x in xs]
    if all(a is None or a.dtype not in HALF_FLOATS for a in arrays):
        return arrays, None         # the common case: nothing 16-bit
    dtype = result_type(*[a for a in arrays if a is not None])
    return ([astype(a, float32) if a is not None and a.dtype in HALF_FLOATS else a
             for a in arrays], dtype if dtype in HALF_FLOATS else None)


def narrowed(y, dtype):
    """`y` rounded once to `dtype` (from `widened` or a statistic's result dtype) when that is a
    16-bit float."""
    return astype(y, dtype) if dtype in HALF_FLOATS else y
