"""Functional optimizers over pytrees, usable inside jg.jit:

    opt = jg.optim.adam(1e-3)
    state = opt.init(params)                              # params: any pytree, e.g. a Module
    params, state = opt.update(grads, state, params)      # grads: same structure as params
"""
from __future__ import annotations

from typing import NamedTuple

from .. import numpy as jnp
from ..transforms import module_state
from .. import tree_util
from ..eager.grad_mode import no_grad
from .rules import RULES


class OptState(NamedTuple):
    """step: int32 count of updates so far; slots: per-parameter state tensors, each slot a
    tree shaped like params."""
    step: object
    slots: tuple


class FunctionalOptimizer(NamedTuple):
    """A torch.optim-style optimizer as pure functions (init and update on pytrees), the form a
    jitted step uses."""
    init: object      # params -> OptState
    update: object    # (grads, state, params) -> (params, state)
    hyper: dict


def _leaves(tree, what, expected):
    leaves, td = tree_util.tree_flatten(tree)
    if len(leaves) != expected:
        raise ValueError(f"optimizer update: {what} has {len(leaves)} leaves but params have "
                         f"{expected}; pass gradients with the structure of params ({td})")
    return leaves


def make(name: str, **hyper) -> FunctionalOptimizer:
    rule = RULES[name]
    h = rule.hyper(**hyper)
    fills = rule.slots(h)
    names = list(fills)

    def init(params):
        # one tree per slot, none shared: the state can be donated (donate_argnums)
        slots = tuple(tree_util.tree_map(lambda p: jnp.full_like(p, fills[n]), params)
                      for n in names)
        return OptState(jnp.zeros((), "int32"), slots)

    def update(grads, state, params):
        with no_grad():   # eager: new params must not carry autograd history from the old ones
            return _update(grads, state, params)

    def _update(grads, state, params):
        p_leaves, treedef = tree_util.tree_flatten(params)
        g_leaves = _leaves(grads, "grads", len(p_leaves))
        slot_leaves = [_leaves(s, "the state", len(p_leaves)) for s in state.slots]
        step = state.step + 1
        trainable = module_state.trainable_mask(params)    # module buffers stay as they are
        floats = [p for p, t in zip(p_leaves, trainable) if t]
        step_f = step.astype(floats[0].dtype if floats else "float32")
        scalars = rule.scalars(h, {"step": step_f})
        outs = [_one(t, p, g, s, scalars)
                for t, p, g, *s in zip(trainable, p_leaves, g_leaves, *slot_leaves)]
        new = [tree_util.tree_unflatten(treedef, [o[i] for o in outs])
               for i in range(1 + len(names))]
        return new[0], OptState(step, tuple(new[1:]))

    def _one(trainable, p, g, slots, scalars):
        if not trainable:
            return (p, *slots)
        new_p, new = rule.fn(h, scalars, p, g, dict(zip(names, slots)))
        return (new_p, *(new[n] for n in names))

    return FunctionalOptimizer(init, update, h)


def sgd(lr, momentum=0.0, nesterov=False, weight_decay=0.0) -> FunctionalOptimizer:
    """SGD with optional (Nesterov) momentum and L2 weight decay, as torch.optim.SGD."""
    return make("sgd", lr=lr, momentum=momentum, nesterov=nesterov, weight_decay=weight_decay)


def adam(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0) -> FunctionalOptimizer:
    """Adam, as torch.optim.Adam (weight_decay adds L2 to the gradient)."""
    return make("adam", lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay)


def adamw(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2) -> FunctionalOptimizer:
    """AdamW (decoupled weight decay), as torch.optim.AdamW."""
    return make("adamw", lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay)
