"""Eager `.backward()`: the ops recorded since the leaves become an ir.Graph, ir.autodiff turns it
into its VJP graph, and that runs through the compiler like any other graph. There is one AD;
this is only the bridge from recorded tensors to a graph and back to `.grad`. The values the
eager forward computed are inputs of the gradient graph (saved_values.py): it does not compute
the forward a second time."""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from ..ir import Builder, Graph, TensorType
from ..ir.autodiff import vjp_values
from ..ir.interpreter import interpret
from ..runtime.device import META
from ..compilation.compile_graph import compile_graph
from .autograd_record import RETAINED, STRIDE, producer
from .dispatch import apply as dispatch_apply
from .grad_mode import no_grad
from .jit_in_autograd import has_jitted_call
from .modified_inputs import straight_through, was_written
from .saved_values import RECOMPUTED, fed, reuse_saved
from .tensor import Tensor

_CACHE_SIZE, _HOT = 64, 3
_RUNNERS: OrderedDict = OrderedDict()      # (device, graph text) -> [seen, run]: no structure key
_BY_STRUCTURE: OrderedDict = OrderedDict()  # recorded structure -> (VJP graph, wrt types)
_FREED = ("Trying to backward through the graph a second time (or after its saved values were "
          "freed): .backward() frees the recorded graph; pass retain_graph=True to the first "
          ".backward() to backward through it again")


def run_backward(root, gradient=None, retain_graph=False) -> None:
    """root.backward(gradient, retain_graph): d root / d leaf accumulated into each leaf's (and
    each retaining tensor's) `.grad`."""
    pairs, on_host = gradients(root, gradient, retain_graph)
    for t, g in pairs:
        if t.grad is None or root.device == META:
            t.grad = g
        elif on_host:
            t.grad = Tensor._wrap(t.grad._data + g._data, root.device)
        else:
            with no_grad():
                t.grad = t.grad + g


def gradients(root, gradient=None, retain_graph=False) -> tuple:
    """([(tensor, d root / d tensor)] for the leaves that require grad and the tensors that
    retain grad, whether the gradients are host arrays): the computation of `.backward()`,
    without writing `.grad` (torch.autograd.grad reads it)."""
    if not root.requires_grad:
        raise RuntimeError("backward: this tensor does not require grad and has no grad_fn (no "
                           "input of the ops that made it had requires_grad=True)")
    seed = _seed(root, gradient)
    records = _records(root)
    key, arrays, wrt = _structure(root, records)
    entry = _BY_STRUCTURE.pop(key, None) if key is not None else None
    if entry is None:       # a new structure: build the graph and differentiate it
        graph, arrays, wrt_values, saved = _graph(root, records)
        vg = vjp_values(graph, [v for _, v in wrt_values], out_idx=[0])
        vg = reuse_saved(graph, vg, saved)      # the forward's values, not a second forward
        wrt = [t for t, _ in wrt_values]
        # + runs so far, executable, the runs before compiling (a jitted call's: at once)
        entry = [vg, [v.type for _, v in wrt_values], 0, None, _hot(records)]
    if key is not None:     # the same recorded structure again (a training loop): reused
        _BY_STRUCTURE[key] = entry
        while len(_BY_STRUCTURE) > _CACHE_SIZE:
            _BY_STRUCTURE.popitem(last=False)
    vg, wrt_types = entry[0], entry[1]
    on_host = root.device.type == "cpu"     # a cuda graph's results are device arrays
    if root.device == META:
        grads = [Tensor._meta(t) for t in wrt_types]
    else:
        run = _tiered(entry, root.device) if key is not None else \
            _runner(vg, root.device, entry[4])
        outs = run(arrays + [seed])
        grads = [Tensor._wrap(np.asarray(g) if on_host else g, root.device) for g in outs]
    if not retain_graph:
        for rec in records:
            rec.free()
    return list(zip(wrt, grads)), on_host


def differentiable_gradients(root, gradient) -> list:
    """[(tensor, d root / d tensor)] as `gradients`, computed by recorded eager ops from the
    leaves (the forward recomputed inside, no saved values), so the gradients have a history
    of their own: torch's create_graph=True (grads of grads)."""
    if not root.requires_grad:
        raise RuntimeError("grad: this tensor does not require grad and has no grad_fn")
    seed = _seed(root, gradient)
    graph, arrays, wrt_values, _ = _graph(root, _records(root))
    vg = vjp_values(graph, [v for _, v in wrt_values], out_idx=[0])
    leaf_of = {id(v): t for t, v in wrt_values}        # a leaf input: the tensor itself
    given = [leaf_of[id(v)] if id(v) in leaf_of else Tensor._wrap(a, root.device)
             for v, a in zip(graph.inputs, arrays)]
    env = dict(zip(vg.inputs, given + [Tensor._wrap(seed, root.device)]))
    for node in vg.nodes:
        outs = dispatch_apply(node.op, [env[v] for v in node.inputs], node.params)
        env.update(zip(node.outputs, outs if isinstance(outs, tuple) else (outs,)))
    cotangents = vg.outputs[len(graph.outputs):]       # after the primal outputs
    return [(t, env[v]) for (t, _), v in zip(wrt_values, cotangents)]


