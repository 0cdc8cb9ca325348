"""Eager, PyTorch-style autograd recording: ops on tensors that require grad leave a Record on
their outputs; `.backward()` (eager/backward.py) turns the records into an ir.Graph."""
from __future__ import annotations

import weakref

from ..ir.types import kind_of


class Record:
    """What one eager op needs for backward: the op, its params, its inputs and their versions."""
    __slots__ = ("op", "params", "inputs", "versions", "outputs", "freed", "datas", "parents",
                 "counters", "grad_leaves", "__weakref__")

    def __init__(self, op, params, inputs, outputs):
        self.op, self.params, self.inputs = op, params, list(inputs)
        self.outputs = [weakref.ref(o) for o in outputs]
        self.freed = False
        # what each input was when the op ran: a recorded in-place op later rebinds a tensor
        # to a new value and producer, and an unrecorded one bumps its storage's counter
        if len(inputs) == 2:        # binary ops, unrolled (the eager fast path's common case)
            a, b = inputs
            ca, cb = a._version, b._version
            self.counters, self.versions = [ca, cb], [ca[0], cb[0]]
            self.datas = [a._data, b._data]
            self.parents = [None if a._ctx is None else producer(a),
                            None if b._ctx is None else producer(b)]
            self.grad_leaves = [a._ctx is None and a.requires_grad,
                                b._ctx is None and b.requires_grad]
            return
        self.counters = [x._version for x in inputs]
        self.versions = [c[0] for c in self.counters]
        self.datas = [x._data for x in inputs]
        self.parents = [None if x._ctx is None else producer(x) for x in inputs]
        self.grad_leaves = [x._ctx is None and x.requires_grad for x in inputs]

    @property
    def name(self) -> str:
        return str(self.op)

    def __repr__(self):
        return f"<{self.name}>"


def producer(x):
    """(record, output index) that computed tensor x, or None for a leaf."""
    rec = x._ctx
    if rec is None:
        return None
    outs = rec.outputs
    if len(outs) == 1 and outs[0]() is x:       # the common case: a one-output op
        return rec, 0
    return rec, next(i for i, r in enumerate(outs) if r() is x)


def record(op, params, inputs, outputs) -> None:
    rec = Record(op, params, inputs, outputs)
    for o in outputs:
        if kind_of(o.dtype) in "fc":
            o.requires_grad = True
            o._ctx = rec


def record_differentiable(op, params, inputs, outputs) -> None:
    """`record` for outputs the caller knows are float or complex (the eager fast path)."""
    rec = Record(op, params, inputs, outputs)
    for o in outputs:
        o.requires_grad = True
        o._ctx = rec

