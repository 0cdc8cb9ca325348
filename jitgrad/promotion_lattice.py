"""JAX's type-promotion lattice (jax/_src/dtypes.py, "standard" mode, x64 semantics): how
jitgrad promotes every pair of array dtypes, in jitgrad.numpy (jax.numpy.promote_types) and in
jg.Tensor's operators (torch.promote_types gives the same answers wherever torch promotes; the
operators add torch's rule for 0-d tensors on top: dtypes.torch_result_type).

The promoted dtype of several dtypes is their least upper bound in this graph. An int or bool
meeting a float gives that float (float32 + int32 and float32 + int64 are float32, as in JAX
and PyTorch; NumPy: float64); int16 + float16 is float16 (NumPy: float32); bfloat16 + float16
is float32; int8 + uint8 is int16, as in NumPy. uint64 with a signed int gives the default
float (JAX's weak float; NumPy: float64; torch refuses to promote uint16/32/64 with other ints).

"i_" and "f_" are JAX's weak int and weak float nodes; a result of "f_" is the default float.
"""
from __future__ import annotations

import functools

from .ir.types import (bool_, canonical_dtype, complex64, complex128, float16, float32, float64,
                       int8, int16, int32, int64, on_bfloat16, uint8, uint16, uint32, uint64)

# node -> the nodes directly above it
_UP = {
    bool_: ["i_"],
    "i_": [uint8, int8],
    uint8: [int16, uint16], uint16: [int32, uint32], uint32: [int64, uint64], uint64: ["f_"],
    int8: [int16], int16: [int32], int32: [int64], int64: ["f_"],
    "f_": [float16, "c_"],      # and bfloat16 -> float32, when ml_dtypes loads
    float16: [float32], float32: [float64, complex64],
    float64: [complex128],
    "c_": [complex64], complex64: [complex128], complex128: [],
}


def _add_bfloat16(bf16) -> None:
    _UP.update({"f_": [bf16, float16, "c_"], bf16: [float32]})
    _above.cache_clear()
    _lub.cache_clear()


@functools.lru_cache(maxsize=None)
def _above(node) -> frozenset:
    """`node` and every node above it."""
    out = {node}
    for n in _UP[node]:
        out |= _above(n)
    return frozenset(out)


def _node(d):
    """A lattice node, or the jitgrad dtype `d` names (TypeError for an unsupported one)."""
    return d if d in _UP else canonical_dtype(d)


@functools.lru_cache(maxsize=None)
def _lub(a, b):
    common = _above(_node(a)) & _above(_node(b))
    # the least element: the common node every other common node is above
    least = [n for n in common if common <= _above(n)]
    return least[0]


on_bfloat16(_add_bfloat16)      # when ml_dtypes loads (ir/types.py)


def jax_promote(dtypes, default_float):
    """The least upper bound of `dtypes` in JAX's lattice ("f_" resolved to `default_float`)."""
    r = _node(dtypes[0])
    for d in dtypes[1:]:
        r = _lub(r, d)
    return default_float if r == "f_" else r
