"""`jax.make_jaxpr` and `jax.eval_shape`: what a function traces to, without running it."""
from __future__ import annotations

from .. import tree_util
from .tracing import ShapeDtype, trace_static


def make_jaxpr(fun, static_argnums=(), return_shape=False):
    """jax.make_jaxpr: `make_jaxpr(f)(*args)` is the ir.Graph f traces to (printed as jitgrad's
    IR, the counterpart of a jaxpr); with `return_shape=True`, `(graph, shapes)` where `shapes`
    is the outputs' pytree of jg.ShapeDtype."""
    def wrapper(*args, **kwargs):
        graph, out_tree = trace_static(fun, static_argnums, args, kwargs, "make_jaxpr")
        return (graph, _shapes(graph, out_tree)) if return_shape else graph
    wrapper.__name__ = f"make_jaxpr({getattr(fun, '__name__', 'fn')})"
    return wrapper


def eval_shape(fun, *args, **kwargs):
    """jax.eval_shape: the pytree of jg.ShapeDtype (jax.ShapeDtypeStruct) that `fun(*args,
    **kwargs)` would return; arguments may be arrays or jg.ShapeDtype, nothing is computed."""
    graph, out_tree = trace_static(fun, (), args, kwargs, "eval_shape")
    return _shapes(graph, out_tree)


def _shapes(graph, out_tree):
    return tree_util.tree_unflatten(out_tree, [ShapeDtype(v.type.shape, v.type.dtype)
                                               for v in graph.outputs])
