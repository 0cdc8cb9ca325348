"""The eager Tensor: NumPy storage on 'cpu', none on 'meta'. Basic-index slices are views that
share storage and the version counter, as in PyTorch and NumPy."""
from __future__ import annotations

import weakref

import numpy as np

from ..dtypes import canonical_dtype, default_complex, default_float, scalar_dtype
from ..ir.types import TensorType, kind_of
from ..runtime.deleted_storage import DeletedStorage
from ..runtime.device import CPU, META, Device
from ..runtime.device import device as as_device
from .array_base import ArrayOps
from .autograd_record import RETAINED
from .device_memory import (
    copy_into, cuda_array_interface, dlpack_capsule, dlpack_device, to_device, to_host
)
from .grad_mode import grad_enabled


# torch's in-place casting: a result may land in a tensor of the same or a higher kind
_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


class Tensor(ArrayOps):
    """torch.Tensor: jitgrad's array, with PyTorch's methods and autograd (requires_grad, backward,
    grad) and NumPy's array protocol; traced under jit."""
    __slots__ = ("_data", "_device", "_meta_type", "requires_grad", "grad", "_ctx", "_version",
                 "_retain", "_base", "_views", "__weakref__")
    __array_priority__ = 1000

    # construction -------------------------------------------------------------------------
    @classmethod
    def _wrap(cls, data, device=CPU, version=None):
        t = object.__new__(cls)
        t._data, t._device, t._meta_type = data, device, None
        t.requires_grad, t.grad, t._ctx, t._retain = False, None, None, False
        t._version = version if version is not None else [0]
        t._base = t._views = None
        return t

    @classmethod
    def _meta(cls, type: TensorType):
        t = cls._wrap(None, META)
        t._meta_type = type
        return t

    # metadata -----------------------------------------------------------------------------
    @property
    def shape(self):
        if self._data is None:
            return self._meta_type.shape
        s = self._data.shape      # the CUDA simulator's shapes are a tuple subclass without
        return s if type(s) is tuple else tuple(s)   # negative indexing

    @property
    def dtype(self):
        return self._meta_type.dtype if self._data is None else self._data.dtype

    @property
    def _type(self):
        return self._meta_type or TensorType(self._data.shape, self._data.dtype)

    @property
    def device(self) -> Device:
        return self._device

    @property
    def is_leaf(self) -> bool:
        return self._ctx is None

    @property
    def grad_fn(self):
        return self._ctx

    def is_deleted(self) -> bool:
        """True once the tensor was donated to a jitted function (donate_argnums) or deleted."""
        return type(self._data) is DeletedStorage

    def delete(self, why="it was deleted with .delete()"):
        """Free the storage now (JAX's Array.delete); any later read raises."""
        if self._device != META and not self.is_deleted():
            self._data = DeletedStorage(self.shape, self.dtype, why)

    # conversion ---------------------------------------------------------------------------
    def _host(self, what):
        if type(self._data) is DeletedStorage:
            raise self._data.error()
        if self._device == META:
            raise RuntimeError(f"{what}: a meta tensor has a shape and dtype but no data")
        if self._device.type != "cpu":
            return to_host(self)
        return self._data

    def numpy(self):
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on a tensor that requires grad; "
                               "use tensor.detach().numpy()")
        return self._host(".numpy()")

    def __array__(self, dtype=None, copy=None):
        a = self._host("converting to a NumPy array")
        return a if dtype is None else a.astype(dtype)

    def item(self):
        a = self._host(".item()")
        if a.size != 1:
            raise ValueError(f"item() needs a tensor with one element, got shape {a.shape}")
        return a.item()

    def tolist(self):
        return self._host(".tolist()").tolist()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if kind_of(self.dtype) not in "iu":
            raise TypeError(f"only integer tensors can be used as an index, got {self.dtype}")
        return int(self.item())

    def __bool__(self):
        if self.size != 1:
            raise ValueError(f"the truth value of a tensor with {self.size} elements is "
                             "ambiguous; use .any() or .all()")
        return bool(self.item())

    def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False,
           memory_format=None):
        """torch.Tensor.to(dtype), to(device), to(device, dtype), to(other), to(dtype=,
        device=): this tensor converted (itself when nothing changes, unless copy=True)."""
        device, dtype = to_arguments(args, dtype, device)
        t = self.clone() if copy else self
        if dtype is not None:
            t = t.astype(dtype)
        if device is not None and as_device(device) != t._device:
            t = transfer(t, as_device(device))
        return t

    def cpu(self):
        return self.to("cpu")

    def cuda(self, index=0):
        return self.to(f"cuda:{index}")

    # interop: CUDA array interface and DLPack (eager/device_memory.py) -------------------
    @property
    def __cuda_array_interface__(self):
        return cuda_array_interface(self)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if self._device.type == "cpu" and self._data is not None:   # NumPy's exporter: the
            return self._data.__dlpack__(stream=stream, max_version=max_version,  # standard's
                                         dl_device=dl_device, copy=copy)          # keywords
        return dlpack_capsule(self, stream)

    def __dlpack_device__(self):
        return dlpack_device(self)

    # autograd -----------------------------------------------------------------------------
    def detach(self):
        return Tensor._wrap(self._data, self._device, self._version) if self._data is not None \
            else Tensor._meta(self._meta_type)

    @property
    def data(self):
        """torch.Tensor.data: this tensor's storage, without autograd history."""
        return self.detach()

    @data.setter
    def data(self, value):
        self._data, self._version = value._data, value._version

    def detach_(self):
        """torch.Tensor.detach_: drop this tensor's autograd history in place."""
        self._ctx, self.requires_grad = None, False
        return self

    @property
    def retains_grad(self) -> bool:
        return self._retain

    def requires_grad_(self, mode=True):
        if mode and kind_of(self.dtype) not in "fc":
            raise RuntimeError(f"only float and complex tensors can require gradients, got {self.dtype}")
        self.requires_grad = bool(mode)
        return self

    def retain_grad(self):
        self._retain = True
        RETAINED.add(self)
        return self

    def zero_(self):
        return self._inplace(np.zeros_like, "zero_")

    # mutation -----------------------------------------------------------------------------
    def _check_mutable(self, what):
        if self.requires_grad and self.is_leaf and grad_enabled():
            raise RuntimeError(f"{what}: a leaf tensor that requires grad cannot be modified in "
                               "place; wrap the update in `with jg.no_grad():`")
        if self._device == META:
            raise RuntimeError(f"{what}: a meta tensor has no data to modify")

    def _inplace(self, fn, what):
        self._check_mutable(what)
        if self._device.type == "cuda":      # computed on a host copy, written back in place
            new = to_device(np.asarray(fn(to_host(self)), self.dtype), self._device)
            copy_into(self, Tensor._wrap(new, self._device))
        else:
            self._data[...] = fn(self._data)
        self._version[0] += 1
        return self

    # views -------------------------------------------------------------------------------
    def _track_view(self, base, key):
        """Make this tensor the view base[key] (a basic index): in-place updates of either
        reach the other, with or without autograd, as PyTorch's views do."""
        self._base = (base, key)
        views = base._views
        if views is None:
            base._views = [weakref.ref(self)]
        else:
            if len(views) >= 16 and len(views) & (len(views) - 1) == 0:   # at powers of two
                views[:] = [r for r in views if r() is not None]          # drop dead views
            views.append(weakref.ref(self))
        return self

    def _refresh_views(self, recorded):
        """After an in-place update of this tensor: every view takes its new value (a recorded
        view op when the update was recorded; a copy where storage is not shared)."""
        for ref in list(self._views or ()):
            view = ref()
            if view is None:
                continue
            key = view._base[1]
            if recorded:
                view._rebind(self[key])
                view._refresh_views(True)
            elif not np.may_share_memory(view._data, self._data):
                view._data[...] = self._data[key]
                view._refresh_views(False)

    def _rebind(self, result):
        """This tensor now stands for `result`'s value and autograd history (new storage)."""
        self._version = result._version
        self._data = result._data
        self._ctx, self.requires_grad = result._ctx, result.requires_grad
        if self._ctx is not None:
            self._ctx.rebind_output(result, self)

    def _assign(self, result, what):
        """In-place op: write `result` into this tensor's storage (views see it)."""
        if result.dtype != self.dtype and _RANK[kind_of(result.dtype)] <= _RANK[kind_of(self.dtype)]:
            result = result.astype(self.dtype)      # torch's rule: float64 into float32 is fine
        if grad_enabled() and (self.requires_grad or getattr(result, "requires_grad", False)):
            if self.requires_grad and self.is_leaf:
                self._check_mutable(what)
            if self._base is not None:
                # a view: update its base (recorded), which refreshes every view of it
                base, key = self._base
                base._assign(base.at[key].set(result), what)
                return self
            # recorded in-place update: this tensor now stands for the new value, in new
            # storage (with its own version counter); what recorded ops saw stays intact
            self._rebind(result)
            self._refresh_views(True)
            return self
        self._check_mutable(what)
        if result.dtype != self.dtype:
            raise TypeError(f"{what}: result dtype {result.dtype} can't be cast to {self.dtype} "
                            "in place")
        if self._device.type == "cuda":
            copy_into(self, result)
        else:
            np.copyto(self._data, result._data)
        self._version[0] += 1
        self._write_through()
        return self

    def _write_through(self):
        """After an unrecorded in-place write: a view whose storage is its own (taken under
        autograd) passes it on to its base; the base's other views follow."""
        if self._base is not None and not np.may_share_memory(self._data, self._base[0]._data):
            base, key = self._base
            base._data[key] = self._data
            base._version[0] += 1
            base._write_through()
        self._refresh_views(False)

    # printing -----------------------------------------------------------------------------
    def __format__(self, spec):
        """format(x, spec), as torch.Tensor.__format__: a 0-d tensor formats as its item
        (`f"{loss:.3f}"`); any other takes only the empty spec (its repr)."""
        if not self.shape and self._data is not None:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __repr__(self):
        extra = []
        if self._device != CPU:
            extra.append(f"device='{self._device}'")
        if self._data is None:
            return f"tensor(..., size={self.shape}, dtype={self.dtype.name}, device='meta')"
        body = np.array2string(self._host("repr"), separator=", ", prefix="tensor(",
                               formatter=None, threshold=1000)
        if self.dtype not in (default_float(), np.dtype("int64"), np.dtype("bool")) or self.size == 0:
            extra.append(f"dtype={self.dtype.name}")
        if self._ctx is not None:
            extra.append(f"grad_fn=<{self._ctx.name}>")
        elif self.requires_grad:
            extra.append("requires_grad=True")
        return "tensor(" + ", ".join([body] + extra) + ")"

    __str__ = __repr__


