"""The float edge-value matrix of the shared scalar rules (codegen/kernel/exprs.py): signed
zeros, NaN, infinities and halves through each op whose rule has a float edge, against NumPy.
Shared by tests/codegen/kernel/test_kernel_rules.py (the rules, the CPU paths) and
tests/cuda_sim/test_cuda_float_edges.py (CUDA under the simulator)."""
import numpy as np

import jitgrad.numpy as jnp
from jitgrad.ir.ops import Op

EDGES = np.array([-np.inf, -2.5, -1.5, -0.5, -0.4, -0.0, 0.0, 0.4, 0.5, 1.5, 2.5, 3.0, np.inf,
                  np.nan, -np.nan], np.float32)
X, Y = (a.reshape(-1) for a in np.meshgrid(EDGES, EDGES))
# op -> (jitgrad function, NumPy reference, operands)
CASES = {
    Op.sign: (jnp.sign, np.sign, (EDGES,)), Op.round: (jnp.round, np.rint, (EDGES,)),
    Op.abs: (jnp.abs, np.abs, (EDGES,)), Op.isinf: (jnp.isinf, np.isinf, (EDGES,)),
    Op.isnan: (jnp.isnan, np.isnan, (EDGES,)), Op.signbit: (jnp.signbit, np.signbit, (EDGES,)),
    Op.floor: (jnp.floor, np.floor, (EDGES,)),
    Op.max: (jnp.maximum, np.maximum, (X, Y)), Op.min: (jnp.minimum, np.minimum, (X, Y)),
    Op.floor_div: (jnp.floor_divide, np.floor_divide, (X, Y)),
    Op.mod: (jnp.remainder, np.remainder, (X, Y)),
}


def same(got, want) -> bool:
    """Equal as NumPy gives it: the value, the sign of a zero, NaN for NaN (any payload)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.kind != "f":
        return np.array_equal(got, want)
    return bool(np.all((got == want) & (np.signbit(got) == np.signbit(want))
                       | (np.isnan(got) & np.isnan(want))))


def mismatched(run, ops=CASES) -> list:
    """The ops (of `ops`) whose `run(fn, *operands)` differs from NumPy."""
    with np.errstate(all="ignore"):
        return [str(op) for op in ops
                if not same(run(CASES[op][0], *CASES[op][2]), CASES[op][1](*CASES[op][2]))]
