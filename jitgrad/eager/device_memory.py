"""Device memory of eager tensors: host/device copies and the CUDA array interface and DLPack
exports. Nothing here makes a Tensor (eager/tensor.py does, eager/from_dlpack.py imports).

A cuda tensor's `_data` is a C-contiguous numba device array from the caching allocator; all
copies run on the device's one stream, and a copy to the host synchronizes that stream.
"""
from __future__ import annotations

import numpy as np

from ..runtime import cuda_device, dlpack
from ..runtime.device import CPU, META, Device


def to_host(t) -> np.ndarray:
    """A NumPy copy of a cuda tensor's data (waits for the work that produces it)."""
    s = cuda_device.stream(t.device.index or 0)
    host = t._data.copy_to_host(stream=s)
    s.synchronize()
    return host


def to_device(host: np.ndarray, device: Device):
    """A device array holding a copy of `host`."""
    from ..codegen.cuda.eager import upload  # lazy: numba.cuda
    return upload(host, device.index or 0)


def copy_into(dst, src) -> None:
    """dst's storage <- src's values (same shape and dtype, same cuda device)."""
    from ..codegen.cuda.eager import strided_copy as kernel_copy  # lazy: numba.cuda
    from ..codegen.kernel.space import c_strides
    strides = c_strides(dst.shape)
    kernel_copy(dst._data, 0, strides, src._data, 0, strides, dst.shape, dst.device.index or 0)


# ----------------------------------------------------------------------------- interop

def cuda_array_interface(t) -> dict:
    if t.device.type != "cuda" or cuda_device.simulator_enabled():
        raise AttributeError(f"__cuda_array_interface__ is only defined for tensors in GPU "
                             f"memory; this one is on {t.device}"
                             + (" (the CUDA simulator keeps data on the host)"
                                if cuda_device.simulator_enabled() else ""))
    return t._data.__cuda_array_interface__


def dlpack_device(t) -> tuple:
    if t.device.type != "cuda" or cuda_device.simulator_enabled():
        return dlpack.KDL_CPU, 0      # the simulator's "device" memory is host memory
    return dlpack.KDL_CUDA, t.device.index or 0


def dlpack_capsule(t, stream=None):
    if t.device == META:
        raise BufferError("a meta tensor has no data to export through DLPack")
    if t.device == CPU:
        return t._data.__dlpack__(stream=stream)
    # The consumer may use the memory on its own stream at once: finish our writes first.
    cuda_device.stream(t.device.index or 0).synchronize()
    arr = t._data
    ptr = arr._ary.ctypes.data if cuda_device.simulator_enabled() else \
        arr.__cuda_array_interface__["data"][0]
    itemsize = np.dtype(arr.dtype).itemsize
    strides = tuple(s // itemsize for s in arr.strides)
    kind, index = dlpack_device(t)
    return dlpack.export(ptr, tuple(arr.shape), strides, arr.dtype, kind, index, t)
