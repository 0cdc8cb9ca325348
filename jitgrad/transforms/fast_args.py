"""The arguments of a jitted call that may skip the full signature (transforms/jit.py's fast
path): CPU Tensors that do not require grad and NumPy arrays, alone or in plain pytrees (dicts
with string keys, lists, tuples). `fast_args(args)` walks them once and returns (key, arrays):
the key names every container's kind, length or keys and every leaf's kind, shape, strides and
dtype, so two calls with equal keys have equal Signatures (no static or keyword arguments:
jit.py files a key only for such calls) and arrays equally laid out (whether each is
C-contiguous, and needs no copy, is known from the first call of a key); the arrays (a Tensor's
storage, an ndarray itself) come in tree_util.tree_flatten's order (a dict's keys sorted),
which is the graph's input order. Anything else (Modules, scalars, None, tracers,
other devices) returns None and takes the full path.

A call with a 10-leaf dict spent most of its ~20 us of host time in tree_flatten, one
leaf_spec per leaf and hashing the Signature (devices included); this walk is one function
call per leaf and builds one tuple; flat arguments (the common case) take no call per leaf.
"""
from __future__ import annotations

import numpy as np

from ..eager.tensor import Tensor


def fast_args(args):
    """(key, arrays) for arguments the fast path takes, else None."""
    key, leaves = [], []
    for a in args:
        t = type(a)
        if t is Tensor:
            d = a._data
            if type(d) is not np.ndarray or a._device.type != "cpu" or a.requires_grad:
                return None
            key.append((d.shape, d.strides, d.dtype))
            leaves.append(d)
        elif t is np.ndarray:
            key.append((t, a.shape, a.strides, a.dtype))
            leaves.append(a)
        elif not _walk(a, key, leaves):
            return None
    return tuple(key), leaves


def _walk(x, key, leaves) -> bool:
    t = type(x)
    if t is Tensor:
        d = x._data
        if type(d) is not np.ndarray or x._device.type != "cpu" or x.requires_grad:
            return False
        key.append((d.shape, d.strides, d.dtype))
        x = d
    elif t is np.ndarray:
        key.append((t, x.shape, x.strides, x.dtype))
    elif t is dict:
        try:
            names = sorted(x)   # tree_util's order for string keys
        except TypeError:       # keys of several types: tree_util sorts them by repr
            return False
        key.append((dict, tuple(names)))
        for k in names:
            if type(k) is not str or not _walk(x[k], key, leaves):
                return False
        return True
    elif t is tuple or t is list:
        key.append((t, len(x)))
        for v in x:
            if not _walk(v, key, leaves):
                return False
        return True
    else:
        return False
    leaves.append(x)
    return True
