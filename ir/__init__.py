"""jitgrad's intermediate representation. Imports NumPy only.

types (TensorType, dtypes) · ops (the Op enum) · primitives (one record per op) · registry
(the tables built from them) · graph (Value, Node, Graph)
· builder · printer / parser (one text form, exact round trip) · verifier · reference (NumPy
implementation of every op) · interpreter · config (the one option store every layer reads;
jg.config is its view).
"""
from .builder import Builder
from .errors import MissingRuleError, ParseError, ShapeError, VerifyError
from .graph import Graph, Literal, Node, Value
from .interpreter import interpret
from .ops import Op
from .parser import parse
from .printer import print_graph
from .types import TensorType, parse_type
from .verifier import verify

__all__ = ["Builder", "Graph", "Literal", "MissingRuleError", "Node", "Op", "ParseError",
           "ShapeError", "TensorType", "Value", "VerifyError", "interpret", "parse",
           "parse_type", "print_graph", "verify"]
from . import primitives  # noqa: E402,F401  (registers every primitive's record)
