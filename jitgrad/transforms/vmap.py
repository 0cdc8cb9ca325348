"""jg.vmap(fn, in_axes=0, out_axes=0, axis_size=None), with JAX's semantics.

The function is traced once on ONE example (the mapped axes removed), the graph is batched by
ir.batching.batch_graph (one rule per primitive, no Python loop over examples), and the batched
graph is called on the arguments with their mapped axes moved to the front. Calling a graph
inside an enclosing trace inlines it, so vmap composes with jit, grad, jvp, vjp and itself.
Arguments mapped with None are unbatched inputs of the graph (Python scalars among them are
constants); a call on tensors that require grad is recorded for `.backward()` as one op.
"""
from __future__ import annotations

import functools
import inspect
from collections import OrderedDict

import numpy as np

from .. import numpy as jnp
from ..numpy import vectorizing
from .. import tree_util
from ..eager.jit_in_autograd import needs_record, record_call
from ..eager.tensor import Tensor
from ..errors import api_boundary
from ..ir.batching import batch_graph
from ..numpy._convert import asarray
from ..trace.tracer import Tracer
from ..trace.tracing import ShapeDtype, call_graph, leaf_spec, trace_to_graph
from ..tree_util import node_children
from . import module_state


def _is_axis(a) -> bool:
    return a is None or (isinstance(a, int) and not isinstance(a, bool))


def _check_spec(spec, what):
    leaves = tree_util.tree_leaves(spec, is_leaf=_is_axis)
    bad = [a for a in leaves if not _is_axis(a)]
    if bad:
        raise TypeError(f"vmap: {what} must be an int, None, or a pytree of them, got {bad[0]!r} "
                        f"in {what}={spec!r}")


def _paths(tdef, base):
    """A readable path per leaf of the tree `tdef`: x, x[0], x['w'], ..."""
    if tdef.kind is None:
        return [base]
    keys = tdef.aux if tdef.kind in (dict, OrderedDict) else range(len(tdef.children))
    return [p for k, c in zip(keys, tdef.children) for p in _paths(c, f"{base}[{k!r}]")]


def _axes_per_leaf(spec, tdef, what, where):
    """Broadcast `spec` (int, None, or a tree prefix of `tdef`) to one axis per leaf."""
    if _is_axis(spec):
        return [spec] * tdef.num_leaves
    node = node_children(spec)
    if node is None or node[0] != tdef.kind or len(node[2]) != len(tdef.children) \
            or (tdef.kind in (dict, OrderedDict) and node[1] != tdef.aux):
        raise ValueError(f"vmap: {what} for {where} must be an int, None, or a tree prefix of it; "
                         f"got {what}={spec!r} for a value of structure {tdef}")
    return [a for k, c in zip(node[2], tdef.children) for a in _axes_per_leaf(k, c, what, where)]


def _arg_names(fn, n):
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return [params[i].name if i < len(params) else f"args[{i}]" for i in range(n)]


def _as_array(x):
    return x if isinstance(x, (Tensor, Tracer)) else asarray(x)


class _Mapped:
    """The leaves of the arguments, each with its (normalized) mapped axis or None."""

    def __init__(self, fn, in_axes, args, kwargs):
        if isinstance(in_axes, tuple):
            if len(in_axes) != len(args):
                raise ValueError(f"vmap: in_axes is a tuple of {len(in_axes)} entries but the "
                                 f"function was called with {len(args)} positional argument(s); "
                                 "give one entry per positional argument (or an int / None)")
            per_arg = list(in_axes)
        else:
            per_arg = [in_axes] * len(args)
        names = _arg_names(fn, len(args))
        self.leaves, self.axes, self.paths = [], [], []
        for a, spec, name in zip(args, per_arg, names):
            self._add(a, spec, f"argument {name}")
        for k in sorted(kwargs):
            self._add(kwargs[k], 0, f"keyword argument {k}")
        self.tree = tree_util.tree_structure((tuple(args), kwargs))

    def _add(self, value, spec, where):
        leaves, tdef = tree_util.tree_flatten(value)
        axes = _axes_per_leaf(spec, tdef, "in_axes", where)
        for x, ax, path in zip(leaves, axes, _paths(tdef, where)):
            if ax is not None:
                x = _as_array(x)
                if not -x.ndim <= ax < x.ndim:
                    raise ValueError(f"vmap: in_axes={ax} for {path} of shape {tuple(x.shape)}: "
                                     f"the axis is out of range for a rank-{x.ndim} value")
                ax %= x.ndim
            self.leaves.append(x)
            self.axes.append(ax)
            self.paths.append(path)

    def size(self, axis_size):
        sizes = [(p, a, x.shape[a]) for x, a, p in zip(self.leaves, self.axes, self.paths)
                 if a is not None]
        found = {s for _, _, s in sizes} | ({int(axis_size)} if axis_size is not None else set())
        if len(found) > 1:
            lines = [f"  {p}: axis {a} has size {s}" for p, a, s in sizes]
            if axis_size is not None:
                lines.append(f"  axis_size={axis_size}")
            raise ValueError("vmap got inconsistent sizes for the mapped axes:\n"
                             + "\n".join(lines))
        if not found:
            raise ValueError("vmap: every in_axes entry is None, so the batch size is unknown; map "
                             "at least one argument (an int in in_axes) or pass axis_size")
        return found.pop()


