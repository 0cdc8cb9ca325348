"""Pytrees: tuples, lists, dicts, None and registered classes, flattened to leaves and back."""
from __future__ import annotations

from collections import OrderedDict, namedtuple
from dataclasses import dataclass

_REGISTRY = {}


def register_pytree_node(cls, flatten, unflatten):
    """flatten(obj) -> (children, aux); unflatten(aux, children) -> obj."""
    _REGISTRY[cls] = (flatten, unflatten)


def register_pytree_node_class(cls):
    register_pytree_node(cls, lambda o: o.tree_flatten(), cls.tree_unflatten)
    return cls


@dataclass(frozen=True)
class PyTreeDef:
    kind: object            # None for a leaf, else the node type
    aux: object
    children: tuple

    def __repr__(self):
        if self.kind is None:
            return "*"
        return f"PyTreeDef({getattr(self.kind, '__name__', self.kind)}, {list(self.children)})"

    @property
    def num_leaves(self) -> int:
        return 1 if self.kind is None else sum(c.num_leaves for c in self.children)


LEAF = PyTreeDef(None, None, ())     # the structure of a single leaf


def node_children(x):
    t = type(x)
    if t is tuple or t is list:
        return t, None, list(x)
    if t is dict:
        keys = sorted(x, key=repr) if not all(isinstance(k, str) for k in x) else sorted(x)
        return dict, tuple(keys), [x[k] for k in keys]
    if t is OrderedDict:        # insertion order is part of its structure (as in JAX)
        return OrderedDict, tuple(x), list(x.values())
    if x is None:
        return type(None), None, []
    if isinstance(x, tuple) and hasattr(t, "_fields"):
        return t, None, list(x)
    entry = _REGISTRY.get(t)
    if entry is None:
        for base in t.__mro__[1:]:
            if base in _REGISTRY:
                entry = _REGISTRY[base]
                break
    if entry is not None:
        children, aux = entry[0](x)
        return t, aux, list(children)
    return None


def tree_flatten(tree, is_leaf=None):
    leaves = []
    return leaves, _flatten(tree, is_leaf, leaves)


# The recursions are module functions, not closures that call themselves: such a closure is a
# reference cycle (function -> cell -> function) holding the leaves list, so every flattened
# tree (a jitted step's new parameters) lived until the garbage collector ran; the caching
# allocator then could not reuse their storage and the MLP step faulted in ~8 MB of fresh pages
# on most of its first steps and every fifth one after.
def _flatten(x, is_leaf, leaves):
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return LEAF
    node = node_children(x)
    if node is None:
        leaves.append(x)
        return LEAF
    kind, aux, children = node
    return PyTreeDef(kind, aux, tuple([_flatten(c, is_leaf, leaves) for c in children]))


def tree_unflatten(treedef: PyTreeDef, leaves):
    return _unflatten(treedef, iter(leaves))


def _unflatten(td, it):
    if td.kind is None:
        return next(it)
    children = [_unflatten(c, it) for c in td.children]
    if td.kind in (tuple, list):
        return td.kind(children)
    if td.kind in (dict, OrderedDict):
        return td.kind(zip(td.aux, children))
    if td.kind is type(None):
        return None
    if issubclass(td.kind, tuple) and hasattr(td.kind, "_fields") and td.kind not in _REGISTRY:
        return td.kind(*children)
    entry = _REGISTRY.get(td.kind) or next(
        _REGISTRY[b] for b in td.kind.__mro__ if b in _REGISTRY)
    return entry[1](td.aux, children)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(fn, tree, *rest, is_leaf=None):
    leaves, td = tree_flatten(tree, is_leaf)
    others = [tree_flatten(r, is_leaf)[0] for r in rest]
    for o, r in zip(others, rest):
        if len(o) != len(leaves):
            raise ValueError(f"tree_map: trees have different structures: {td} and "
                             f"{tree_structure(r)}")
    return tree_unflatten(td, [fn(*xs) for xs in zip(leaves, *others)])


__all__ = ["PyTreeDef", "namedtuple", "register_pytree_node", "register_pytree_node_class",
           "tree_flatten", "tree_leaves", "tree_map", "tree_structure", "tree_unflatten"]
