"""Pytrees: tuples, lists, dicts, None and registered classes, flattened to leaves and back."""
from __future__ import annotations

from collections import OrderedDict, namedtuple

_REGISTRY = {}
# type -> its registry entry, found through the MRO once (a Module subclass's entry is Module's),
# or None: a jitted step flattens and rebuilds a model's ~100 modules on every call
_RESOLVED: dict = {}


def register_pytree_node(cls, flatten, unflatten):
    """flatten(obj) -> (children, aux); unflatten(aux, children) -> obj."""
    _REGISTRY[cls] = (flatten, unflatten)
    _RESOLVED.clear()


def _entry(t):
    """The registry entry of type t or of its nearest registered base, else None."""
    try:
        return _RESOLVED[t]
    except KeyError:
        entry = next((_REGISTRY[b] for b in t.__mro__ if b in _REGISTRY), None)
        _RESOLVED[t] = entry
        return entry


def register_pytree_node_class(cls):
    """jax.tree_util.register_pytree_node_class: a class decorator that registers tree_flatten /
    tree_unflatten methods."""
    register_pytree_node(cls, lambda o: o.tree_flatten(), cls.tree_unflatten)
    return cls


class PyTreeDef:
    """A tree's structure: `kind` (None for a leaf, else the node type), `aux` (the node's
    static data) and `children` (a tuple of PyTreeDefs). Not to be changed once built; equal and
    hashed by value, the hash computed once (jit hashes and compares the structure of every
    call's arguments; a slots class builds 3x faster than the frozen dataclass it was)."""
    __slots__ = ("kind", "aux", "children", "_hash")

    def __init__(self, kind, aux, children):
        self.kind, self.aux, self.children, self._hash = kind, aux, children, None

    def __hash__(self):
        h = self._hash
        if h is None:
            try:
                h = hash((self.kind, self.aux, self.children))
            except TypeError:   # unhashable static data (a dict, as JAX allows): only compared
                h = hash((self.kind, self.children))
            self._hash = h
        return h

    def __eq__(self, other):
        if self is other:
            return True
        if type(other) is not PyTreeDef:
            return NotImplemented
        return (self.kind == other.kind and self.aux == other.aux
                and self.children == other.children)

    def __reduce__(self):
        return PyTreeDef, (self.kind, self.aux, self.children)

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
    if isinstance(x, tuple) and hasattr(t, "_fields") and t not in _REGISTRY:
        return t, None, list(x)
    entry = _entry(t)
    if entry is not None:
        children, aux = entry[0](x)
        return t, aux, list(children)
    return None


def tree_flatten(tree, is_leaf=None):
    """jax.tree_util.tree_flatten: (leaves, treedef) of a pytree."""
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
    """jax.tree_util.tree_unflatten: rebuild a pytree from its treedef and leaves."""
    return _unflatten(treedef, iter(leaves))


def _unflatten(td, it):
    kind = td.kind
    if kind is None:
        return next(it)
    # leaves inline: a model's tree is mostly modules holding leaves
    children = [next(it) if c.kind is None else _unflatten(c, it) for c in td.children]
    if kind is tuple or kind is list:
        return kind(children)
    if kind is dict or kind is OrderedDict:
        return kind(zip(td.aux, children))
    if kind is type(None):
        return None
    if issubclass(kind, tuple) and hasattr(kind, "_fields") and kind not in _REGISTRY:
        return kind(*children)      # a namedtuple
    return _entry(kind)[1](td.aux, children)


def tree_leaves(tree, is_leaf=None):
    """jax.tree_util.tree_leaves: the leaves of a pytree, in flattening order."""
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    """jax.tree_util.tree_structure: the PyTreeDef of a pytree."""
    return tree_flatten(tree, is_leaf)[1]


def tree_map(fn, tree, *rest, is_leaf=None):
    """jax.tree_util.tree_map: f applied to the leaves of one or more pytrees of the same structure."""
    leaves, td = tree_flatten(tree, is_leaf)
    others = [tree_flatten(r, is_leaf)[0] for r in rest]
    for o, r in zip(others, rest):
        if len(o) != len(leaves):
            raise ValueError(f"tree_map: trees have different structures: {td} and "
                             f"{tree_structure(r)}")
    return tree_unflatten(td, [fn(*xs) for xs in zip(leaves, *others)])


__all__ = ["PyTreeDef", "namedtuple", "register_pytree_node", "register_pytree_node_class",
           "tree_flatten", "tree_leaves", "tree_map", "tree_structure", "tree_unflatten"]
