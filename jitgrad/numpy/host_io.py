"""Host-side conveniences with NumPy's names, working on an array's host value: printing
(array_repr, array_str, the print options, which NumPy's are), saving and loading (.npy/.npz),
making arrays from buffers, strings, files and iterables, einsum_path and iterable."""
from __future__ import annotations

import numpy as np

from ._convert import asarray

get_printoptions = np.get_printoptions
set_printoptions = np.set_printoptions
printoptions = np.printoptions
iterable = np.iterable


def _host(a):
    return np.asarray(a)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """numpy.array_repr of the array's value."""
    return np.array_repr(_host(arr), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """numpy.array_str of the array's value."""
    return np.array_str(_host(a), max_line_width, precision, suppress_small)


def save(file, arr, allow_pickle=True):
    """numpy.save of the array's value (.npy)."""
    np.save(file, _host(arr), allow_pickle=allow_pickle)


def savez(file, *args, **kwds):
    """numpy.savez of the arrays' values (.npz)."""
    np.savez(file, *(_host(a) for a in args), **{k: _host(v) for k, v in kwds.items()})


def load(file, *args, **kwargs):
    """numpy.load; a .npy file's array comes back as a jitgrad array (an .npz archive as
    NumPy's NpzFile, as jax.numpy)."""
    out = np.load(file, *args, **kwargs)
    return asarray(out) if isinstance(out, np.ndarray) and out.dtype != object else out


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """numpy.frombuffer: an array of the buffer's bytes read as dtype (copied)."""
    return asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset).copy())


def fromstring(string, dtype=float, count=-1, *, sep):
    """numpy.fromstring of text (sep= is required: the binary mode is deprecated in NumPy)."""
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def fromfile(file, dtype=float, count=-1, sep="", offset=0):
    """numpy.fromfile: an array of a file's contents."""
    return asarray(np.fromfile(file, dtype=dtype, count=count, sep=sep, offset=offset))


def fromiter(iter, dtype, count=-1):  # noqa: A002
    """numpy.fromiter: an array of an iterable's values."""
    return asarray(np.fromiter(iter, dtype=dtype, count=count))


def einsum_path(subscripts, *operands, optimize="greedy"):
    """numpy.einsum_path: (the contraction order, its printed report), from the shapes."""
    dummies = [np.broadcast_to(np.zeros(()), tuple(asarray(o).shape)) for o in operands]
    return np.einsum_path(subscripts, *dummies, optimize=optimize)