def cache_info() -> dict:
    """{'structures': recorded structures whose VJP graph is kept, 'runners': gradient graphs
    with a run count (and, once hot, a compiled executable)}."""
    return {"structures": len(_BY_STRUCTURE), "runners": len(_RUNNERS) + len(_BY_STRUCTURE)}


def graphs() -> list:
    """The gradient graphs kept for recorded structures, oldest first (what a backward runs:
    inputs leaves, constants, the forward's saved values and the seed; outputs the gradients)."""
    return [entry[0] for entry in _BY_STRUCTURE.values()]


def _hot(records) -> int:
    """After how many runs a gradient graph is compiled: _HOT, or at its first run where the
    forward ran a jitted function (its user asked for compiled code: jit_in_autograd.py)."""
    return 1 if has_jitted_call(records) else _HOT


def _tiered(entry, device):
    """How to run a kept structure's gradient graph (entry [graph, types, runs, executable,
    hot]): tiered like _runner, the count and the executable kept in the entry (one lookup)."""
    entry[2] += 1
    if entry[3] is None and (entry[2] >= entry[4] or device.type != "cpu"):
        entry[3] = compile_graph(entry[0], device).run
    graph = entry[0]
    return entry[3] or (lambda arrays: interpret(graph, arrays))


class StructureKey:
    """A recorded structure as a dict key: its hash computed once (the parts are a tuple of
    one entry per recorded op, hashed again by every dict operation otherwise)."""
    __slots__ = ("parts", "hash")

    def __init__(self, parts):
        self.parts, self.hash = parts, hash(parts)

    def __hash__(self):
        return self.hash

    def __eq__(self, other):
        return type(other) is StructureKey and self.hash == other.hash and \
            self.parts == other.parts


def _runner(graph, device, hot=_HOT):
    """How to run a gradient graph, tiered like a JIT: the reference interpreter for the first
    runs (compiling costs far more than one small backward), then, once the same graph comes
    back `hot` times (a training loop), the compiled executable. Keyed by the IR text (it names
    every shape, dtype and constant) when the recorded structure has no key; a small LRU."""
    key = (str(device), str(graph))
    entry = _RUNNERS.pop(key, None) or [0, None]
    entry[0] += 1
    if entry[1] is None and (entry[0] >= hot or device.type != "cpu"):  # interpreter: host only
        entry[1] = compile_graph(graph, device).run
    _RUNNERS[key] = entry
    while len(_RUNNERS) > _CACHE_SIZE:
        _RUNNERS.popitem(last=False)
    return entry[1] or (lambda arrays: interpret(graph, arrays))


def _seed(root, gradient):
    if gradient is None:
        if root.size != 1:
            raise RuntimeError(f"backward: a gradient can be created implicitly only for a scalar "
                               f"output, got shape {tuple(root.shape)}; call y.backward(gradient) "
                               "with a gradient of that shape, or reduce first "
                               "(y.sum().backward())")
        return np.ones(root.shape, root.dtype)
    g = np.asarray(gradient._data if isinstance(gradient, Tensor) else gradient, dtype=root.dtype)
    if g.shape != tuple(root.shape):
        raise RuntimeError(f"backward: gradient has shape {g.shape} but the output has shape "
                           f"{tuple(root.shape)}")
    return g


def _check(rec):
    if rec.freed:
        raise RuntimeError(_FREED)
    ins = rec.ins
    for counter, v in zip(ins[2::STRIDE], ins[3::STRIDE]):
        if counter[0] != v:
            x = next(x for x, c in zip(ins[0::STRIDE], ins[2::STRIDE]) if c is counter)
            raise RuntimeError(
                f"one of the tensors needed for gradient computation has been modified by an "
                f"in-place operation: the input of type {x._type} to '{rec.name}' was at version "
                f"{v} when recorded and is now at version {counter[0]}; compute on a copy, or "
                "modify it only after calling .backward()")


def _records(root) -> list:
    """The records root depends on, producers first (iterative DFS: graphs can be deep)."""
    order, seen = [], set()
    stack = [(root._ctx, False)] if root._ctx is not None else []
    while stack:
        rec, done = stack.pop()
        if done:
            order.append(rec)
            continue
        if rec in seen:
            continue
        seen.add(rec)
        _check(rec)
        stack.append((rec, True))
        stack.extend([(p, False) for p in rec.ins[4::STRIDE] if p is not None and p not in seen])
    return order


