"""jg.jacrev, jg.jacfwd, jg.hessian (JAX semantics): full Jacobians built from one vjp per
output element (reverse) or one jvp per input element (forward) along one-hot directions.

The result is nested like JAX's: the output's structure, each leaf holding the argument's
structure (a tuple over argnums when argnums is a tuple) of arrays shaped out.shape + in.shape.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import numpy as jnp
from .. import tree_util
from ..trace.tracing import leaf_spec
from . import module_state
from .autodiff import argnums_tuple, jvp, vjp


def _split(fn, args, argnums, kwargs):
    """fn of the args[argnums] alone (the other args and the keyword arguments passed through,
    as JAX's), and those args."""
    argnums_t = argnums_tuple(argnums)

    def f_dyn(*dyn):
        full = list(args)
        for i, v in zip(argnums_t, dyn):
            full[i] = v
        return fn(*full, **kwargs)
    return f_dyn, tuple(args[i] for i in argnums_t)


def _one_hot(t, j):
    e = np.zeros(t.size, t.dtype)
    e[j] = 1
    return e.reshape(t.shape)


def _stack(parts, shape, t):
    """Stack per-direction results along axis 0 and shape them; zeros when there are none."""
    if not parts:
        return jnp.zeros(shape, t.dtype)
    return jnp.reshape(jnp.stack(parts), shape)


def _per_arg(in_tree, leaves, argnums):
    tree = tree_util.tree_unflatten(in_tree, leaves)
    return tree[0] if isinstance(argnums, int) else tuple(tree)


def jacrev(fn, argnums=0, has_aux=False):
    """Reverse-mode Jacobian: one vjp per output element."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        f_dyn, dyn = _split(fn, args, argnums, kwargs)
        res = vjp(f_dyn, *dyn, has_aux=has_aux)
        out, vjp_fn = res[0], res[1]
        out_leaves, out_tree = tree_util.tree_flatten(out)
        out_types = [leaf_spec(o)[0] for o in out_leaves]
        in_leaves, in_tree = tree_util.tree_flatten(dyn)
        in_types = [leaf_spec(x)[0] for x in in_leaves]
        per_out = []
        for k, ot in enumerate(out_types):
            rows = []
            for j in range(ot.size):
                cts = [_one_hot(t, j) if i == k else np.zeros(t.shape, t.dtype)
                       for i, t in enumerate(out_types)]
                rows.append(tree_util.tree_leaves(vjp_fn(tree_util.tree_unflatten(out_tree, cts))))
            jac = [_stack([r[i] for r in rows], ot.shape + it.shape, it)
                   for i, it in enumerate(in_types)]
            per_out.append(_per_arg(in_tree, jac, argnums))
        result = tree_util.tree_unflatten(out_tree, per_out)
        return (result, res[2]) if has_aux else result
    return wrapper


def jacfwd(fn, argnums=0, has_aux=False):
    """Forward-mode Jacobian: one jvp per input element."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        # n jvps are n forward passes: a buffer write (BatchNorm training) is refused, as
        # torch.func.jacfwd (a vmap) refuses it
        with module_state.WriteLog(refuse=module_state.JACFWD_REFUSAL):
            return columns(args, kwargs)

    def columns(args, kwargs):
        f_dyn, dyn = _split(fn, args, argnums, kwargs)
        in_leaves, in_tree = tree_util.tree_flatten(dyn)
        in_types = [leaf_spec(x)[0] for x in in_leaves]
        cols, out, aux = [], None, None        # cols[i][j]: output tangent leaves, input i, elem j
        for i, it in enumerate(in_types):
            cols.append([])
            for j in range(it.size):
                tans = [_one_hot(t, j) if m == i else np.zeros(t.shape, t.dtype)
                        for m, t in enumerate(in_types)]
                res = jvp(f_dyn, dyn, tree_util.tree_unflatten(in_tree, tans), has_aux=has_aux)
                out, aux = res[0], (res[2] if has_aux else None)
                cols[i].append(tree_util.tree_leaves(res[1]))
        if out is None:         # no input elements: evaluate once for the output's structure
            res = jvp(f_dyn, dyn, dyn, has_aux=has_aux)
            out, aux = res[0], (res[2] if has_aux else None)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        per_out = []
        for k, o in enumerate(out_leaves):
            ot = leaf_spec(o)[0]
            jac = []
            for i, it in enumerate(in_types):
                stacked = _stack([c[k] for c in cols[i]], (it.size,) + ot.shape, ot)
                moved = jnp.moveaxis(stacked, 0, -1) if ot.shape else stacked
                jac.append(jnp.reshape(moved, ot.shape + it.shape))
            per_out.append(_per_arg(in_tree, jac, argnums))
        result = tree_util.tree_unflatten(out_tree, per_out)
        return (result, aux) if has_aux else result
    return wrapper


def hessian(fn, argnums=0, has_aux=False):
    """jacfwd(jacrev(fn)): forward-over-reverse, as in JAX."""
    return jacfwd(jacrev(fn, argnums, has_aux), argnums, has_aux)