def vmap(fn, in_axes=0, out_axes=0, axis_size=None):
    """Vectorize `fn` over a batch axis: vmap(f)(xs) stacks f(x) for every x in xs, computed as
    one batched program. in_axes / out_axes: an int (the mapped axis; negative counts from the
    end), None (not mapped: shared by every example), or a pytree prefix of the arguments /
    result holding them; in_axes may be a tuple with one entry per positional argument.
    Keyword arguments are mapped over axis 0. axis_size is needed when no argument is mapped."""
    if isinstance(in_axes, list):
        raise TypeError("vmap: in_axes must be an int, None, or a tuple with one entry per "
                        f"positional argument, got the list {in_axes!r} (use a tuple)")
    _check_spec(in_axes, "in_axes")
    _check_spec(out_axes, "out_axes")
    name = getattr(fn, "__name__", "fn")

    @functools.wraps(fn)
    @api_boundary
    def wrapper(*args, **kwargs):
        m = _Mapped(fn, in_axes, args, kwargs)
        size = m.size(axis_size)
        # graph inputs: the mapped leaves, then the shared arrays (Python scalars stay constants,
        # keeping their weak type)
        mapped = [i for i, a in enumerate(m.axes) if a is not None]
        shared = [i for i, a in enumerate(m.axes)
                  if a is None and isinstance(m.leaves[i], (Tensor, Tracer, np.ndarray))]
        specs = [_example_spec(m.leaves[i], m.axes[i]) for i in mapped + shared]

        def one_example(*xs):
            leaves = list(m.leaves)
            for i, x in zip(mapped + shared, xs):
                leaves[i] = x
            a, k = tree_util.tree_unflatten(m.tree, leaves)
            with module_state.WriteLog(refuse=module_state.VMAP_REFUSAL):   # buffer writes
                return fn(*a, **k)
        one_example.__name__ = name
        graph, out_tree, captures, _ = trace_to_graph(one_example, tuple(specs), name=name)
        out_axes_l = _axes_per_leaf(out_axes, out_tree, "out_axes", "the result")
        bg, out_b = batch_graph(graph, [True] * len(mapped)
                                + [False] * (len(shared) + len(captures)), size)
        out_axes_l = _check_out_axes(graph, out_tree, out_axes_l, out_b)
        ins = [m.leaves[i] if m.axes[i] == 0 else jnp.moveaxis(m.leaves[i], m.axes[i], 0)
               for i in mapped] + [_as_array(m.leaves[i]) for i in shared] + list(captures)
        outs = call_graph(bg, ins)
        if needs_record(ins, bg):   # eager autograd: one recorded op whose backward is the VJP
            record_call(bg, ins, outs)
        return tree_util.tree_unflatten(out_tree, [
            _place(jnp, o, b, ax, size) for o, b, ax in zip(outs, out_b, out_axes_l)])

    return wrapper


def _example_spec(x, axis):
    """The abstract value of one example of leaf `x` (mapped over `axis`, or shared)."""
    t, device, weak = leaf_spec(x)
    shape = t.shape if axis is None else t.shape[:axis] + t.shape[axis + 1:]
    return ShapeDtype(shape, t.dtype, device, weak)


def _check_out_axes(graph, out_tree, axes, out_b):
    paths = _paths(out_tree, "the result")
    norm = []
    for v, ax, b, path in zip(graph.outputs, axes, out_b, paths):
        if ax is None:
            if b:
                raise ValueError(f"vmap: out_axes=None for {path} ({v.type} per example), but it "
                                 "depends on a mapped input, so it differs across the batch; give "
                                 "it an int out_axes (or return something independent of the "
                                 "mapped inputs)")
            norm.append(None)
            continue
        rank = v.type.ndim + 1
        if not -rank <= ax < rank:
            raise ValueError(f"vmap: out_axes={ax} for {path} ({v.type} per example): the axis is "
                             f"out of range for the batched rank-{rank} result")
        norm.append(ax % rank)
    return norm


def _place(jnp, o, batched, ax, size):
    """A result of the batched graph with its batch axis at `ax` (broadcast when unbatched)."""
    if ax is None:
        return o
    if not batched:
        o = jnp.broadcast_to(jnp.expand_dims(o, 0), (size,) + tuple(o.shape))
    return o if ax == 0 else jnp.moveaxis(o, 0, ax)


vectorizing.install_vmap(vmap)     # jnp.vectorize, apply_along_axis, ... vectorize with it
