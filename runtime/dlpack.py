"""DLPack (unversioned `dltensor` capsules) for device memory, written with ctypes.

numba's device arrays have `__cuda_array_interface__` but no `__dlpack__`, so jitgrad builds
the DLManagedTensor itself: `export(ptr, shape, strides, dtype, device, owner)` returns a capsule
that keeps `owner` alive until the consumer calls the deleter (or the capsule dies unconsumed);
`parse(capsule)` reads one back into (ptr, shape, strides, dtype, device, release).
Layouts follow dlpack.h v0.8 / v1.0's legacy struct.
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

KDL_CPU, KDL_CUDA = 1, 2
_CODE = {"i": 0, "u": 1, "f": 2, "b": 6}          # kDLInt, kDLUInt, kDLFloat, kDLBool
_KIND = {v: k for k, v in _CODE.items()}


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]


_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

_NAME, _USED = b"dltensor", b"used_dltensor"
_live: dict = {}               # address of a DLManagedTensor we made -> what keeps it valid
_lock = threading.Lock()


@_Deleter
def _delete(address):
    with _lock:
        _live.pop(address, None)


_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


# The destructor gets a capsule whose refcount is already zero: touch it only through raw
# pointers (making a py_object of it would resurrect and free it twice).
_is_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api))
_get_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))


@_CapsuleDestructor
def _capsule_destructor(capsule_address):
    # Only an unconsumed capsule still owns its tensor; a consumer renamed it "used_dltensor".
    if _is_valid_raw(capsule_address, _NAME):
        _delete(_get_pointer_raw(capsule_address, _NAME))


def export(ptr: int, shape, strides, dtype, device_type: int, device_id: int, owner):
    """A `dltensor` capsule over memory at `ptr` (strides in elements, as DLPack counts them)."""
    dtype = np.dtype(dtype)
    ndim = len(shape)
    shape_arr = (ctypes.c_int64 * max(ndim, 1))(*shape)
    strides_arr = (ctypes.c_int64 * max(ndim, 1))(*strides)
    managed = DLManagedTensor()
    managed.dl_tensor = DLTensor(ptr, DLDevice(device_type, device_id), ndim,
                                 DLDataType(_CODE[dtype.kind], dtype.itemsize * 8, 1),
                                 shape_arr, strides_arr, 0)
    managed.deleter = _delete
    address = ctypes.addressof(managed)
    with _lock:
        _live[address] = (managed, shape_arr, strides_arr, owner)
    return _api.PyCapsule_New(address, _NAME, ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def parse(capsule):
    """(ptr, shape, strides in elements, dtype, (device_type, device_id), release) of a
    `dltensor` capsule, which is marked consumed; call `release()` when done with the memory."""
    if not _api.PyCapsule_IsValid(capsule, _NAME):
        raise ValueError("expected an unconsumed DLPack capsule named 'dltensor'")
    address = _api.PyCapsule_GetPointer(capsule, _NAME)
    managed = DLManagedTensor.from_address(address)
    t = managed.dl_tensor
    if t.dtype.lanes != 1 or t.dtype.code not in _KIND:
        raise TypeError(f"DLPack dtype code {t.dtype.code} x{t.dtype.lanes} is not supported")
    dtype = np.dtype(f"{_KIND[t.dtype.code]}{t.dtype.bits // 8}") if t.dtype.code != 6 \
        else np.dtype(bool)
    shape = tuple(t.shape[k] for k in range(t.ndim))
    strides = tuple(t.strides[k] for k in range(t.ndim)) if t.strides else \
        _contiguous(shape)
    ptr = (t.data or 0) + t.byte_offset
    _api.PyCapsule_SetName(capsule, _USED)
    deleter = managed.deleter

    def release():
        if deleter:
            deleter(address)
    return ptr, shape, strides, dtype, (t.device.device_type, t.device.device_id), release


def _contiguous(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return tuple(reversed(strides))
