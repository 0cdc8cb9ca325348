"""Two roles a pytree can play that its node types may want to know about, through hooks they
register (so jit and the transforms need not import them):

- a *jit result*: the tree a jitted call returns, rebuilt from plain output tensors. A Module
  there gets back its Parameters (with each one's requires_grad) that tracing turned into plain
  values, so `model2 = jg.jit(step)(model, ...)` trains like `model` (nn/module_tree.py). A hook
  may only put Tensor subclasses holding the same storage in place of leaves: jit replays the first
  call's result (leaf_wrappers) instead of running the hooks on every call.
- a *gradient*: a Module-shaped gradient from jg.grad / value_and_grad / vjp holds plain
  tensors, not Parameters, wherever it goes (through tree_map, out of a jitted call)."""
from __future__ import annotations

import functools

from .. import tree_util

_HOOKS = {"gradient": {}, "jit_result": {}}


def register(cls, *, gradient=None, jit_result=None) -> None:
    """Hooks fn(node) called on each instance of cls found in a tree of that role."""
    for role, fn in (("gradient", gradient), ("jit_result", jit_result)):
        if fn is not None:
            _HOOKS[role][cls] = fn


def _apply(role, tree):
    table = _HOOKS[role]
    if not table:
        return tree
    stack = [tree]
    while stack:
        x = stack.pop()
        if isinstance(x, (tuple, list)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        else:
            for cls, fn in table.items():
                if isinstance(x, cls):
                    fn(x)
                    break
    return tree


def as_gradient(tree):
    return _apply("gradient", tree)


def as_jit_result(tree):
    return _apply("jit_result", tree)


def has_jit_result_hooks(treedef) -> bool:
    """Whether a tree of this structure (a PyTreeDef) holds a node with a jit_result hook."""
    table = _HOOKS["jit_result"]
    stack = [treedef]
    while stack:
        td = stack.pop()
        if isinstance(td.kind, type) and any(issubclass(td.kind, c) for c in table):
            return True
        stack.extend(td.children)
    return False


def leaf_wrappers(outs, restored):
    """Per output tensor of a jitted call, a function making its leaf of `restored` (the jit
    result of those outputs) from a CPU array: Tensor._wrap where a hook left the leaf, else one
    making that leaf's class with its requires_grad (a Module's Parameter). None when the hooks
    did anything else (a leaf that is not a wrapper of its output's storage)."""
    leaves = tree_util.tree_leaves(restored)
    if len(leaves) != len(outs):
        return None
    wraps = []
    for out, leaf in zip(outs, leaves):
        if leaf is out:
            wraps.append(type(out)._wrap)
        elif (isinstance(leaf, type(out)) and leaf._data is out._data and leaf.grad is None
              and leaf._ctx is None):
            wraps.append(functools.partial(_wrap_as, type(leaf), leaf.requires_grad))
        else:
            return None
    return wraps


def _wrap_as(cls, requires_grad, array):
    t = cls._wrap(array)
    t.requires_grad = requires_grad
    return t
