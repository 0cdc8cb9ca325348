"""Automatic batching (vmap) as a graph transformation, the way ir/autodiff does derivatives.

batch_graph(graph, in_batched, size) returns the graph computing `graph` for `size` examples at
once; per-op rules are named by the primitives' records (ir/primitives/; the rules themselves are
in rules.py, control flow and custom_vjp in control.py) and read through BATCH_RULES. Batched values carry the batch axis first. An op with no rule raises
MissingRuleError naming it; UNBATCHABLE lists the ops that need none, with the reason.
"""
from ..registry import BATCH_RULES, UNBATCHABLE
from .transform import batch_graph

__all__ = ["BATCH_RULES", "UNBATCHABLE", "batch_graph"]
