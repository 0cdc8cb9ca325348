"""Two roles a pytree can play that its node types may want to know about, through hooks they
register (so jit and the transforms need not import them):

- a *jit result*: the tree a jitted call returns, rebuilt from plain output tensors. A Module
  there gets back its Parameters (with each one's requires_grad) that tracing turned into plain
  values, so `model2 = jg.jit(step)(model, ...)` trains like `model` (nn/module.py).
- a *gradient*: a Module-shaped gradient from jg.grad / value_and_grad / vjp holds plain
  tensors, not Parameters, wherever it goes (through tree_map, out of a jitted call)."""
from __future__ import annotations

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
