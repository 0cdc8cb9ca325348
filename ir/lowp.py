"""Low-precision dtypes are stored narrow and computed wide.

float16 and bfloat16 compute in float32 and round once per op (NumPy's float16 ufuncs and
ml_dtypes' bfloat16 ufuncs do the same, so elementwise results are bit-identical to theirs);
reductions, cumulative sums and matmul accumulate in float32. int8/int16/uint8/uint16 compute in
int32 and uint32 in int64, then wrap back to their width (as NumPy's integer arithmetic wraps).

`COMPUTE[dtype]` is the wide dtype; `legalized(op, in_dtypes, out_dtypes, params)` says how one op
runs: the dtypes its inputs are cast to, its params with a `dtype` param widened, or None when the
op runs as it is. The reference (ir/reference.py) and the `widen_lowp` pass (compiled graphs) both
read it, so every path rounds at the same places.
"""
from __future__ import annotations

from .ops import Op
from .registry import RECORDS
from .types import (float16, float32, int8, int16, int32, int64, on_bfloat16, uint8, uint16,
                    uint32)

COMPUTE = {float16: float32, int8: int32, int16: int32, uint8: int32,      # and bfloat16: float32
           uint16: int32, uint32: int64}

# ops that take the narrow dtypes as they are: casts, literals, and ops that hold sub-graphs
# (their bodies are legalized node by node)
NATIVE = frozenset({Op.convert, Op.constant, Op.cond, Op.switch, Op.while_loop, Op.scan,
                    Op.custom_vjp_call, Op.remat, Op.kernel})


def wide(dtype):
    return COMPUTE.get(dtype, dtype)


def needs_widening(op, in_dtypes, out_dtypes) -> bool:
    return op not in NATIVE and any(d in COMPUTE for d in (*in_dtypes, *out_dtypes))


def widened_params(params: dict) -> dict:
    if "dtype" in params and params["dtype"] in COMPUTE:
        return {**params, "dtype": COMPUTE[params["dtype"]]}
    return params


# float16/bfloat16 values are converted only in LLVM units; an op whose record has an "llvm" gap
# runs elsewhere (the host's NumPy reference): fusion keeps them out of kernels holding such an
# op (ir/passes/fusion_rules.py), so the converts run in LLVM units and that op sees float32
HALF_FLOATS = {float16}     # and bfloat16


def _add_bfloat16(bf16) -> None:
    COMPUTE[bf16] = float32
    HALF_FLOATS.add(bf16)


on_bfloat16(_add_bfloat16)      # when ml_dtypes loads (ir/types.py)


def _llvm_gap(op) -> bool:
    r = RECORDS.get(op)
    return r is not None and "llvm" in r.gaps


def fusion_blocked(nodes) -> bool:
    """Whether `nodes` mix a half-float value with an op the LLVM units leave to another path."""
    return any(_llvm_gap(n.op) for n in nodes) and any(
        v.type.dtype in HALF_FLOATS for n in nodes for v in (*n.inputs, *n.outputs))
