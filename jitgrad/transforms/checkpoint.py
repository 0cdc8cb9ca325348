"""jg.checkpoint / jg.remat: recompute a function's forward in the backward pass instead of
saving its intermediates (JAX's `jax.checkpoint`, same signature and meaning).

    @jg.checkpoint                      # or jg.checkpoint(f, static_argnums=(1,), policy=None)
    def block(x, w): return jnp.tanh(jnp.tanh(x @ w) @ w)
    jg.grad(lambda x, w: jnp.sum(block(x, w)))(x, w)

Traced (under jit, grad, vjp, jvp, vmap, inside scan bodies) the call becomes one `remat` node
holding the traced function (ir/remat.py); its derivative is another remat node that takes only
the function's inputs and recomputes the forward, so the forward pass keeps no residuals of the
function. On plain tensors it just calls the function. Values it closes over become extra inputs.

policy: None or checkpoint_policies.nothing_saveable (save nothing: recompute everything, the
default) or checkpoint_policies.everything_saveable (save everything: no recomputation).
"""
from __future__ import annotations

import functools

from .. import tree_util
from ..eager.dispatch import apply
from ..ir.remat import REMAT
from ..numpy import asarray
from ..trace.tracer import Tracer
from ..trace.tracing import trace_to_graph
from . import module_state


class checkpoint_policies:
    """The saving policies jg.checkpoint accepts (JAX's names)."""

    @staticmethod
    def nothing_saveable(*_, **__):
        return False

    @staticmethod
    def everything_saveable(*_, **__):
        return True


_POLICIES = {None: False, checkpoint_policies.nothing_saveable: False,
             checkpoint_policies.everything_saveable: True}


def checkpoint(fun=None, *, prevent_cse=True, policy=None, static_argnums=()):
    """jg.checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()) -> a function
    with fun's value and gradients whose backward pass recomputes fun's forward."""
    if fun is None:                                         # @jg.checkpoint(...) as a decorator
        return functools.partial(checkpoint, prevent_cse=prevent_cse, policy=policy,
                                 static_argnums=static_argnums)
    if not callable(fun):
        raise TypeError(f"checkpoint: expected a function, got {type(fun).__name__}")
    if policy not in _POLICIES:
        raise ValueError(f"checkpoint: unsupported policy {policy!r}; expected None, "
                         "jg.checkpoint_policies.nothing_saveable or "
                         "jg.checkpoint_policies.everything_saveable")
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    if not all(isinstance(i, int) for i in static):
        raise TypeError(f"checkpoint: static_argnums must be ints, got {static_argnums!r}")
    save_everything = _POLICIES[policy]

    @functools.wraps(fun)
    def wrapped(*args):
        n = len(args)
        bad = [i for i in static if not -n <= i < n]
        if bad:
            raise ValueError(f"checkpoint: static_argnums {bad} out of range for {n} "
                             f"argument(s) of {getattr(fun, '__name__', 'the function')}")
        fixed = {i % n for i in static}
        dyn = [a for i, a in enumerate(args) if i not in fixed]
        leaves = tree_util.tree_leaves(dyn)
        if save_everything or not any(isinstance(x, Tracer) for x in leaves):
            return fun(*args)          # nothing to differentiate or nothing to recompute

        def flat(*dyn_args):
            it = iter(dyn_args)
            return fun(*[args[i] if i in fixed else next(it) for i in range(n)])
        name = getattr(fun, "__name__", "fn").replace("<", "").replace(">", "")
        traced = module_state.functionalize(flat, "checkpoint")   # buffer writes: extra outputs
        body, out_tree, caps, _ = trace_to_graph(traced, tuple(dyn), name=f"{name}_remat")
        inputs = [asarray(x) for x in leaves] + list(caps)
        outs = apply(REMAT, inputs, {"body": body})
        outs = list(outs) if isinstance(outs, tuple) else [outs]
        n_user = len(outs) - len(traced.written)
        module_state.write_back((tuple(dyn), {}), traced.written, outs[n_user:])
        return tree_util.tree_unflatten(out_tree.children[0], outs[:n_user])

    return wrapped


remat = checkpoint
