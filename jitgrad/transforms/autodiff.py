"""grad, value_and_grad, vjp, jvp: trace the function to a graph, transform the graph with
ir.autodiff, and call the transformed graph. Calls on concrete values trace *concretely*
(values are computed while recording), so Python control flow on values works as in JAX's and
PyTorch's eager autograd; inside jit the same code traces abstractly. Nesting composes because
calling a graph inside an enclosing trace inlines it (tracing.call_graph)."""
from __future__ import annotations

import functools

from .. import tree_util
from ..eager.dispatch import apply
from ..eager.tensor import Tensor
from ..errors import api_boundary
from ..ir import Op
from ..ir.autodiff import jvp_graph, vjp_graph
from ..ir.types import kind_of
from ..numpy._convert import asarray
from ..numpy.creation import ones, zeros_like
from ..trace.tracer import Tracer
from ..trace.tracing import call_graph, leaf_array, leaf_spec, trace_to_graph
from . import module_state, pytree_roles


def stop_gradient(x):
    """The identity whose derivative is zero (applied to every leaf of a pytree). An eager tensor
    comes back detached, as torch's `detach()`: no autograd history, `requires_grad` False."""
    return tree_util.tree_map(_stopped, x)


def _stopped(v):
    if type(v) is Tensor:
        return v.detach()
    return apply(Op.stop_gradient, [asarray(v)])


def as_inputs(leaves):
    return [x if isinstance(x, (Tensor, Tracer)) else asarray(leaf_array(x, leaf_spec(x)[0]))
            for x in leaves]


def _is_concrete(leaves) -> bool:
    return not any(isinstance(x, Tracer) and x._concrete is None for x in leaves)


def argnums_tuple(argnums):
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


def _trace_wrt(fn, args, argnums, name, kwargs=None):
    """Trace fn with the leaves of args[argnums] as graph inputs (other args and the keyword
    arguments closed over: passed through, not differentiated, as JAX's)."""
    kwargs = kwargs or {}
    argnums_t = argnums_tuple(argnums)
    for i in argnums_t:
        if i >= len(args):
            raise TypeError(f"{name}: argnums={argnums} but the function was called with "
                            f"{len(args)} positional argument(s)")
    dyn = tuple(args[i] for i in argnums_t)
    leaves, in_tree = tree_util.tree_flatten(dyn)
    # module buffers are state, not differentiated (their cotangent is zero)
    trainable = module_state.trainable_mask(dyn)
    for x, train in zip(leaves, trainable):
        t = leaf_spec(x)[0]
        if train and kind_of(t.dtype) not in "fc":
            raise TypeError(f"{name}: can only differentiate with respect to float or complex inputs, got "
                            f"{t} (an integer or bool argument; cast it with .astype(jnp.float32) "
                            "or leave it out of argnums)")

    def f_dyn(*d):
        full = list(args)
        for i, v in zip(argnums_t, d):
            full[i] = v
        return fn(*full, **kwargs)
    f_dyn.__name__ = getattr(fn, "__name__", "fn")
    # buffer writes (BatchNorm in training mode) are extra outputs, assigned after the call
    traced = module_state.functionalize(f_dyn, name)
    graph, out_tree, captures, _ = trace_to_graph(traced, dyn, concrete=_is_concrete(
        leaves + tree_util.tree_leaves((args, kwargs))), name=f_dyn.__name__)
    state = _TracedState(dyn, traced.written, trainable)
    return graph, out_tree.children[0], captures, leaves, in_tree, state


class _TracedState:
    """What _trace_wrt found about state: the written buffer leaves (the graph's last outputs)
    and which leaves are differentiated."""

    def __init__(self, dyn, written, trainable):
        self.dyn, self.written, self.trainable = dyn, tuple(written), trainable
        self.wrt = [i for i, t in enumerate(trainable) if t]

    def n_user(self, graph):
        return len(graph.outputs) - len(self.written)

    def write_back(self, outs):
        """Assign the written buffers (the trailing outputs) to the caller's modules."""
        if self.written:
            module_state.write_back((self.dyn, {}), self.written, outs[len(outs) - len(
                self.written):])

    def full_grads(self, grads, leaves):
        """Gradients for every leaf: zeros for the state leaves that were not differentiated."""
        if len(self.wrt) == len(leaves):
            return grads
        it = iter(grads)
        return [next(it) if t else zeros_like(x) for t, x in zip(self.trainable, leaves)]


def _unflatten_grads(in_tree, grads, argnums):
    tree = pytree_roles.as_gradient(tree_util.tree_unflatten(in_tree, grads))
    return tree[0] if isinstance(argnums, int) else tuple(tree)


def value_and_grad(fn, argnums=0, has_aux=False, holomorphic=False):
    """jg.value_and_grad(fn, argnums=0, has_aux=False)(*args) -> (value, grads)
    ((value, aux), grads with has_aux). Of a jitted fn it runs compiled, as JAX's does: it is
    jit(value_and_grad(fn)) with fn's static arguments, made once per fn and options."""
    if hasattr(fn, "compiled_transform") and not fn.donate_argnums:     # a jg.jit function
        key = ("value_and_grad", argnums if isinstance(argnums, int) else tuple(argnums),
               has_aux, holomorphic)
        return fn.compiled_transform(key, lambda f: _value_and_grad(f, argnums, has_aux,
                                                                    holomorphic))
    return _value_and_grad(fn, argnums, has_aux, holomorphic)