def _param_key(v):
    if type(v) is float:            # 0.0 and -0.0 are equal but not the same constant
        return v, math.copysign(1.0, v)
    return v


def _structure(root, records):
    """(key, input arrays, tensors to get grads of) of the graph `_graph` would build, without
    building it: the key names each recorded op, its params, where its inputs come from (an
    earlier op's result, a leaf, a constant) and every input's shape and dtype, so two
    backward calls with equal keys have equal graphs. The key is None when a param cannot be
    hashed (the graph's text is the key then)."""
    index, leaves, consts, arrays, wrt, parts = {}, {}, {}, [], [], []
    saved, saved_arrays = set(), []

    def const(d):
        if id(d) not in consts:
            consts[id(d)] = -1 - len(arrays)
            arrays.append(d)
        return consts[id(d)], d.shape, d.dtype

    for n, rec in enumerate(records):
        ins, key_ins = rec.ins, []
        for j in range(0, len(ins), STRIDE):
            x, d, p = ins[j], ins[j + 1], ins[j + 4]
            if p is not None:
                where = (index[p], ins[j + 5])
                if was_written(rec, j):         # read as written (modified_inputs.py)
                    key_ins.append((where, *const(d)))
                    continue
                key_ins.append(where)
                if p.op not in RECOMPUTED and where not in saved:
                    saved.add(where)
                    saved_arrays.append(d)
            elif d is None:           # a meta tensor: no data to key on
                return None, None, None
            elif ins[j + 6]:          # a leaf that requires grad
                if id(x) not in leaves:
                    leaves[id(x)] = len(arrays)
                    arrays.append(x._data)
                    wrt.append(x)
                key_ins.append((leaves[id(x)], x._data.shape, x._data.dtype))
            else:
                key_ins.append(const(d))
        index[rec] = n
        params = tuple([(k, type(v), _param_key(v)) for k, v in rec.params.items()]) \
            if rec.params else ()
        parts.append((rec.op, params, tuple(key_ins)))
    if root._ctx is None:
        return None, None, None
    retained = _retained(records)
    out = producer(root)
    try:
        key = StructureKey((tuple(parts), (index[out[0]], out[1]),
                            tuple([(index[p[0]], p[1]) for _, p in retained])))
    except TypeError:
        return None, None, None
    return key, arrays + saved_arrays, wrt + [t for t, _ in retained]


def _graph(root, records):
    """(graph computing root from its leaves, input arrays, [(tensor, Value)] to get grads of):
    leaves that require grad, and recorded results that asked to .retain_grad()."""
    b = Builder(Graph(name="backward"))
    values, leaves, arrays, consts = {}, {}, [], {}
    saved = {}                  # (record, output index) -> its array, in first-use order

    def leaf(x):
        if id(x) not in leaves:
            leaves[id(x)] = (x, b.add_input(x._type))
            arrays.append(x._data)
        return leaves[id(x)][1]

    def const(data):
        if id(data) not in consts:
            consts[id(data)] = (b.add_input(TensorType(data.shape, data.dtype)), data)
            arrays.append(data)
        return consts[id(data)][0]

    for rec in records:
        written = [was_written(rec, j) for j in range(0, len(rec.ins), STRIDE)]
        ins = [(straight_through(b, values[p], const(d)) if w else values[p]) if p is not None
               else leaf(x) if is_leaf else const(d)
               for x, d, p, is_leaf, w in zip(rec.inputs, rec.datas, rec.parents,
                                              rec.grad_leaves, written)]
        for d, p, w in zip(rec.datas, rec.parents, written):
            if p is not None and not w and p not in saved and fed(p[0].op):
                saved[p] = d
        outs = b.emit(rec.op, ins, rec.params)
        values.update(((rec, i), v) for i, v in enumerate(outs))
    b.graph.outputs = [values[producer(root)] if root._ctx is not None else leaf(root)]
    retained = [(t, values[p]) for t, p in _retained(records)]
    return (b.graph, arrays + list(saved.values()), list(leaves.values()) + retained,
            [values[p] for p in saved])


def _retained(records) -> list:
    """[(tensor, its producer)] for the tensors that asked to .retain_grad() and were computed
    by one of `records`, in the records' order."""
    position = {rec: n for n, rec in enumerate(records)}
    found = [(t, p) for t in list(RETAINED)
             if t._retain and (p := producer(t)) is not None and p[0] in position]
    return sorted(found, key=lambda tp: (position[tp[1][0]], tp[1][1]))
