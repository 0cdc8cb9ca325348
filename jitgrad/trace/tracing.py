"""Tracing a Python function into an ir.Graph, and calling a graph (inlined into an enclosing
trace, or executed)."""
from __future__ import annotations

import inspect

import numpy as np

from .. import tree_util
from ..dtypes import canonical_dtype, scalar_dtype
from ..eager.dispatch import apply
from ..eager.tensor import Tensor
from ..ir import TensorType
from ..ir.interpreter import interpret
from ..runtime import profiling
from ..runtime.device import CPU, META
from ..runtime.device import device as as_device
from .trace_stack import new_trace
from .tracer import Tracer


class ShapeDtype:
    """An abstract argument: jg.ShapeDtype((256, 784), jg.float32) (jax.ShapeDtypeStruct;
    weak_type=True: weakly typed, as a Python or NumPy scalar argument is)."""
    __slots__ = ("shape", "dtype", "device", "weak_type")

    def __init__(self, shape, dtype="float32", device="cpu", weak_type=False):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = canonical_dtype(dtype)
        self.device = as_device(device)
        self.weak_type = bool(weak_type)

    def __repr__(self):
        return f"ShapeDtype({self.shape}, {self.dtype.name}{', weak_type=True' * self.weak_type})"


# (shape, dtype, device) -> the spec of a Tensor argument leaf: made once, so a jitted step's
# ~160 leaves cost a dict lookup each and its Signature compares the same objects
_TENSOR_SPECS: dict = {}


def leaf_spec(x):
    """(TensorType, device, weak) of a dynamic argument leaf; TypeError for anything else.
    Python and NumPy scalars (np.generic) are weakly typed, as they are when they meet a
    jitgrad array in eager code (JAX's weak_type): `jit(lambda a, s: a * s)(x_f32,
    np.float64(0.5))` is float32, as the eager product is. NumPy arrays, 0-d ones too, are
    arrays: strongly typed."""
    if isinstance(x, Tensor) and type(x._data) is np.ndarray:
        d = x._data
        key = (d.shape, d.dtype, x._device)
        spec = _TENSOR_SPECS.get(key)
        if spec is None:
            if len(_TENSOR_SPECS) > 4096:
                _TENSOR_SPECS.clear()
            spec = _TENSOR_SPECS[key] = (TensorType(d.shape, d.dtype), x._device, False)
        return spec
    if isinstance(x, (Tensor, Tracer)):
        return TensorType(x.shape, x.dtype), x.device, getattr(x, "_weak", False)
    if isinstance(x, ShapeDtype):
        return TensorType(x.shape, x.dtype), x.device, x.weak_type
    if isinstance(x, np.ndarray):
        return TensorType(x.shape, canonical_dtype(x.dtype)), CPU, False
    if isinstance(x, (bool, int, float, complex, np.generic)):
        return TensorType((), scalar_dtype(x)), CPU, True
    raise TypeError(f"expected a tensor, NumPy array, Python number or jg.ShapeDtype as an "
                    f"argument leaf, got {type(x).__name__}; pass other values with static_argnums")


def leaf_array(x, spec):
    """The NumPy array for a concrete leaf (converted to the spec's dtype)."""
    if isinstance(x, Tensor):
        if x.is_deleted():
            raise x._data.error()
        return x._data
    return np.asarray(x, dtype=spec.dtype)


def arg_names(fn, n):
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        params = []
    return params


def trace_to_graph(fn, args, kwargs=None, concrete=False, name=None, leaf_names=None):
    """Trace fn(*args) where every leaf of `args` is dynamic. Returns
    (graph, out_tree, captures, outputs) — captures are outer tracers the function closed over
    (extra graph inputs after the arguments)."""
    kwargs = kwargs or {}
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    name = name or getattr(fn, "__name__", "fn").replace("<", "").replace(">", "")
    with new_trace(concrete, name) as trace:
        tracers = []
        for x in leaves:
            t, dev, weak = leaf_spec(x)
            c = None
            if concrete:
                c = x._concrete if isinstance(x, Tracer) else leaf_array(x, t)
            tracer = trace.new_input(t, c, weak)
            tracers.append(tracer)
        trace.device = _common_device(leaves)
        a, k = tree_util.tree_unflatten(in_tree, tracers)
        out = fn(*a, **k)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        out_vals = []
        for o in out_leaves:
            if isinstance(o, (Tensor, Tracer)):
                out_vals.append(trace.lift(o))
            elif isinstance(o, (bool, int, float, np.generic, np.ndarray)):
                out_vals.append(trace.builder.constant(np.asarray(o, dtype=leaf_spec(o)[0].dtype)))
            else:
                raise TypeError(f"{name} returned a {type(o).__name__} leaf; a traced function "
                                "must return tensors (in tuples, lists or dicts)")
        g = trace.graph
        g.outputs = out_vals
        n_args = len(g.inputs) - len(trace.captures)
        names = (leaf_names or []) + _kwarg_names(kwargs)
        if len(names) != n_args or len(set(names)) != n_args:
            names = _default_names(n_args)
        g.arg_names = names + [f"c{i}" for i in range(len(trace.captures))]
        outputs = [trace_out_concrete(trace, o) for o in out_leaves]
    return g, out_tree, [c for _, c in trace.captures], outputs


