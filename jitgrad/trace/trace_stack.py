"""The stack of graphs being recorded (one per nested transformation, per thread): `new_trace`
opens one, `current_trace` is the innermost, and `Trace.lift` brings values from outside into
a trace (outer tracers become captured inputs, eager tensors constants)."""
from __future__ import annotations

import contextlib
import threading

import numpy as np

from ..ir import Builder
from ..ir.types import TensorType
from ..eager.tensor import Tensor
from ..runtime.device import CPU, META
from .source_info import user_source_info
from .tracer import Tracer, leaked_tracer_error


class _TraceState(threading.local):
    traces = None


_state = _TraceState()


def _stack() -> list:
    s = _state.traces
    if s is None:
        s = _state.traces = []
    return s

class Trace:
    """A graph being recorded. `concrete` traces also compute values while recording."""

    def __init__(self, concrete: bool = False, name: str = "main"):
        self.builder = Builder()
        self.builder.graph.name = name
        self.concrete = concrete
        self.captures = []        # [(graph input Value, outer Tracer)] closed-over outer values
        self._lifted = {}         # id(obj) -> (obj, Value): each outer object lifted once
        self._scalars = {}        # (dtype, number) -> its 0-d tensor (Trace.scalar)
        self.level = 0
        self.alive = True         # False once recorded: its tracers must not be used again

    @property
    def graph(self):
        return self.builder.graph

    def new_input(self, type: TensorType, concrete=None, weak=False) -> "Tracer":
        return Tracer(self, self.builder.add_input(type), concrete, weak)

    def scalar(self, value, dtype):
        """The Python int or float `value` as a 0-d eager tensor of `dtype`, one per (dtype,
        value) in this trace: lifted once (`_lifted`), it is one constant node however often
        the function uses it (`0.9 * m` in every leaf's update), and ops that look at a known
        operand (an integer power's sign check) still see its value. Floats are told apart by
        their bits (-0.0 is not 0.0)."""
        key = (dtype, value.hex() if type(value) is float else value)
        t = self._scalars.get(key)
        if t is None:
            t = self._scalars[key] = Tensor._wrap(np.asarray(value, dtype=dtype), CPU)
        return t

    def lift(self, x):
        if isinstance(x, Tracer) and x._trace is self:
            return x._value
        hit = self._lifted.get(id(x))
        if hit is not None:
            return hit[1]
        if isinstance(x, Tracer):
            if not x._trace.alive:
                raise leaked_tracer_error(x)
            if x._trace.level > self.level:
                raise RuntimeError("a value from an inner transformation escaped into an outer one "
                                   "(did a traced value leak out through a global or closure?)")
            v = self.builder.add_input(x._value.type)
            self.captures.append((v, x))
        else:
            if x.device == META:
                raise ValueError("a meta tensor has no data and cannot be captured as a constant")
            v = self.builder.constant(x._data, user_source_info())
        self._lifted[id(x)] = (x, v)
        return v


@contextlib.contextmanager
def new_trace(concrete=False, name="main"):
    t = Trace(concrete, name)
    stack = _stack()
    t.level = len(stack) + 1
    stack.append(t)
    try:
        yield t
    finally:
        stack.pop()
        t.alive = False


def current_trace() -> Trace | None:
    s = _stack()
    return s[-1] if s else None


def top_trace(inputs):
    """The innermost trace any of `inputs` belongs to (None: all are eager);
    UnexpectedTracerError for a tracer whose trace has ended (it leaked out)."""
    top = None
    for x in inputs:
        if isinstance(x, Tracer):
            t = x._trace
            if not t.alive:
                raise leaked_tracer_error(x)
            if top is None or t.level > top.level:
                top = t
    return top
