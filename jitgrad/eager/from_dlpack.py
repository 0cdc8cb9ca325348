"""jg.from_dlpack: a tensor sharing another library's memory (DLPack or the CUDA array
interface)."""
from __future__ import annotations

import weakref

import numpy as np

from ..dtypes import canonical_dtype
from ..runtime import cuda_device, dlpack
from ..runtime.device import CPU, Device
from .device_memory import to_device
from .tensor import Tensor


def from_dlpack(obj) -> Tensor:
    """jg.from_dlpack(x): a tensor sharing x's memory. x may offer `__dlpack__` (NumPy, PyTorch,
    CuPy, JAX, jitgrad) or `__cuda_array_interface__` (numba, CuPy)."""
    if isinstance(obj, Tensor):
        return Tensor._wrap(obj._data, obj.device, obj._version) if obj._data is not None \
            else Tensor._meta(obj._type)
    if hasattr(obj, "__dlpack_device__"):
        kind, index = obj.__dlpack_device__()
        if kind == dlpack.KDL_CPU:
            arr = np.from_dlpack(obj)
            return Tensor._wrap(_supported(arr), CPU)
        if kind != dlpack.KDL_CUDA:
            raise BufferError(f"from_dlpack: DLPack device type {kind} is not supported "
                              "(expected CPU (1) or CUDA (2))")
        # stream 1: DLPack's name for the legacy default stream, which is numba's default stream
        capsule = obj.__dlpack__(stream=1)
        ptr, shape, strides, dtype, _, release = dlpack.parse(capsule)
        desc = {"shape": shape, "typestr": dtype.str, "data": (ptr, False), "version": 3,
                "strides": tuple(s * dtype.itemsize for s in strides)}
        return _wrap_device(desc, index, release)
    if hasattr(obj, "__cuda_array_interface__"):
        return _wrap_device(obj.__cuda_array_interface__, 0, None, owner=obj)
    raise TypeError(f"from_dlpack: expected an object with __dlpack__ or "
                    f"__cuda_array_interface__, got {type(obj).__name__}")


def _supported(arr):
    dt = canonical_dtype(arr.dtype)
    return arr if dt == arr.dtype else arr.astype(dt)


def _wrap_device(desc, index, release, owner=None):
    device = Device("cuda", index)
    cuda_device.check_available(index)
    cuda = cuda_device.numba_cuda()
    arr = cuda.from_cuda_array_interface(desc, owner=owner, sync=True)
    if release is not None:
        weakref.finalize(arr, release)
    if not arr.is_c_contiguous() or canonical_dtype(arr.dtype) != arr.dtype:
        # jitgrad's kernels take C-contiguous storage of its five dtypes: copy once
        return Tensor._wrap(to_device(arr.copy_to_host(), device), device)
    return Tensor._wrap(arr, device)
