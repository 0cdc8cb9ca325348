"""jg.custom_vjp: a function with a hand-written reverse-mode rule (JAX's API and semantics).

    @jg.custom_vjp
    def f(x, y): ...
    def f_fwd(x, y): return f(x, y), residuals        # (output, anything to save)
    def f_bwd(residuals, ct): return (ct_x, ct_y)     # one cotangent per argument (None: zero)
    f.defvjp(f_fwd, f_bwd)

A call traces f, f_fwd and f_bwd into graphs held by one `custom_vjp_call` node
(ir/autodiff/custom.py): running it runs f; differentiating it (grad, vjp, eager .backward())
inlines f_fwd and f_bwd instead of differentiating f.
"""
from __future__ import annotations

import functools

from .. import tree_util
from ..eager.dispatch import apply
from ..ir.autodiff import CUSTOM_VJP
from ..numpy import asarray, zeros
from ..trace.tracing import ShapeDtype, leaf_spec, trace_to_graph
from .autodiff import as_inputs


class custom_vjp:
    """jax.custom_vjp: a function with a user-defined reverse-mode rule (defvjp(fwd, bwd))."""
    def __init__(self, fun):
        functools.update_wrapper(self, fun, updated=())
        self.fun, self.fwd, self.bwd = fun, None, None
        self._in_rule = False      # fwd usually calls the function itself: that is the primal

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args):
        name = getattr(self.fun, "__name__", "fn")
        if self.fwd is None:
            raise TypeError(f"custom_vjp function {name} has no rule: call "
                            f"{name}.defvjp(fwd, bwd) before calling it")
        if self._in_rule:
            return self.fun(*args)
        leaves, _ = tree_util.tree_flatten(args)
        body, out_tree, caps, _ = trace_to_graph(self.fun, args, name=name)
        self._in_rule = True
        try:
            fwd, fwd_tree, fwd_caps, _ = trace_to_graph(self.fwd, args, name=f"{name}_fwd")
        finally:
            self._in_rule = False
        if caps or fwd_caps:
            raise TypeError(f"custom_vjp function {name} closes over a value traced by an "
                            "enclosing transformation; pass it as an argument instead")
        if fwd_tree.kind is not tuple or len(fwd_tree.children) != 2 \
                or fwd_tree.children[0] != out_tree:
            raise TypeError(f"{name}: the fwd rule must return (output, residuals) with the output "
                            f"structured like {name}'s ({out_tree}), got {fwd_tree}")
        n_out = len(body.outputs)
        res_tree = fwd_tree.children[1]
        res_specs = [ShapeDtype(v.type.shape, v.type.dtype) for v in fwd.outputs[n_out:]]
        ct_specs = [ShapeDtype(v.type.shape, v.type.dtype) for v in body.outputs]

        def bwd_flat(res, cts):
            out = self.bwd(tree_util.tree_unflatten(res_tree, res),
                           tree_util.tree_unflatten(out_tree, cts))
            return _flat_cotangents(name, out, args)
        bwd, _, bwd_caps, _ = trace_to_graph(bwd_flat, (res_specs, ct_specs), name=f"{name}_bwd")
        if bwd_caps:
            raise TypeError(f"custom_vjp bwd rule of {name} closes over a traced value")
        outs = apply(CUSTOM_VJP, as_inputs(leaves),
                     {"body": body, "fwd": fwd, "bwd": bwd})
        outs = outs if isinstance(outs, tuple) else (outs,)
        return tree_util.tree_unflatten(out_tree, list(outs))


def _flat_cotangents(name, out, args):
    """bwd's result as one cotangent per argument leaf (None entries become zeros)."""
    if not isinstance(out, (tuple, list)) or len(out) != len(args):
        raise TypeError(f"custom_vjp bwd rule of {name} must return a tuple of {len(args)} "
                        f"cotangent(s), one per argument, got {type(out).__name__}"
                        + (f" of length {len(out)}" if isinstance(out, (tuple, list)) else ""))
    flat = []
    for i, (ct, a) in enumerate(zip(out, args)):
        a_leaves, a_tree = tree_util.tree_flatten(a)
        types = [leaf_spec(x)[0] for x in a_leaves]
        if ct is None:
            flat += [zeros(t.shape, t.dtype) for t in types]
            continue
        c_leaves, c_tree = tree_util.tree_flatten(ct)
        if c_tree != a_tree:
            raise TypeError(f"custom_vjp bwd rule of {name}: cotangent {i} has structure {c_tree}, "
                            f"but argument {i} has structure {a_tree}")
        for c, t in zip(c_leaves, types):
            c = asarray(c)
            if tuple(c.shape) != t.shape:
                raise TypeError(f"custom_vjp bwd rule of {name}: cotangent {i} has shape "
                                f"{tuple(c.shape)}, but argument {i} has type {t}")
            flat.append(c.astype(t.dtype))
    return flat