def trace_out_concrete(trace, o):
    return o._concrete if isinstance(o, Tracer) and o._trace is trace else None


def _kwarg_names(kwargs):
    """Printing names of keyword-argument leaves, in tree_flatten's (sorted-key) order."""
    names = []
    for k in tree_util.tree_structure(kwargs).aux or ():
        n = len(tree_util.tree_leaves(kwargs[k]))
        names += [str(k)] if n == 1 else [f"{k}.{j}" for j in range(n)]
    return names


def _default_names(n):
    return [f"a{i}" for i in range(n)]


def _common_device(leaves):
    for x in leaves:
        d = getattr(x, "device", None)
        if d is not None and d != CPU:
            return d
    return CPU


def call_graph(graph, inputs, execute=None):
    """Apply `graph` to `inputs` (tensors/tracers). Inside a trace the graph is inlined node by
    node, so enclosing transformations see ordinary ops; otherwise it is executed."""
    if any(isinstance(x, Tracer) for x in inputs):
        env = dict(zip(graph.inputs, inputs))
        for node in graph.nodes:
            outs = apply(node.op, [env[v] for v in node.inputs], node.params, node.source_info)
            outs = outs if isinstance(outs, tuple) else (outs,)
            env.update(zip(node.outputs, outs))
        return [env[v] for v in graph.outputs]
    if any(x.device == META for x in inputs):
        return [Tensor._meta(v.type) for v in graph.outputs]
    device = _common_device(inputs)
    # the graph runs on the host (the reference interpreter); results go back to the inputs'
    # device: grad/vjp/jvp/vmap of cuda tensors without jit gave CPU tensors
    arrays = [x._data if x.device == CPU else np.asarray(x) for x in inputs]
    if execute is not None:
        outs = execute(arrays)
    elif profiling.active:      # jg.profiler is recording: every node is an event
        outs = profiling.interpreted(graph, arrays, interpret)
    else:
        outs = interpret(graph, arrays)
    results = [Tensor._wrap(np.asarray(o), CPU) for o in outs]
    return results if device == CPU else [r.to(device) for r in results]


def make_graph(fn, static_argnums=()):
    """jg.make_graph(fn)(*args) -> the ir.Graph fn traces to (static args are baked in)."""
    return lambda *args, **kwargs: trace_static(fn, static_argnums, args, kwargs)[0]


def trace_static(fn, static_argnums, args, kwargs, caller="make_graph"):
    """(graph, out_tree) of fn(*args, **kwargs) with the `static_argnums` arguments baked in."""
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    dyn = [a for i, a in enumerate(args) if i not in static]

    def inner(*d, **k):
        it = iter(d)
        full = [args[i] if i in static else next(it) for i in range(len(args))]
        return fn(*full, **k)
    names = leaf_names(fn, args, static)
    g, out_tree, caps, _ = trace_to_graph(inner, tuple(dyn), kwargs,
                                          name=getattr(fn, "__name__", "fn"), leaf_names=names)
    if caps:
        raise ValueError(f"{caller}: the function closed over values traced by an enclosing "
                         "transformation")
    return g, out_tree


def leaf_names(fn, args, static):
    """Printing names for the dynamic leaves: the parameter name, suffixed for pytree leaves."""
    params = arg_names(fn, len(args))
    names = []
    for i, a in enumerate(args):
        if i in static:
            continue
        base = params[i] if i < len(params) and params[i] not in ("self",) else f"a{i}"
        n = len(tree_util.tree_leaves(a))
        names += [base] if n == 1 else [f"{base}.{j}" for j in range(n)]
    return names if len(set(names)) == len(names) else None


