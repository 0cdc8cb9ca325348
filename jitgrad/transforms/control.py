"""jg.cond, jg.switch, jg.while_loop, jg.fori_loop, jg.scan with JAX's signatures.

On concrete values (eager code, or eager `grad`) they simply run the Python control flow, so
everything differentiates by recording what ran. Inside jit they trace their functions into
sub-graphs held by one `cond` / `switch` / `while_loop` / `scan` node (ir/control_flow.py). Values the
functions close over from the enclosing trace become extra inputs of the node."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from .. import tree_util
from ..dtypes import result_type
from ..eager.dispatch import apply
from ..ir import Value
from ..ir.control_flow import COND, SCAN, SWITCH, WHILE
from ..ir.types import kind_of
from ..numpy._convert import asarray, astype, dtype_entry, is_array
from ..trace.tracer import Tracer, weak_typed
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
    return _while_loop(cond_fun, body_fun, init_val, "while_loop")


def _while_loop(cond_fun, body_fun, val, who):
    # concrete values run Python's loop until cond or the carry is traced (cond may close over
    # a traced bound with a constant init, as `lambda i: i < n` does): one while node from there
    val = _numpy_as_tensors(val)
    types = _carry_types(val)
    while not any(_abstract(x) for x in tree_util.tree_leaves(val)):
        going = cond_fun(val)
        if _abstract(going):
            break
        if not bool(going):
            return _as_arrays(val)
        val = body_fun(val)
        types = _check_carry(types, (val, None), who)     # what the traced loop refuses
    init_leaves, tree = tree_util.tree_flatten(val)
    weak = [_python_scalar(x) for x in init_leaves]
    leaves = [asarray(x) for x in init_leaves]
    while True:
        # Python scalars in the carry are traced weakly, as scan's are
        carry = tree_util.tree_unflatten(tree, [p if w else _strong(x) for w, p, x in
                                                zip(weak, init_leaves, leaves)])
        gc, tc, cc = _trace(lambda c: cond_fun(c), (carry,), "cond_fun")
        gb, tb, cb = _trace(lambda c: body_fun(c), (carry,), "body_fun")
        if tb != tree:
            raise TypeError(f"{who}: body_fun must return the carry's structure {tree}, got {tb}")
        promoted = _promote_weak(weak, leaves, [v.type for v in gb.outputs])
        if promoted is None:
            break
        leaves, weak = promoted, [False] * len(leaves)
    scan_carry.check([(x.shape, x.dtype) for x in leaves],
                     [(v.type.shape, v.type.dtype) for v in gb.outputs], who=who)
    caps = _unify_captures([(gc, cc, len(leaves)), (gb, cb, len(leaves))])
    outs = apply(WHILE, leaves + caps, {"cond": gc, "body": gb, "n_carry": len(leaves)})
    return tree_util.tree_unflatten(tree, list(outs) if isinstance(outs, tuple) else [outs])


def _promote_weak(weak, leaves, out_types):
    """The carry leaves with each weakly typed one promoted with the body's output type (JAX
    promotes weak carries before checking), or None when none changes."""
    if not any(w and x.dtype != t.dtype for w, x, t in zip(weak, leaves, out_types)):
        return None
    return [x.astype(scan_carry.promoted(x.dtype, t.dtype)) if w else x
            for w, x, t in zip(weak, leaves, out_types)]


def fori_loop(lower, upper, body_fun, init_val):
    """jg.fori_loop(lower, upper, body_fun, init_val): body_fun(i, val) for i in [lower, upper).
    With Python-int bounds it is a scan (reverse-differentiable), otherwise a while_loop. The
    index is int32 for Python-int bounds (else the bounds' dtype), as JAX's, and weakly typed,
    so `val * 1.5 + i` keeps a float32 carry float32."""
    for name, b in (("lower", lower), ("upper", upper)):
        dt = b.dtype if hasattr(b, "dtype") else np.asarray(b).dtype
        if isinstance(b, bool) or kind_of(dt) not in "iu":
            raise TypeError(f"fori_loop: {name} must be an integer (a Python int or an integer "
                            f"array), got {type(b).__name__} {b!r}; the loop index is an integer")
    dtype = _index_dtype(lower, upper)
    if isinstance(lower, (int, np.integer)) and isinstance(upper, (int, np.integer)):
        def step(carry, _):
            i, val = carry
            return (jnp.add(i, 1), body_fun(_weak_index(i), val)), None
        n = max(0, int(upper) - int(lower))
        (_, val), _ = _scan(step, (asarray(lower, dtype=dtype), init_val), None, n, False,
                            "fori_loop")
        return val

    def c(carry):
        return jnp.less(carry[0], upper)

    def b(carry):
        i, val = carry
        return jnp.add(i, 1), body_fun(_weak_index(i), val)
    return _while_loop(c, b, (asarray(lower, dtype=dtype), init_val), "fori_loop")[1]


def _index_dtype(lower, upper):
    """fori_loop's index dtype: int32 when both bounds are Python ints (or weakly typed), else
    the promotion of the typed ones (JAX's)."""
    entries = [dtype_entry(b) for b in (lower, upper)]
    typed = [(d, False) for d, weak in entries if not weak]
    return result_type(*typed, (np.dtype(np.int32), True)) if typed else np.dtype(np.int32)


class LoopIndex(int):
    """An eager loop index: a Python int, so weakly typed as JAX's traced index is (`v * 1.5 +
    i` keeps a Python-float or float32 carry float32, where a NumPy int32 would make a Python
    float float64), that also answers `dtype`, `shape`, `ndim` and `astype` as the 0-d integer
    array the traced body sees."""
    shape, ndim = (), 0

    def __new__(cls, value, dtype):
        self = super().__new__(cls, value)
        self.dtype = np.dtype(dtype)
        return self

    def astype(self, dtype):
        return asarray(int(self), dtype=dtype)


def _weak_index(i):
    """The loop index as the body sees it: weakly typed (a weak traced view, or eagerly a
    LoopIndex), so it never widens the carry."""
    if isinstance(i, Tracer):
        return weak_typed(i)
    return LoopIndex(int(i), i.dtype)


def scan(f, init, xs=None, length=None, reverse=False):
    """jg.scan(f, init, xs, length=None, reverse=False) -> (final carry, stacked ys);
    f(carry, x) -> (carry, y)."""
    return _scan(f, init, xs, length, reverse, "scan")


def _scan(f, init, xs, length, reverse, who):
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
        return _scan_python(f, init, xs, x_tree, x_leaves, length, reverse, who)
    # a Python-scalar carry is traced weakly (as a jit argument is): `0 + x_f32` is float32
    carry = tree_util.tree_unflatten(c_tree, [p if w else _strong(x) for w, p, x in
                                              zip(weak, init_leaves, c_leaves)])
    x_slice = tree_util.tree_unflatten(x_tree, [x[0] if length else jnp.zeros(x.shape[1:], x.dtype)
                                                for x in x_leaves])

    def body(c, x):
        new_c, y = f(c, x)
        return new_c, y
    gb, tb, cb = _trace(body, (carry, x_slice), "scan_body")
    if tb.kind not in (tuple, list) or len(tb.children) != 2:
        raise TypeError(f"{who}: f must return (carry, y), got {tb}")
    scan_carry.check([], [], c_tree, tb.children[0], who)
    # a weakly typed carry takes its promotion with the body's output, as JAX's
    outs_t = [v.type for v in gb.outputs[:len(c_leaves)]]
    promoted = _promote_weak(weak, c_leaves, outs_t)
    if promoted is not None:
        return _scan(f, tree_util.tree_unflatten(c_tree, promoted), xs, length, reverse, who)
    scan_carry.check([(x.shape, x.dtype) for x in c_leaves], [(t.shape, t.dtype) for t in outs_t],
                     who=who)
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
    """A weakly typed carry: a Python scalar (the body's output type decides its dtype, as in
    JAX). A NumPy scalar keeps NumPy's dtype, as an array would, in eager code and under jit
    (where it is a weakly typed argument: _strong)."""
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _strong(x):
    """A carry leaf as the body sees it: strongly typed (a weak jit argument, such as a NumPy
    scalar, computes as the eager array does)."""
    return weak_typed(x, False) if isinstance(x, Tracer) else x


def _carry_types(carry):
    """(structure, [(shape, dtype, weak)]) of a scan carry."""
    leaves, tree = tree_util.tree_flatten(carry)
    return tree, [(tuple(np.shape(x)), np.dtype(dtype_entry(x)[0]), _python_scalar(x))
                  for x in leaves]


def _numpy_as_tensors(carry):
    """The carry with NumPy values as tensors (as the traced loop's inputs are), so the body
    computes with jitgrad's rules (np.float32 + the int32 index is float64 in NumPy's);
    Python scalars stay weak."""
    return tree_util.tree_map(
        lambda x: x if isinstance(x, (bool, int, float, complex)) and
        not isinstance(x, np.generic) else asarray(x), carry)


def _as_arrays(carry):
    """The carry with scalar leaves as arrays of their (weak) dtype: an eager loop returns
    arrays, as the traced one does (a Python float carry: the default float dtype)."""
    return tree_util.tree_map(lambda x: x if is_array(x) else asarray(x, dtype=dtype_entry(x)[0]),
                              carry)


def _check_carry(before, out, who):
    """The eager scan refuses what the traced one does (scan_carry's rule and message): a
    carry that changes structure, shape or dtype; a weak Python scalar first takes its
    promotion with the body's output."""
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"{who}: f must return (carry, y), got {type(out).__name__}")
    tree, types = before
    new_tree, new_types = _carry_types(out[0])
    scan_carry.check([], [], tree, new_tree, who)
    want = [(s, scan_carry.promoted(d, nd) if w else d, False)
            for (s, d, w), (_, nd, _) in zip(types, new_types)]
    scan_carry.check([(s, d) for s, d, _ in want], [(s, d) for s, d, _ in new_types], who=who)
    return new_tree, want


def _scan_python(f, init, xs, x_tree, x_leaves, length, reverse, who):
    types = _carry_types(init)
    carry, ys = _numpy_as_tensors(init), []
    order = range(length - 1, -1, -1) if reverse else range(length)
    for i in order:
        x = tree_util.tree_unflatten(x_tree, [leaf[i] for leaf in x_leaves])
        out = f(carry, x)
        types = _check_carry(types, out, who)
        carry, y = out
        ys.append(y)
    carry = _as_arrays(carry)
    if reverse:
        ys.reverse()
    if not ys:
        return carry, None
    y_leaves0, y_tree = tree_util.tree_flatten(ys[0])
    stacked = [jnp.stack([tree_util.tree_leaves(y)[k] for y in ys]) for k in range(len(y_leaves0))]
    return carry, tree_util.tree_unflatten(y_tree, stacked)


