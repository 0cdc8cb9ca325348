"""Moving tensors between devices, and device-memory interop (CUDA array interface, DLPack).

A cuda tensor's `_data` is a C-contiguous numba device array from the caching allocator; all
copies run on the device's one stream, and a copy to the host synchronizes that stream.
"""
from __future__ import annotations

import numpy as np

from .dtypes import canonical_dtype
from .runtime import cuda_device
from .runtime.device import CPU, META, Device
from .tensor import Tensor


def to_host(t: Tensor) -> np.ndarray:
    """A NumPy copy of a cuda tensor's data (waits for the work that produces it)."""
    s = cuda_device.stream(t.device.index or 0)
    host = t._data.copy_to_host(stream=s)
    s.synchronize()
    return host


def to_device(host: np.ndarray, device: Device):
    """A device array holding a copy of `host`."""
    from .codegen.cuda_eager import upload
    return upload(host, device.index or 0)


def transfer(t: Tensor, device: Device) -> Tensor:
    """t's data on `device`. Moving a leaf keeps `requires_grad` (the result is a new leaf, as
    when parameters are moved before training); moving a tensor inside a recorded computation
    is not differentiable and says so."""
    if t.requires_grad and not t.is_leaf:
        from .core import grad_enabled
        if grad_enabled():
            raise RuntimeError(f".to('{device}'): moving a tensor computed from tensors that "
                               "require grad across devices is not differentiable; move the "
                               "inputs (leaves) first, or .detach() it")
    if device == META:
        out = Tensor._meta(t._type)
    elif t.device == META:
        raise RuntimeError(f".to('{device}'): a meta tensor has a shape and dtype but no data "
                           "to copy")
    elif device.type == "cpu":
        out = Tensor._wrap(to_host(t), CPU)
    elif device.type == "cuda":
        host = t._data if t.device == CPU else to_host(t)
        out = Tensor._wrap(to_device(host, device), device)
    else:
        raise ValueError(f".to: unknown device {device}")
    if t.requires_grad:
        out.requires_grad_(True)
    return out


def copy_into(dst: Tensor, src: Tensor) -> None:
    """dst's storage <- src's values (same shape and dtype, same cuda device)."""
    from .codegen.cuda_eager import strided_copy as kernel_copy
    from .codegen.space import c_strides
    strides = c_strides(dst.shape)
    kernel_copy(dst._data, 0, strides, src._data, 0, strides, dst.shape, dst.device.index or 0)


# ----------------------------------------------------------------------------- interop

def cuda_array_interface(t: Tensor) -> dict:
    if t.device.type != "cuda" or cuda_device.simulator_enabled():
        raise AttributeError(f"__cuda_array_interface__ is only defined for tensors in GPU "
                             f"memory; this one is on {t.device}"
                             + (" (the CUDA simulator keeps data on the host)"
                                if cuda_device.simulator_enabled() else ""))
    return t._data.__cuda_array_interface__


def dlpack_device(t: Tensor) -> tuple:
    from .runtime import dlpack
    if t.device.type != "cuda" or cuda_device.simulator_enabled():
        return dlpack.KDL_CPU, 0      # the simulator's "device" memory is host memory
    return dlpack.KDL_CUDA, t.device.index or 0


def dlpack_capsule(t: Tensor, stream=None):
    from .runtime import dlpack
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


def from_dlpack(obj) -> Tensor:
    """jg.from_dlpack(x): a tensor sharing x's memory. x may offer `__dlpack__` (NumPy, PyTorch,
    CuPy, JAX, jitgrad) or `__cuda_array_interface__` (numba, CuPy)."""
    from .runtime import dlpack
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
    import weakref
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
