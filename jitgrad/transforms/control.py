"""jg.cond, jg.switch, jg.while_loop, jg.fori_loop, jg.scan with JAX's signatures.

On concrete values (eager code, or eager `grad`) they simply run the Python control flow, so
everything differentiates by recording what ran. Inside jit they trace their functions into
sub-graphs held by one `cond` / `switch` / `while_loop` / `scan` node (ir/control_flow.py). Values the
functions close over from the enclosing trace become extra inputs of the node."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from .. import tree_util
from ..dtypes import scalar_dtype
from ..eager.dispatch import apply
from ..ir import Value
from ..ir.control_flow import COND, SCAN, SWITCH, WHILE
from ..ir.types import kind_of
from ..numpy._convert import asarray, astype
from ..trace.tracer import Tracer
from ..trace.tracing import trace_to_graph
from . import module_state, scan_carry


def _abstract(x) -> bool:
    return isinstance(x, Tracer) and x._concrete is None


def _leaves(tree):
    leaves, td = tree_util.tree_flatten(tree)
    return [asarray(x) for x in leaves], td


def _trace(fn, args_tree, name):
    """Trace fn(*args_tree) into a graph taking the flattened args; returns (graph, out_tree, captures)."""
    with module_state.WriteLog(refuse=module_state.CONTROL_FLOW_REFUSAL):   # closed-over buffers
        g, out_tree, caps, _ = trace_to_graph(fn, args_tree, name=name)
    return g, out_tree, caps


def _unify_captures(graphs_caps):
    """Give every graph the same trailing capture inputs (the union, in first-seen order)."""
    union, index = [], {}
    for _, caps, _ in graphs_caps:
        for c in caps:
            if id(c) not in index:
                index[id(c)] = len(union)
                union.append(c)
    for g, caps, n_args in graphs_caps:
        own = dict(zip((id(c) for c in caps), g.inputs[n_args:]))
        g.inputs = g.inputs[:n_args] + [own.get(id(c)) or Value(c._value.type) for c in union]
        g.arg_names = None
    return union


def cond(pred, true_fun, false_fun, *operands):
    """jg.cond(pred, true_fun, false_fun, *operands): true_fun(*operands) if pred else false_fun(*operands)."""
    p = asarray(pred)
    if p.shape != ():
        raise TypeError(f"cond: expected a scalar predicate, got shape {p.shape}")
    if not _abstract(p):
        return true_fun(*operands) if bool(p) else false_fun(*operands)
    leaves, in_tree = _leaves(operands)
    ops_tree = tree_util.tree_unflatten(in_tree, leaves)
    gt, tt, ct = _trace(lambda *a: true_fun(*a), tuple(ops_tree), "true_fun")
    gf, tf, cf = _trace(lambda *a: false_fun(*a), tuple(ops_tree), "false_fun")
    if tt != tf:
        raise TypeError(f"cond: true_fun and false_fun return different structures: {tt} and {tf}")
    caps = _unify_captures([(gt, ct, len(leaves)), (gf, cf, len(leaves))])
    outs = apply(COND, [astype(p, "bool")] + leaves + caps, {"true": gt, "false": gf})
    return tree_util.tree_unflatten(tt, list(outs) if isinstance(outs, tuple) else [outs])


def switch(index, branches, *operands):
    """jg.switch(index, [f0, f1, ...], *operands): branches[clamp(index, 0, n - 1)](*operands),
    as lax.switch: one `switch` node whose branches are traced sub-graphs."""
    branches = list(branches)
    if not branches:
        raise ValueError("switch: expected at least one branch, got none")
    i = asarray(index)
    if i.shape != () or kind_of(i.dtype) not in "iub":
        raise TypeError(f"switch: expected a scalar integer index, got {i.dtype}{list(i.shape)}")
    if not _abstract(i):
        return branches[min(max(int(i), 0), len(branches) - 1)](*operands)
    leaves, in_tree = _leaves(operands)
    ops_tree = tuple(tree_util.tree_unflatten(in_tree, leaves))
    traced = [_trace(lambda *a, f=f: f(*a), ops_tree, f"branch{k}") for k, f in enumerate(branches)]
    for k, (_, tree, _) in enumerate(traced[1:], 1):
        if tree != traced[0][1]:
            raise TypeError(f"switch: branches return different structures: branch 0 gives "
                            f"{traced[0][1]}, branch {k} gives {tree}")
    caps = _unify_captures([(g, c, len(leaves)) for g, _, c in traced])
    outs = apply(SWITCH, [astype(i, "int32")] + leaves + caps,
                 {"branches": tuple(g for g, _, _ in traced)})
    return tree_util.tree_unflatten(traced[0][1], list(outs) if isinstance(outs, tuple) else [outs])


def while_loop(cond_fun, body_fun, init_val):
    """jg.while_loop(cond_fun, body_fun, init_val): repeat body while cond holds."""
    leaves, tree = _leaves(init_val)
    if not any(_abstract(x) for x in leaves):
        val = init_val
        while bool(cond_fun(val)):
            val = body_fun(val)
        return val
    carry = tree_util.tree_unflatten(tree, leaves)
    gc, tc, cc = _trace(lambda c: cond_fun(c), (carry,), "cond_fun")
    gb, tb, cb = _trace(lambda c: body_fun(c), (carry,), "body_fun")
    if tb != tree:
        raise TypeError(f"while_loop: body_fun must return the carry's structure {tree}, got {tb}")
    caps = _unify_captures([(gc, cc, len(leaves)), (gb, cb, len(leaves))])
    outs = apply(WHILE, leaves + caps, {"cond": gc, "body": gb, "n_carry": len(leaves)})
    return tree_util.tree_unflatten(tree, list(outs) if isinstance(outs, tuple) else [outs])


def fori_loop(lower, upper, body_fun, init_val):
    """jg.fori_loop(lower, upper, body_fun, init_val): body_fun(i, val) for i in [lower, upper).
    With Python-int bounds it is a scan (reverse-differentiable), otherwise a while_loop."""
    for name, b in (("lower", lower), ("upper", upper)):
        dt = b.dtype if hasattr(b, "dtype") else np.asarray(b).dtype
        if isinstance(b, bool) or kind_of(dt) not in "iu":
            raise TypeError(f"fori_loop: {name} must be an integer (a Python int or an integer "
                            f"array), got {type(b).__name__} {b!r}; the loop index is an integer")
    if isinstance(lower, (int, np.integer)) and isinstance(upper, (int, np.integer)):
        def step(carry, _):
            i, val = carry
            return (jnp.add(i, 1), body_fun(i, val)), None
        n = max(0, int(upper) - int(lower))
        (_, val), _ = scan(step, (asarray(np.int64(lower)), init_val), None, length=n)
        return val

    def c(carry):
        return jnp.less(carry[0], upper)

    def b(carry):
        i, val = carry
        return jnp.add(i, 1), body_fun(i, val)
    return while_loop(c, b, (asarray(lower, dtype="int64"), init_val))[1]


def scan(f, init, xs=None, length=None, reverse=False):
    """jg.scan(f, init, xs, length=None, reverse=False) -> (final carry, stacked ys);
    f(carry, x) -> (carry, y)."""
    c_leaves, c_tree = _leaves(init)
    init_leaves = tree_util.tree_leaves(init)
    weak = [_python_scalar(x) for x in init_leaves]
    x_leaves, x_tree = _leaves(xs)
    lengths = {x.shape[0] for x in x_leaves if x.ndim}
    if length is None:
        if len(lengths) != 1:
            raise ValueError(f"scan: xs leaves need one common leading axis length, got "
                             f"{sorted(lengths) or 'none (pass length=)'}")
        length = lengths.pop()
    elif lengths and lengths != {length}:
        raise ValueError(f"scan: length={length} but xs have leading axes {sorted(lengths)}")
    if any(x.ndim == 0 for x in x_leaves):
        raise ValueError("scan: every xs leaf needs a leading axis to scan over")
    if not any(_abstract(x) for x in c_leaves + x_leaves):
        return _scan_python(f, init, xs, x_tree, x_leaves, length, reverse)
    # a Python-scalar carry is traced weakly (as a jit argument is): `0 + x_f32` is float32
    carry = tree_util.tree_unflatten(c_tree, [p if w else x for w, p, x in
                                              zip(weak, init_leaves, c_leaves)])
    x_slice = tree_util.tree_unflatten(x_tree, [x[0] if length else jnp.zeros(x.shape[1:], x.dtype)
                                                for x in x_leaves])

    def body(c, x):
        new_c, y = f(c, x)
        return new_c, y
    gb, tb, cb = _trace(body, (carry, x_slice), "scan_body")
    if tb.kind not in (tuple, list) or len(tb.children) != 2:
        raise TypeError(f"scan: f must return (carry, y), got {tb}")
    scan_carry.check([], [], c_tree, tb.children[0])
    # a Python-scalar (weakly typed) carry takes its promotion with the body's output, as JAX
    outs_t = [v.type for v in gb.outputs[:len(c_leaves)]]
    if any(w and x.dtype != t.dtype for w, x, t in zip(weak, c_leaves, outs_t)):
        c_leaves = [x.astype(scan_carry.promoted(x.dtype, t.dtype)) if w else x
                    for w, x, t in zip(weak, c_leaves, outs_t)]
        return scan(f, tree_util.tree_unflatten(c_tree, c_leaves), xs, length, reverse)
    scan_carry.check([(x.shape, x.dtype) for x in c_leaves], [(t.shape, t.dtype) for t in outs_t])
    n_args = len(c_leaves) + len(x_leaves)
    caps = _unify_captures([(gb, cb, n_args)])
    outs = apply(SCAN, c_leaves + x_leaves + caps,
                 {"body": gb, "n_carry": len(c_leaves), "n_xs": len(x_leaves),
                  "length": int(length), "reverse": bool(reverse)})
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    nc = len(c_leaves)
    return (tree_util.tree_unflatten(c_tree, outs[:nc]),
            tree_util.tree_unflatten(tb.children[1], outs[nc:]))


def _python_scalar(x) -> bool:
    """A weakly typed carry: a Python scalar. A NumPy scalar (np.float64 is a float) alone keeps
    NumPy's dtype, as an array would."""
    return isinstance(x, (bool, int, float)) and not isinstance(x, np.generic)


