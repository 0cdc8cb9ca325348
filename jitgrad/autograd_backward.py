"""Eager `.backward()`: the ops recorded since the leaves become an ir.Graph, ir.autodiff turns it
into its VJP graph, and that runs through the compiler like any other graph. There is one AD;
this is only the bridge from recorded tensors to a graph and back to `.grad`."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .autograd import _producer
from .compiler import compile_graph
from .ir import Builder, Graph, TensorType
from .ir.autodiff import vjp_values
from .ir.interpreter import interpret
from .runtime.device import META
from .tensor import Tensor

_CACHE_SIZE, _HOT = 64, 3
_RUNNERS: OrderedDict = OrderedDict()      # (device, graph text) -> [times seen, compiled run]
_FREED = ("Trying to backward through the graph a second time (or after its saved values were "
          "freed): .backward() frees the recorded graph; pass retain_graph=True to the first "
          ".backward() to backward through it again")


def run_backward(root, gradient=None, retain_graph=False) -> None:
    if not root.requires_grad:
        raise RuntimeError("backward: this tensor does not require grad and has no grad_fn (no "
                           "input of the ops that made it had requires_grad=True)")
    seed = _seed(root, gradient)
    records = _records(root)
    graph, arrays, wrt = _graph(root, records)
    vg = vjp_values(graph, [v for _, v in wrt], out_idx=[0])
    if root.device == META:
        grads = [Tensor._meta(v.type) for _, v in wrt]
    else:
        outs = _runner(vg, root.device)(arrays + [seed])
        grads = [Tensor._wrap(np.asarray(g), root.device) for g in outs[1:]]
    for (t, _), g in zip(wrt, grads):
        t.grad = g if t.grad is None or root.device == META else \
            Tensor._wrap(t.grad._data + g._data, root.device)
    if not retain_graph:
        for rec in records:
            rec.freed, rec.datas = True, None


def _runner(graph, device):
    """How to run a gradient graph, tiered like a JIT: the reference interpreter for the first
    runs (compiling costs far more than one small backward), then, once the same graph comes
    back HOT times (a training loop), the compiled executable. Keyed by the IR text (it names
    every shape, dtype and constant); a small LRU."""
    key = (str(device), str(graph))
    entry = _RUNNERS.pop(key, None) or [0, None]
    entry[0] += 1
    if entry[1] is None and (entry[0] >= _HOT or device.type != "cpu"):  # interpreter: host only
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
    for x, counter, v in zip(rec.inputs, rec.counters, rec.versions):
        if counter[0] != v:
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
        stack.extend((p[0], False) for p in rec.parents if p is not None and p[0] not in seen)
    return order


def _graph(root, records):
    """(graph computing root from its leaves, input arrays, [(tensor, Value)] to get grads of):
    leaves that require grad, and recorded results that asked to .retain_grad()."""
    b = Builder(Graph(name="backward"))
    values, leaves, arrays, consts = {}, {}, [], {}

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
        ins = [values[p] if p is not None else leaf(x) if is_leaf else const(d)
               for x, d, p, is_leaf in zip(rec.inputs, rec.datas, rec.parents, rec.grad_leaves)]
        outs = b.emit(rec.op, ins, rec.params)
        values.update(((rec, i), v) for i, v in enumerate(outs))
    b.graph.outputs = [values[_producer(root)] if root._ctx is not None else leaf(root)]
    retained = [(t, values[(rec, i)]) for rec in records for i, r in enumerate(rec.outputs)
                if (t := r()) is not None and t._retain and _producer(t) == (rec, i)]
    return b.graph, arrays, list(leaves.values()) + retained
