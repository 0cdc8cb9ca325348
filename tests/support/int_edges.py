"""The integer edge-value matrix (issue 24, item 6), shared by tests/numpy/test_int_edges.py (CPU paths)
and tests/cuda_sim/test_cuda_wrong_answers_edges.py: every pair of edge values of int32 and int64
(the minimum and maximum, their neighbours, small negatives, 0, ±1) through each integer op,
against NumPy (whose results at the edges are the contract: x // 0 == 0, min // -1 == min,
shifts by a count outside [0, bits) give 0 or -1)."""
import numpy as np

import jitgrad.numpy as jnp

DTYPES = (np.int32, np.int64)


def edges(dt):
    i = np.iinfo(dt)
    return np.array([i.min, i.min + 1, -7, -3, -2, -1, 0, 1, 2, 3, 7, i.max - 1, i.max], dt)


def shift_counts(dt):
    bits = np.dtype(dt).itemsize * 8
    return np.array([-65, -bits, -1, 0, 1, 3, bits - 1, bits, bits + 1, 100], dt)


# name -> (jitgrad function, NumPy reference, right operands)
BINARY = {
    "floor_divide": (lambda a, b: a // b, np.floor_divide, edges),
    "remainder": (lambda a, b: a % b, np.remainder, edges),
    "left_shift": (jnp.left_shift, np.left_shift, shift_counts),
    "right_shift": (jnp.right_shift, np.right_shift, shift_counts),
    "add": (lambda a, b: a + b, np.add, edges),
    "subtract": (lambda a, b: a - b, np.subtract, edges),
    "multiply": (lambda a, b: a * b, np.multiply, edges),
    "maximum": (jnp.maximum, np.maximum, edges),
    "minimum": (jnp.minimum, np.minimum, edges),
    "bitwise_and": (lambda a, b: a & b, np.bitwise_and, edges),
    "bitwise_xor": (lambda a, b: a ^ b, np.bitwise_xor, edges),
    "power": (lambda a, b: a ** (b & 7), lambda a, b: a ** (b & 7), edges),
    # several ops in one fused kernel, and a weak Python int divisor
    "fused": (lambda a, b: (a // b) * 3 + a % b - (a >> (b & 70)),
              lambda a, b: (a // b) * 3 + a % b - (a >> (b & 70)), edges),
    "by_python_int": (lambda a, b: (a // -1) + (a % -1) + (a // 0) + b * 0,
                      lambda a, b: (a // -1) + (a % -1) + (a // 0) + b * 0, edges),
}
UNARY = {"negative": (lambda a: -a, np.negative), "abs": (jnp.abs, np.abs),
         "sign": (jnp.sign, np.sign), "invert": (lambda a: ~a, np.invert)}


def binary_cases():
    """(name, dtype, jitgrad fn, a, b, NumPy's result) for every pair of edge values."""
    for name, (fn, ref, right) in BINARY.items():
        for dt in DTYPES:
            a, b = (x.ravel() for x in np.meshgrid(edges(dt), right(dt), indexing="ij"))
            with np.errstate(all="ignore"):
                want = ref(a, b)
            yield name, dt, fn, a, b, want


def unary_cases():
    for name, (fn, ref) in UNARY.items():
        for dt in DTYPES:
            with np.errstate(all="ignore"):
                yield name, dt, fn, edges(dt), ref(edges(dt))


def mismatches(got, want, args):
    """'a op b: got g, NumPy w' lines for the differing elements (dtype first)."""
    got = np.asarray(got)
    if got.dtype != want.dtype:
        return [f"dtype {got.dtype}, NumPy {want.dtype}"]
    bad = np.nonzero(got != want)[0]
    return [f"{tuple(int(x[k]) for x in args)}: got {got[k]}, NumPy {want[k]}" for k in bad[:5]]
