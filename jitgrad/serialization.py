"""torch.save / torch.load: checkpoints (state dicts, optimizer states, nested dicts and lists
of tensors and Python values) written to a path or a binary file object.

The file is a zip: `data.pkl`, a pickle of the object in which every tensor is a reference,
and `tensors/<n>`, each tensor's bytes. `load` reads the pickle, by default, as torch's
`weights_only=True` does: only containers, numbers, strings and tensors are rebuilt, any other
class is refused, so a checkpoint from elsewhere cannot run code. `weights_only=False` unpickles
anything (only for files you trust). Files torch writes are torch's own format: read them with
torch and hand over `{k: v.numpy()}`. `jg.load` of an AOT artifact (`compiled.save`) still
returns the loaded function."""
from __future__ import annotations

import contextlib
import io
import os
import pickle
import zipfile

import numpy as np

from . import dtypes
from .eager.tensor import Tensor
from .runtime.device import Device, device as as_device

_MARKER = "jitgrad-checkpoint"
# what weights_only=True rebuilds besides tensors (torch's allow-list, less its own classes)
_SAFE = {("collections", "OrderedDict"), ("collections", "defaultdict"),
         ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "slice"),
         ("builtins", "complex"), ("builtins", "range")}
# (module, qualname) -> the object: what the user allowed as well (add_safe_globals)
_ALLOWED = {}


def _allowed_key(entry):
    obj, name = entry if isinstance(entry, tuple) else (entry, None)
    if name is not None:
        return tuple(name.rsplit(".", 1)), obj
    return (obj.__module__, obj.__qualname__), obj


def add_safe_globals(safe_globals):
    """torch.serialization.add_safe_globals: classes and functions (or (obj, "module.name")
    pairs) that load(weights_only=True) may rebuild from now on, besides its defaults."""
    _ALLOWED.update(_allowed_key(g) for g in safe_globals)


def get_safe_globals():
    """torch.serialization.get_safe_globals: what add_safe_globals allowed."""
    return list(_ALLOWED.values())


def clear_safe_globals():
    """torch.serialization.clear_safe_globals: forget what add_safe_globals allowed."""
    _ALLOWED.clear()


@contextlib.contextmanager
def safe_globals(safe_globals):
    """torch.serialization.safe_globals: add_safe_globals inside a `with` block only."""
    saved = dict(_ALLOWED)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _ALLOWED.clear()
        _ALLOWED.update(saved)


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """torch.save(obj, f): write obj (tensors anywhere inside it) to a path or binary file."""
    arrays = []

    class Pickler(pickle.Pickler):
        def persistent_id(self, x):
            if not isinstance(x, Tensor):
                return None
            arrays.append(np.asarray(x.detach()))
            a = arrays[-1]
            return ("tensor", len(arrays) - 1, str(a.dtype), a.shape, str(x.device),
                    type(x).__name__ == "Parameter", bool(x.requires_grad))

    buf = io.BytesIO()
    Pickler(buf, protocol=max(int(pickle_protocol), 2)).dump(obj)
    with _opened(f, "wb") as fh, zipfile.ZipFile(fh, "w") as z:
        z.writestr(_MARKER, "1")
        z.writestr("data.pkl", buf.getvalue())
        for n, a in enumerate(arrays):
            z.writestr(f"tensors/{n}", a.tobytes())


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, key=None,
         **pickle_load_args):
    """torch.load(f, map_location=None, weights_only=True): the object save wrote, its tensors
    on map_location's device (a device, a string, or a {saved: new} dict) or where they were.
    A path to an AOT artifact (compiled.save) loads that function (key= its signing key)."""
    if _is_artifact(f):
        from .aot.save_load import load as load_artifact  # lazy: the AOT loader
        return load_artifact(f, key=key)
    with _opened(f, "rb") as fh:
        try:
            z = zipfile.ZipFile(fh)
        except zipfile.BadZipFile:
            raise pickle.UnpicklingError(f"load: {_name(f)} is not a file jitgrad.save wrote "
                                         "(not a zip archive)") from None
        with z:
            if _MARKER not in z.namelist():
                raise pickle.UnpicklingError(
                    f"load: {_name(f)} was not written by jitgrad.save (a file torch.save wrote "
                    "needs torch to read it: save {k: v.numpy()} there, or use safetensors)")
            return _Unpickler(z, map_location, weights_only).load()


def _is_artifact(f) -> bool:
    """A path to what compiled.save wrote: named *.jgz, or a zip with its manifest."""
    if not isinstance(f, (str, os.PathLike)):
        return False
    if os.fspath(f).endswith(".jgz"):
        return True
    try:
        with zipfile.ZipFile(f) as z:
            names = set(z.namelist())
    except (zipfile.BadZipFile, OSError):
        return False
    return "manifest.json" in names and _MARKER not in names


class _Unpickler(pickle.Unpickler):
    def __init__(self, z, map_location, weights_only):
        super().__init__(io.BytesIO(z.read("data.pkl")))
        self.z, self.map_location, self.weights_only = z, map_location, weights_only

    def find_class(self, module, name):
        if self.weights_only and not (module == "builtins" and name in _BUILTIN_VALUES
                                      or (module, name) in _SAFE or (module, name) in _ALLOWED):
            raise pickle.UnpicklingError(
                f"load with weights_only=True: refusing to rebuild {module}.{name} (only "
                "containers, numbers, strings, tensors and what add_safe_globals / "
                "safe_globals allow); pass weights_only=False if you trust the file")
        return super().find_class(module, name)

    def persistent_load(self, pid):
        _, n, dtype, shape, device, is_param, requires_grad = pid
        a = np.frombuffer(self.z.read(f"tensors/{n}"), dtype=_dtype(dtype)).reshape(shape).copy()
        t = Tensor._wrap(a)
        where = _mapped(device, self.map_location)
        if where != "cpu":
            t = t.to(where)
        if is_param:
            from .nn.parameter import Parameter  # lazy: jitgrad.nn loads on first use
            return Parameter.of(t, requires_grad)
        t.requires_grad = requires_grad
        return t


_BUILTIN_VALUES = frozenset({"dict", "list", "tuple", "int", "float", "str", "bytes", "bool",
                             "bytearray"})


def _dtype(name):
    try:
        return np.dtype(name)
    except TypeError:
        return getattr(dtypes, name)          # ml_dtypes' bfloat16 and friends


def _mapped(saved, map_location):
    if map_location is None:
        return saved
    if isinstance(map_location, dict):
        return str(map_location.get(saved, saved))
    if isinstance(map_location, (str, Device)):
        return str(as_device(map_location))
    raise TypeError(f"load: map_location must be None, a device, a device string or a dict "
                    f"of device strings, got {type(map_location).__name__}")


class _opened:
    """A path opened for the with-block, or the caller's file object left open."""

    def __init__(self, f, mode):
        self.f, self.mode, self.fh = f, mode, None

    def __enter__(self):
        if isinstance(f := self.f, (str, os.PathLike)):
            self.fh = open(f, self.mode)
            return self.fh
        return f

    def __exit__(self, *exc):
        if self.fh is not None:
            self.fh.close()


def _name(f):
    return os.fspath(f) if isinstance(f, (str, os.PathLike)) else "the file object"
