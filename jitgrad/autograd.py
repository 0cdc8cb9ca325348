"""Eager, PyTorch-style autograd: ops on tensors that require grad are recorded; `.backward()`
turns the recorded ops into an ir.Graph and differentiates it with ir.autodiff (the one AD)."""
from __future__ import annotations

import weakref


class Record:
    """What one eager op needs for backward: the op, its params, its inputs and their versions."""
    __slots__ = ("op", "params", "inputs", "versions", "outputs", "freed", "datas", "parents",
                 "counters", "grad_leaves", "__weakref__")

    def __init__(self, op, params, inputs, outputs):
        self.op, self.params, self.inputs = op, params, list(inputs)
        self.versions = [x._version[0] for x in inputs]
        self.outputs = [weakref.ref(o) for o in outputs]
        self.freed = False
        # what each input was when the op ran: a recorded in-place op later rebinds a tensor
        # to a new value and producer, and an unrecorded one bumps its storage's counter
        self.datas = [x._data for x in inputs]
        self.parents = [_producer(x) for x in inputs]
        self.counters = [x._version for x in inputs]
        self.grad_leaves = [x._ctx is None and x.requires_grad for x in inputs]

    @property
    def name(self) -> str:
        return str(self.op)

    def __repr__(self):
        return f"<{self.name}>"


def _producer(x):
    """(record, output index) that computed tensor x, or None for a leaf."""
    rec = x._ctx
    if rec is None:
        return None
    return rec, next(i for i, r in enumerate(rec.outputs) if r() is x)


def record(op, params, inputs, outputs) -> None:
    rec = Record(op, params, inputs, outputs)
    for o in outputs:
        if o.dtype.kind in "fc":
            o.requires_grad = True
            o._ctx = rec


def backward(root, gradient=None, retain_graph=False):
    from .autograd_backward import run_backward
    run_backward(root, gradient, retain_graph)