def _is_device(arg) -> bool:
    if isinstance(arg, Device):
        return True
    if not isinstance(arg, str):
        return False
    try:
        as_device(arg)
    except ValueError:
        return False
    return True


def to_arguments(args, dtype=None, device=None):
    """torch's to(...) arguments, (dtype), (device), (device, dtype) or (other), as
    (device, dtype)."""
    for arg in args:
        if isinstance(arg, ArrayOps):
            device, dtype = arg.device, arg.dtype
        elif _is_device(arg):
            device = arg
        else:
            dtype = arg
    return device, dtype


def _infer_dtype(data):
    if isinstance(data, (bool, int, float, complex, np.generic)):
        return scalar_dtype(data)
    if isinstance(data, np.ndarray):
        return canonical_dtype(data.dtype)
    arr = np.asarray(data)
    if kind_of(arr.dtype) == "f":
        return default_float()   # float32 (or float64 in the float64 mode), as in PyTorch and JAX
    if kind_of(arr.dtype) == "c":
        return default_complex()
    if kind_of(arr.dtype) in "OUS":
        raise TypeError(f"can't make a tensor from {type(data).__name__} data with mixed or "
                        "non-numeric elements")
    return canonical_dtype(arr.dtype)


def _converted(data, dt):
    """A copy of data as dt; values dt cannot hold (uint64 >= 2**63, Python ints beyond int64)
    are an error, not a silent wraparound (NumPy raises for the Python ints too)."""
    src = data if isinstance(data, np.ndarray) else None
    try:
        out = np.array(data, dtype=dt, copy=True)
    except OverflowError:
        raise OverflowError(f"a value in {_short(data)} does not fit in {dt.name}; pass a "
                            "dtype that holds it") from None
    if src is not None and kind_of(src.dtype) == "u" and kind_of(dt) in "iu" and src.size \
            and src.max() > np.iinfo(dt).max:
        raise OverflowError(f"{src.dtype.name} value {src.max()} does not fit in {dt.name}, "
                            f"jitgrad's {dt.itemsize * 8}-bit integer type (cast to float64 "
                            "first, or keep values below 2**63)")
    return out