def _carry_types(carry):
    """(structure, [(shape, dtype, weak)]) of a scan carry (weak: a Python scalar)."""
    leaves, tree = tree_util.tree_flatten(carry)
    return tree, [((), scalar_dtype(x), True) if _python_scalar(x) else
                  (tuple(np.shape(x)), np.dtype(asarray(x).dtype), False) for x in leaves]


def _check_carry(before, out):
    """The eager scan refuses what the traced one does (scan_carry's rule and message): a
    carry that changes structure, shape or dtype; a weak Python scalar first takes its
    promotion with the body's output."""
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"scan: f must return (carry, y), got {type(out).__name__}")
    tree, types = before
    new_tree, new_types = _carry_types(out[0])
    scan_carry.check([], [], tree, new_tree)
    want = [(s, scan_carry.promoted(d, nd) if w else d, False)
            for (s, d, w), (_, nd, _) in zip(types, new_types)]
    scan_carry.check([(s, d) for s, d, _ in want], [(s, d) for s, d, _ in new_types])
    return new_tree, want


def _scan_python(f, init, xs, x_tree, x_leaves, length, reverse):
    # NumPy values in the carry become tensors (as the traced scan's inputs do); Python
    # scalars stay weak
    leaves, tree = tree_util.tree_flatten(init)
    init = tree_util.tree_unflatten(tree, [x if _python_scalar(x) else asarray(x)
                                           for x in leaves])
    carry, ys = init, []
    types = _carry_types(init)
    order = range(length - 1, -1, -1) if reverse else range(length)
    for i in order:
        x = tree_util.tree_unflatten(x_tree, [leaf[i] for leaf in x_leaves])
        out = f(carry, x)
        types = _check_carry(types, out)
        carry, y = out
        ys.append(y)
    if reverse:
        ys.reverse()
    if not ys:
        return carry, None
    y_leaves0, y_tree = tree_util.tree_flatten(ys[0])
    stacked = [jnp.stack([tree_util.tree_leaves(y)[k] for y in ys]) for k in range(len(y_leaves0))]
    return carry, tree_util.tree_unflatten(y_tree, stacked)


