"""jg.from_dlpack: a tensor sharing another library's memory (DLPack or the CUDA array
interface)."""
from __future__ import annotations

import weakref

import numpy as np

from ..dtypes import canonical_dtype
from ..runtime import cuda_device, dlpack
from ..runtime.device import CPU, Device, device as as_device
from .device_memory import to_device, to_host
from .tensor import Tensor


def from_dlpack(x, /, *, device=None, copy=None) -> Tensor:
    """jg.from_dlpack(x) (torch.from_dlpack, and the Array API 2023.12's from_dlpack): a tensor
    sharing x's memory. x may offer `__dlpack__` (NumPy, PyTorch, CuPy, JAX, jitgrad) or
    `__cuda_array_interface__` (numba, CuPy). device: where the tensor lives (default: x's
    device); copy=True always copies, copy=False never does (BufferError where a copy is
    needed: another device, strided CUDA data), None copies only then."""
    out, copied = _imported(x, copy is False)
    if device is not None and as_device(device) != out.device:
        if copy is False:
            raise BufferError(f"from_dlpack(copy=False): the data is on {out.device}, moving "
                              f"it to {as_device(device)} needs a copy")
        return out.to(as_device(device))
    return _copy(out) if copy and not copied else out


def _imported(obj, no_copy):
    """(a tensor of obj's data, whether it is a copy), sharing obj's memory where it can."""
    if isinstance(obj, Tensor):
        shared = Tensor._wrap(obj._data, obj.device, obj._version) if obj._data is not None \
            else Tensor._meta(obj._type)
        return shared, False
    if hasattr(obj, "__dlpack_device__"):
        kind, index = obj.__dlpack_device__()
        if kind == dlpack.KDL_CPU:
            arr = np.from_dlpack(obj)
            canonical_dtype(arr.dtype)          # a TypeError for a dtype jitgrad lacks
            return Tensor._wrap(arr, CPU), False
        if kind != dlpack.KDL_CUDA:
            raise BufferError(f"from_dlpack: DLPack device type {kind} is not supported "
                              "(expected CPU (1) or CUDA (2))")
        # stream 1: DLPack's name for the legacy default stream, which is numba's default stream
        capsule = obj.__dlpack__(stream=1)
        ptr, shape, strides, dtype, _, release = dlpack.parse(capsule)
        desc = {"shape": shape, "typestr": dtype.str, "data": (ptr, False), "version": 3,
                "strides": tuple(s * dtype.itemsize for s in strides)}
        return _wrap_device(desc, index, release, no_copy)
    if hasattr(obj, "__cuda_array_interface__"):
        return _wrap_device(obj.__cuda_array_interface__, 0, None, no_copy, owner=obj)
    raise TypeError(f"from_dlpack: expected an object with __dlpack__ or "
                    f"__cuda_array_interface__, got {type(obj).__name__}")


def _copy(t):
    """A tensor of t's values in storage of its own."""
    if t.device.type == "cpu":
        return Tensor._wrap(np.array(t._data, copy=True), t.device)
    if t.device.type == "cuda":
        return Tensor._wrap(to_device(to_host(t), t.device), t.device)
    return Tensor._meta(t._type)


def _wrap_device(desc, index, release, no_copy, owner=None):
    device = Device("cuda", index)
    cuda_device.check_available(index)
    cuda = cuda_device.numba_cuda()
    arr = cuda.from_cuda_array_interface(desc, owner=owner, sync=True)
    if release is not None:
        weakref.finalize(arr, release)
    canonical_dtype(arr.dtype)
    if not arr.is_c_contiguous():       # jitgrad's kernels take C-contiguous storage: copy once
        if no_copy:
            raise BufferError(f"from_dlpack(copy=False): CUDA data with strides {arr.strides} "
                              "needs a copy (jitgrad keeps C-contiguous storage)")
        return Tensor._wrap(to_device(arr.copy_to_host(), device), device), True
    return Tensor._wrap(arr, device), False