def _value_and_grad(fn, argnums, has_aux, holomorphic):
    @functools.wraps(fn)
    @api_boundary
    def wrapper(*args, **kwargs):
        graph, out_tree, captures, leaves, in_tree, state = _trace_wrt(fn, args, argnums, "grad",
                                                                       kwargs)
        n_out = len(graph.outputs)
        if has_aux:
            if out_tree.kind not in (tuple, list) or len(out_tree.children) != 2:
                raise TypeError("grad with has_aux=True: the function must return a pair "
                                f"(output, aux), got a result of structure {out_tree}")
            main_tree = out_tree.children[0]
        else:
            main_tree = out_tree
        if main_tree.kind is not None:
            raise TypeError(f"grad requires a function returning a scalar, got a result of "
                            f"structure {main_tree}; use jg.vjp or jg.jacrev for non-scalar outputs")
        out_t = graph.outputs[0].type
        if out_t.shape != () or kind_of(out_t.dtype) != ("c" if holomorphic else "f"):
            raise TypeError(f"grad requires a scalar float output, got {out_t}; use jg.vjp or "
                            "jg.jacrev for non-scalar outputs (or sum the result)"
                            if not holomorphic else "grad with holomorphic=True requires a "
                            f"scalar complex output, got {out_t}")
        if holomorphic and any(kind_of(leaf_spec(x)[0].dtype) != "c"
                               for x, t in zip(leaves, state.trainable) if t):
            raise TypeError("grad with holomorphic=True requires complex inputs, got "
                            + ", ".join(str(leaf_spec(x)[0]) for x in leaves))
        vg = vjp_graph(graph, wrt=state.wrt, out_idx=[0])
        ones = _ones_like_value(graph.outputs[0], as_inputs(leaves) + captures)
        res = call_graph(vg, as_inputs(leaves) + captures + [ones])
        outs, grads = res[:n_out], res[n_out:]
        state.write_back(outs)
        value = tree_util.tree_unflatten(out_tree, outs[:state.n_user(graph)])
        return value, _unflatten_grads(in_tree, state.full_grads(grads, leaves), argnums)

    return wrapper


def grad(fn, argnums=0, has_aux=False, holomorphic=False):
    """jg.grad(fn, argnums=0, has_aux=False, holomorphic=False): gradient of a scalar function.
    For complex inputs and a real output it is JAX's convention (the conjugate of df/dz-bar
    times 2: grad(|z|**2) = 2 conj(z)); holomorphic=True: f'(z) of a complex-valued f.
    Keyword arguments are passed through to fn, not differentiated."""
    vg = value_and_grad(fn, argnums, has_aux, holomorphic)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def _ones_like_value(v, inputs):
    dev = next((x.device for x in inputs if hasattr(x, "device")), None)
    return ones(v.type.shape, dtype=v.type.dtype, device=dev)


@api_boundary
def vjp(fn, *primals, has_aux=False):
    """jg.vjp(fn, *primals) -> (out, vjp_fn); vjp_fn(cotangent) returns one cotangent per primal."""
    argnums = tuple(range(len(primals)))
    graph, out_tree, captures, leaves, in_tree, state = _trace_wrt(fn, primals, argnums, "vjp")
    n_out = len(graph.outputs)
    inputs = as_inputs(leaves) + captures
    main_tree = out_tree.children[0] if has_aux else out_tree
    n_main = main_tree.num_leaves
    vg = vjp_graph(graph, wrt=state.wrt, out_idx=range(n_main))
    outs = call_graph(graph, inputs)
    state.write_back(outs)
    out = tree_util.tree_unflatten(out_tree, outs[:state.n_user(graph)])

    def vjp_fn(cotangent):
        cts, ct_tree = tree_util.tree_flatten(cotangent)
        if ct_tree != main_tree:
            raise TypeError(f"vjp_fn: expected a cotangent of structure {main_tree}, got {ct_tree}")
        cts = [asarray(c) for c in cts]
        for c, v in zip(cts, graph.outputs):
            if c.shape != v.type.shape:
                raise TypeError(f"vjp_fn: expected a cotangent of type {v.type}, got shape {c.shape}")
        cts = [c.astype(v.type.dtype) for c, v in zip(cts, graph.outputs)]
        res = call_graph(vg, inputs + cts)
        return pytree_roles.as_gradient(
            tuple(tree_util.tree_unflatten(in_tree, state.full_grads(res[n_out:], leaves))))

    return (out[0], vjp_fn, out[1]) if has_aux else (out, vjp_fn)


@api_boundary
def jvp(fn, primals, tangents, has_aux=False):
    """jg.jvp(fn, primals, tangents) -> (out, tangent_out), forward mode."""
    primals, tangents = tuple(primals), tuple(tangents)
    p_leaves, p_tree = tree_util.tree_flatten(primals)
    t_leaves, t_tree = tree_util.tree_flatten(tangents)
    if p_tree != t_tree:
        raise TypeError(f"jvp: primals and tangents must have the same structure, got {p_tree} "
                        f"and {t_tree}")
    argnums = tuple(range(len(primals)))
    graph, out_tree, captures, leaves, in_tree, state = _trace_wrt(fn, primals, argnums, "jvp")
    tans = []
    for t, x, train in zip(t_leaves, leaves, state.trainable):
        spec = leaf_spec(x)[0]
        t = asarray(t)
        if t.shape != spec.shape:
            raise TypeError(f"jvp: tangent of shape {t.shape} for a primal of type {spec}")
        if train:                       # buffers are constants of the derivative
            tans.append(t.astype(spec.dtype))
    jg_ = jvp_graph(graph, tangent_inputs=state.wrt)
    res = call_graph(jg_, as_inputs(leaves) + captures + tans)
    n = len(graph.outputs)
    state.write_back(res[:n])
    n_user = state.n_user(graph)
    out = tree_util.tree_unflatten(out_tree, res[:n_user])
    t_out = tree_util.tree_unflatten(out_tree, res[n:n + n_user])
    if has_aux:
        return out[0], t_out[0], out[1]
    return out, t_out


