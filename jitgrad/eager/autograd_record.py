"""Eager, PyTorch-style autograd recording: ops on tensors that require grad leave a Record on
their outputs; `.backward()` (eager/backward.py) turns the records into an ir.Graph.

A Record is cheap to make, since every eager op on a tensor that requires grad makes one: the
per-input facts live in one flat tuple (`ins`, STRIDE entries per input), and a one-output op
keeps no reference to its output (the output's `_ctx` names the record; output index 0). Few
container objects per op also means fewer of Python's garbage-collector passes in a training
step. Tensors that asked to `.retain_grad()` are kept in RETAINED (weakly) for the backward.
"""
from __future__ import annotations

import weakref

from ..ir.types import kind_of

STRIDE = 7      # per input: tensor, data, version counter, its value, producer, index, grad leaf
RETAINED: "weakref.WeakSet" = weakref.WeakSet()


class Record:
    """What one eager op needs for backward: the op, its params, and per input the tensor, its
    data and version when the op ran, and the record (and output index) that produced it."""
    __slots__ = ("op", "params", "ins", "outs", "n_outputs", "freed", "born", "__weakref__")

    def __init__(self, op, params, inputs, outputs):
        self.op, self.params, self.freed = op, params, False
        versions = tuple([o._version[0] for o in outputs])
        self.born = versions if any(versions) else None
        n = self.n_outputs = len(outputs)
        # one output: its _ctx is this record (index 0); several: weak references, for indices
        self.outs = None if n == 1 else [weakref.ref(o) for o in outputs]
        if len(inputs) == 2:        # binary ops, unrolled (the eager fast path's common case)
            a, b = inputs
            ca, cb, pa, pb = a._version, b._version, a._ctx, b._ctx
            self.ins = (a, a._data, ca, ca[0], pa, 0 if pa is None or pa.outs is None
                        else output_index(pa, a), pa is None and a.requires_grad,
                        b, b._data, cb, cb[0], pb, 0 if pb is None or pb.outs is None
                        else output_index(pb, b), pb is None and b.requires_grad)
            return
        flat = []
        for x in inputs:
            c, p = x._version, x._ctx
            flat += (x, x._data, c, c[0], p, 0 if p is None or p.outs is None
                     else output_index(p, x), p is None and x.requires_grad)
        self.ins = tuple(flat)

    # per-input views of `ins` (the backward reads them once per call)
    @property
    def inputs(self):
        return self.ins[0::STRIDE]

    @property
    def datas(self):
        return self.ins[1::STRIDE]

    @property
    def parents(self):
        """(record, output index) that produced each input, or None for a leaf / constant."""
        ins = self.ins
        return [None if ins[i] is None else (ins[i], ins[i + 1])
                for i in range(4, len(ins), STRIDE)]

    @property
    def grad_leaves(self):
        return self.ins[6::STRIDE]

    def born_version(self, index) -> int:
        """The version output `index` had when this op computed it (a later write in place,
        unrecorded, moves its counter on)."""
        return 0 if self.born is None else self.born[index]

    def versions(self):
        """(tensor, its version counter, the counter's value when the op ran) per input."""
        ins = self.ins
        return [(ins[i], ins[i + 2], ins[i + 3]) for i in range(0, len(ins), STRIDE)]

    def free(self) -> None:
        """Drop what the op saved (after a backward without retain_graph)."""
        self.freed, self.ins = True, ()

    def outputs(self):
        """The op's outputs still alive, as (index, tensor); [] for a one-output op (whose
        output is any tensor whose _ctx is this record)."""
        if self.outs is None:
            return []
        return [(i, t) for i, r in enumerate(self.outs) if (t := r()) is not None]

    def rebind_output(self, old, new) -> None:
        """`new` now stands for output `old` (an in-place op rebinding a tensor)."""
        if self.outs is not None:
            self.outs = [weakref.ref(new) if r() is old else r for r in self.outs]

    @property
    def name(self) -> str:
        return str(self.op)

    def __repr__(self):
        return f"<{self.name}>"


def output_index(rec, x) -> int:
    if rec.outs is None:
        return 0
    return next(i for i, r in enumerate(rec.outs) if r() is x)


def producer(x):
    """(record, output index) that computed tensor x, or None for a leaf."""
    rec = x._ctx
    if rec is None:
        return None
    return rec, 0 if rec.outs is None else output_index(rec, x)


def record(op, params, inputs, outputs) -> None:
    rec = Record(op, params, inputs, outputs)
    for o in outputs:
        if kind_of(o.dtype) in "fc":
            o.requires_grad = True
            o._ctx = rec


_new = object.__new__
NO_PARAMS: dict = {}      # the params of a direct call (eager/dispatch.py): none


def record_pair(op, a, b, out, params=NO_PARAMS) -> None:
    """`record_differentiable(op, params, (a, b), (out,))`, flat: the eager operators' record
    (one Python frame for the Record's fields, as Record.__init__ sets them for two inputs and
    one output, and the output's)."""
    rec = _new(Record)
    rec.op = op
    rec.params = params
    rec.freed = False
    rec.n_outputs = 1
    rec.outs = None
    rec.born = None         # `out` is new: version 0
    ca, cb, pa, pb = a._version, b._version, a._ctx, b._ctx
    rec.ins = (a, a._data, ca, ca[0], pa, 0 if pa is None or pa.outs is None
               else output_index(pa, a), pa is None and a.requires_grad,
               b, b._data, cb, cb[0], pb, 0 if pb is None or pb.outs is None
               else output_index(pb, b), pb is None and b.requires_grad)
    out.requires_grad = True
    out._ctx = rec


def record_one(op, a, out, params=NO_PARAMS) -> None:
    """`record_differentiable(op, params, (a,), (out,))`, flat (see record_pair)."""
    rec = _new(Record)
    rec.op = op
    rec.params = params
    rec.freed = False
    rec.n_outputs = 1
    rec.outs = None
    rec.born = None         # `out` is new: version 0
    c, p = a._version, a._ctx
    rec.ins = (a, a._data, c, c[0], p, 0 if p is None or p.outs is None else output_index(p, a),
               p is None and a.requires_grad)
    out.requires_grad = True
    out._ctx = rec


def record_differentiable(op, params, inputs, outputs) -> None:
    """`record` for outputs the caller knows are float or complex (the eager fast path)."""
    rec = Record(op, params, inputs, outputs)
    for o in outputs:
        o.requires_grad = True
        o._ctx = rec
