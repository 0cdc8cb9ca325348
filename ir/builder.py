"""Builder: appends typed nodes to a graph. Tracing, autodiff and passes all emit through it."""
from __future__ import annotations

from .errors import ShapeError
from .graph import Graph, Literal, Node, Value
from .ops import Op
from .registry import infer_types
from .types import TensorType


class Builder:
    def __init__(self, graph: Graph | None = None):
        self.graph = graph if graph is not None else Graph()

    def add_input(self, type: TensorType) -> Value:
        v = Value(type)
        self.graph.inputs.append(v)
        return v

    def emit(self, op, inputs, params=None, source_info=None) -> tuple:
        """Append `op(inputs, **params)`; returns its output Values. Type errors name the source line."""
        params = dict(params or {})
        try:
            types = infer_types(op, [v.type for v in inputs], params)
        except ShapeError as e:
            if source_info and "(at " not in str(e):
                raise ShapeError(f"{e} (at {source_info})") from None
            raise
        outs = tuple(Value(t) for t in types)
        self.graph.nodes.append(Node(op, tuple(inputs), params, outs, source_info))
        return outs

    def emit1(self, op, inputs, params=None, source_info=None) -> Value:
        (v,) = self.emit(op, inputs, params, source_info)
        return v

    def constant(self, array, source_info=None) -> Value:
        return self.emit1(Op.constant, (), {"value": Literal(array)}, source_info)
