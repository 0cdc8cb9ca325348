"""Pytree leaves as host NumPy arrays for MPI, and back to the leaf's own kind afterwards.

A leaf may be a jitgrad Tensor (any device; Parameters stay Parameters), a NumPy array or
scalar, or a Python number; each comes back as the same kind with the collective's result (a
gathered scalar becomes a NumPy array with one entry per rank). CPU tensors and writable
C-contiguous arrays can receive a result in their own storage.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from .. import tree_util
from ..trace.tracer import Tracer
from ..eager.tensor import Tensor


@dataclass
class HostLeaf:
    array: np.ndarray        # C-contiguous host data (the leaf's own buffer when it already is)
    rebuild: object          # result ndarray -> a leaf of the original kind
    own: object = None       # the leaf itself, when `array` is its own writable storage

    def result(self, a: np.ndarray):
        """The leaf for result `a`: the leaf itself when `a` is its storage, written in place
        (a tensor's version counter moves, so autograd sees the change), else a new leaf."""
        if self.own is None or a is not self.array:
            return self.rebuild(a)
        if isinstance(self.own, Tensor):
            self.own._version[0] += 1
        return self.own


def _writable(a) -> bool:
    return isinstance(a, np.ndarray) and a.flags.c_contiguous and a.flags.writeable


def _tensor(x: Tensor, where: str) -> HostLeaf:
    device, keep_grad = x.device, x.requires_grad and x.is_leaf

    def rebuild(a):
        t = type(x)._wrap(a)
        t = t if device.type == "cpu" else t.to(device)
        t.requires_grad = keep_grad
        return t
    data = x._host(where)
    own = x if device.type == "cpu" and _writable(data) else None
    return HostLeaf(np.ascontiguousarray(data), rebuild, own)


def _ndarray(x: np.ndarray, where: str) -> HostLeaf:
    return HostLeaf(np.ascontiguousarray(x), lambda a: a, x if _writable(x) else None)


def _number(x, where: str) -> HostLeaf:
    kind = type(x)
    return HostLeaf(np.asarray(x), lambda a: kind(a.item()) if a.ndim == 0 else a)


_KINDS = (
    (Tensor, _tensor),
    (np.ndarray, _ndarray),
    (np.generic, lambda x, where: HostLeaf(np.asarray(x), lambda a: a[()])),
    ((bool, int, float, complex), _number),
)


def host_leaves(tree, where: str):
    """(leaves as HostLeaf, treedef, leaf paths) for `tree`, or a TypeError naming the leaf."""
    leaves, treedef = tree_util.tree_flatten(tree)
    paths = leaf_paths(treedef)
    out = []
    for leaf, path in zip(leaves, paths):
        if isinstance(leaf, Tracer):
            raise TypeError(
                f"{where}: the leaf at {path} is a value traced inside jg.jit; collectives "
                f"run on concrete arrays: return it from the jitted function and call "
                f"{where} on the result (e.g. grads = allreduce(step(params, x, y)))")
        convert = next((fn for kinds, fn in _KINDS if isinstance(leaf, kinds)), None)
        if convert is None:
            raise TypeError(f"{where}: the leaf at {path} is a {type(leaf).__name__}; expected "
                            f"jitgrad tensors, NumPy arrays or Python numbers")
        out.append(convert(leaf, where))
    return out, treedef, paths


# ---------------------------------------------------------------------------------- naming

# pytree class -> fn(aux) -> its children's attribute names; nn registers Module's (nn/parallel.py)
CHILD_NAMES = {}


def register_child_names(cls, names) -> None:
    """Name the children of `cls` nodes `.name` in messages: names(aux) -> attribute names."""
    CHILD_NAMES[cls] = names


def _children_names(td) -> list[str]:
    """How each child of a pytree node is reached: '[0]', "['key']", '.weight'."""
    kind, aux = td.kind, td.aux
    if kind in (dict, OrderedDict):
        return [f"[{k!r}]" for k in aux]
    named = next((fn for cls, fn in CHILD_NAMES.items()
                  if isinstance(kind, type) and issubclass(kind, cls)), None)
    if named is not None:
        return [f".{n}" for n in named(aux)]
    if isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields"):
        return [f".{n}" for n in kind._fields]
    return [f"[{i}]" for i in range(len(td.children))]


def leaf_paths(treedef) -> list[str]:
    """'tree', 'tree[0]', "tree['w'].bias", ... for every leaf, in flattening order."""
    paths = []

    def walk(td, path):
        if td.kind is None:
            paths.append(path)
            return
        for name, child in zip(_children_names(td), td.children):
            walk(child, path + name)
    walk(treedef, "tree")
    return paths


_DTYPE_NAMES: dict = {}   # np.dtype -> its name (str(dtype) is slow, and this runs per call)


def describe(paths, arrays) -> str:
    """The structure with every leaf's dtype and shape, e.g. "tree['w']: float32[3, 4]; ..."."""
    names = _DTYPE_NAMES
    for a in arrays:
        if a.dtype not in names:
            names[a.dtype] = str(a.dtype)
    return "; ".join(f"{p}: {names[a.dtype]}{list(a.shape)}"
                     for p, a in zip(paths, arrays)) or "no leaves"
