"""Tracer: a value inside a trace (an ir.Value, plus its concrete array in a concrete trace).
Python asking it for a concrete value (bool(), float(), .item(), NumPy conversion) raises
ConcretizationError with the user's line unless the trace computes values. A tracer used after
its trace ended (leaked through a list, a global or an attribute) raises UnexpectedTracerError
naming where it was made, as JAX's."""
from __future__ import annotations

import numpy as np

from ..eager.array_base import ArrayOps
from ..errors import ConcretizationError, UnexpectedTracerError
from ..runtime.device import CPU
from .source_info import user_source_info


class Tracer(ArrayOps):
    """A value inside a trace: an ir.Value, plus its concrete array in concrete traces."""
    __slots__ = ("_trace", "_value", "_concrete", "_weak")
    __array_priority__ = 1000

    def __init__(self, trace, value, concrete=None, weak=False):
        self._trace, self._value, self._concrete, self._weak = trace, value, concrete, weak

    shape = property(lambda self: self._value.type.shape)
    dtype = property(lambda self: self._value.type.dtype)
    _type = property(lambda self: self._value.type)

    @property
    def device(self):
        return getattr(self._trace, "device", CPU)

    requires_grad = False

    def _concrete_or_raise(self, what: str):
        if not self._trace.alive:
            raise leaked_tracer_error(self)
        if self._concrete is not None:
            return self._concrete
        raise ConcretizationError(
            f"{what} needs a concrete value, but this is a traced value of type "
            f"{self._value.type} inside a jitted or transformed function"
            + (f" (at {user_source_info()})" if user_source_info() else "")
            + ". Python control flow cannot depend on traced values: use jg.where / "
              "jnp.where to select elementwise, jg.cond / jg.while_loop / jg.fori_loop for "
              "control flow, or mark the argument static with static_argnums.")

    def __bool__(self):
        return bool(self._concrete_or_raise("bool() (e.g. `if x > 0:`)"))

    def __float__(self):
        return float(self._concrete_or_raise("float()"))

    def __int__(self):
        return int(self._concrete_or_raise("int()"))

    def __index__(self):
        return int(self._concrete_or_raise("using a value as a Python index"))

    def item(self):
        return self._concrete_or_raise(".item()").item()

    def tolist(self):
        return self._concrete_or_raise(".tolist()").tolist()

    def numpy(self):
        return np.array(self._concrete_or_raise(".numpy()"))

    def __array__(self, dtype=None, copy=None):
        a = self._concrete_or_raise("converting to a NumPy array")
        return a if dtype is None else a.astype(dtype)

    def __str__(self):
        if not self._trace.alive:
            raise leaked_tracer_error(self)
        return repr(self)

    def __repr__(self):
        if not self._trace.alive:
            return (f"Traced<{self._value.type}> (leaked: its trace of "
                    f"{self._trace.graph.name} has ended)")
        if self._concrete is not None:
            return f"Traced<{self._value.type}>({np.array2string(self._concrete)})"
        return f"Traced<{self._value.type}>"


def weak_typed(x: Tracer, weak: bool = True) -> Tracer:
    """The same traced value, weakly typed or not (JAX's weak_type): promotion treats a weak
    one as a Python scalar of its kind."""
    return x if x._weak == weak else Tracer(x._trace, x._value, x._concrete, weak)


def leaked_tracer_error(x: Tracer) -> UnexpectedTracerError:
    """The error for using `x` after its trace ended: what it is, where it was made, where it
    is used now."""
    trace = x._trace
    made = next((n.source_info for n in reversed(trace.graph.nodes) if x._value in n.outputs),
                None)
    origin = (f"created at {made}" if made else "an argument") + f" while tracing {trace.graph.name}"
    here = user_source_info()
    return UnexpectedTracerError(
        f"a traced value of type {x._value.type} ({origin}) was used after that trace ended"
        + (f" (at {here})" if here else "") + ": it leaked out of the jitted or transformed "
        "function, through a list, a global or an attribute it was stored in. Return it from "
        "the function instead (or pass it in as an argument).")