def _short(data) -> str:
    text = repr(data)
    return text if len(text) <= 40 else text[:37] + "..."


def _holds_traced(data) -> bool:
    """A traced value (an ArrayOps that is not a Tensor), also inside lists/tuples."""
    if isinstance(data, (list, tuple)):
        return any(_holds_traced(d) for d in data)
    return isinstance(data, ArrayOps) and not isinstance(data, Tensor)


def tensor(data, dtype=None, device="cpu", requires_grad=False) -> Tensor:
    """jg.tensor(data, dtype=None, device='cpu', requires_grad=False): always copies `data`."""
    if _holds_traced(data):
        raise TypeError("jg.tensor copies data into a new leaf tensor, but got traced values "
                        "(inside jit/grad/vjp/jvp), whose derivatives it would drop: use "
                        "jnp.array / jnp.asarray / jnp.stack, which keep them, or "
                        "jg.stop_gradient to drop them on purpose")
    dev = as_device(device)
    if isinstance(data, ArrayOps):
        data = np.asarray(data)
    dt = canonical_dtype(dtype) if dtype is not None else _infer_dtype(data)
    if dev == META:
        t = Tensor._meta(TensorType(np.shape(data), dt))
    else:
        t = Tensor._wrap(_converted(data, dt), CPU)
        if dev != CPU:
            t = t.to(dev)
    if requires_grad:
        t.requires_grad_(True)
    return t


def as_tensor(data, dtype=None, device=None):
    """Like jg.tensor but shares memory with a NumPy array when it can (no copy)."""
    if isinstance(data, Tensor) and dtype is None and (device is None or as_device(device) == data.device):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or canonical_dtype(dtype) == data.dtype) \
            and canonical_dtype(data.dtype) == data.dtype and as_device(device) == CPU:
        return Tensor._wrap(data, CPU)
    return tensor(data, dtype=dtype, device=device or "cpu")


def transfer(t: Tensor, device: Device) -> Tensor:
    """t's data on `device`. Moving a leaf keeps `requires_grad` (the result is a new leaf, as
    when parameters are moved before training); moving a tensor inside a recorded computation
    is not differentiable and says so."""
    if t.requires_grad and not t.is_leaf:
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
