"""Run-time checks that hold on every path: eagerly, and in compiled code (where the checked
primitive raises the error ir.errors.check_error names)."""
from __future__ import annotations

import numpy as np

from ..eager.dispatch import apply
from ..ir import Op
from ._convert import device_of, host_array


def checked(x, n, check):
    """x, asserted to lie in [0, n) on every path: a `take` from arange(n) with params
    check="kind:what" (ir.errors.check_error names the error). Use the result, not x: an
    unused check is dead code to the compiler."""
    iota = host_array(np.arange(n, dtype=x.dtype), device_of(x))
    return apply(Op.take, [iota, x], {"axis": 0, "check": check})
