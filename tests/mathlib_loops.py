"""codegen/mathlib.py's functions elementwise over NumPy arrays (njit loops, compiled once per
function and dtype): what the LLVM math ports are checked against bit for bit
(tests/test_codegen_llvm_math.py, tests/test_llvm_math_coverage.py)."""
import functools

import numpy as np

from jitgrad.codegen import mathlib


@functools.cache
def _loop(name, dtype, binary):
    from numba import njit
    fn = mathlib.math_function(name, dtype)
    if binary:
        @njit
        def loop2(x, y, o):
            for i in range(x.size):
                o[i] = fn(x[i], y[i])
        return loop2

    @njit
    def loop1(x, o):
        for i in range(x.size):
            o[i] = fn(x[i])
    return loop1


def mathlib_apply(name, *args):
    """mathlib's `name` applied elementwise to 1-d arrays `args` (one or two)."""
    out = np.empty_like(args[0])
    _loop(name, args[0].dtype.name, len(args) == 2)(*args, out)
    return out
