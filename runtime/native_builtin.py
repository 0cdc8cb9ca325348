"""Native code as a Python builtin function: a METH_FASTCALL C function (LLVM IR compiled by
runtime/native_code.py) bound to a `self` object with CPython's PyCFunction_NewEx, so that
Python calls it as it calls `len`: no ctypes argument conversion (a ctypes call of one
py_object costs ~0.4 us more). The sequencer's jitted-call entry is one (runtime/sequencer.py).

The C function reads its arguments from CPython's objects and calls back into CPython through
the addresses `api_addresses()` gives, which the caller stores where the function reads them
(the code object is cached on disk, so the addresses of this process are not compiled in).
"""
from __future__ import annotations

import ctypes
import sys

METH_FASTCALL = 0x80


class _MethodDef(ctypes.Structure):
    """CPython's PyMethodDef."""
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p),
                ("ml_flags", ctypes.c_int), ("ml_doc", ctypes.c_char_p)]


_defs = []      # every PyMethodDef stays alive: the builtins made from it point into it


def api_addresses():
    """The addresses of PyLong_FromLongLong, PyEval_SaveThread and PyEval_RestoreThread, or
    None where this Python has no C API reachable from ctypes (not CPython) or runs without a
    GIL (the sequencer's table lock counts on the GIL to order its reads and writes)."""
    gil = getattr(sys, "_is_gil_enabled", None)
    if gil is not None and not gil():
        return None
    api = getattr(ctypes, "pythonapi", None)
    try:
        return [ctypes.cast(getattr(api, name), ctypes.c_void_p).value
                for name in ("PyLong_FromLongLong", "PyEval_SaveThread", "PyEval_RestoreThread")]
    except AttributeError:
        return None


def builtin_maker(address: int, name: str):
    """make(self) -> a builtin function calling the C function at `address`,
    `PyObject *fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs)`, with `self`."""
    method = _MethodDef(name.encode(), address, METH_FASTCALL, None)
    _defs.append(method)
    new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.py_object,
                            ctypes.py_object)(("PyCFunction_NewEx", ctypes.pythonapi))
    at = ctypes.addressof(method)
    return lambda self: new(at, self, None)
