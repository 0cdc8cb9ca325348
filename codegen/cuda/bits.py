"""Bit casts for generated CUDA kernels: F2I (a float32's bits as an int32) and I2F (back).

The low-precision converts (codegen/cuda/lowp.py) are written with them and integer arithmetic.
On a GPU, and for compile_ptx, they are libdevice's `__nv_float_as_int` / `__nv_int_as_float`
(a register move, no call left in the PTX); under numba's simulator (NUMBA_ENABLE_CUDASIM=1),
which has no libdevice, they are NumPy views of one scalar. A kernel module imports them only
when its code uses them (codegen/cuda/source.module_text).
"""
from __future__ import annotations

import numpy as np

from ...runtime.cuda_device import simulator_enabled

if simulator_enabled():
    def F2I(x):
        return np.float32(x).view(np.int32)

    def I2F(i):
        return np.int32(i).view(np.float32)
else:
    from numba.cuda import libdevice    # loaded with the first low-precision kernel

    F2I = libdevice.float_as_int
    I2F = libdevice.int_as_float
