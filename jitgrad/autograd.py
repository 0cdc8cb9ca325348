"""Eager, PyTorch-style autograd: ops on tensors that require grad are recorded; `.backward()`
turns the recorded ops into an ir.Graph and differentiates it with ir.autodiff (the one AD)."""
from __future__ import annotations

import weakref


class Record:
    """What one eager op needs for backward: the op, its params, its inputs and their versions."""
    __slots__ = ("op", "params", "inputs", "versions", "outputs", "freed", "__weakref__")

    def __init__(self, op, params, inputs, outputs):
        self.op, self.params, self.inputs = op, params, list(inputs)
        self.versions = [x._version[0] for x in inputs]
        self.outputs = [weakref.ref(o) for o in outputs]
        self.freed = False

    @property
    def name(self) -> str:
        return str(self.op)

    def __repr__(self):
        return f"<{self.name}>"


def record(op, params, inputs, outputs) -> None:
    rec = Record(op, params, inputs, outputs)
    for o in outputs:
        if o.dtype.kind == "f":
            o.requires_grad = True
            o._ctx = rec


def backward(root, gradient=None, retain_graph=False):
    from .autograd_backward import run_backward
    run_backward(root, gradient, retain_graph)
