"""Automatic batching (vmap) as a graph transformation, the way ir/autodiff does derivatives.

batch_graph(graph, in_batched, size) returns the graph computing `graph` for `size` examples at
once; per-op rules live in BATCH_RULES keyed by op (primitives in rules.py, control flow and
custom_vjp in control.py). Batched values carry the batch axis first. An op with no rule raises
MissingRuleError naming it; UNBATCHABLE lists the ops that need none, with the reason.
"""
from .rules import BATCH_RULES, UNBATCHABLE
from .transform import batch_graph

__all__ = ["BATCH_RULES", "UNBATCHABLE", "batch_graph"]
from . import control  # noqa: E402,F401  (rules for cond / while_loop / scan / custom_vjp)
