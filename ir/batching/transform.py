"""The batching transformation: Graph -> Graph (vmap).

batch_graph walks the per-example graph once, in order (no recursion per node): a node none of
whose inputs is batched is copied unchanged (it computes the same thing for every example);
any other node is rewritten by its rule in BATCH_RULES. The result is an ordinary graph built
with the Builder, so it goes through the same passes, fusion and code generation as anything
else, and can be differentiated or batched again (nested vmap).
"""
from __future__ import annotations

from ..builder import Builder
from ..errors import MissingRuleError
from ..graph import Graph, Node, Value
from ..types import TensorType
from .emitter import BatchEmitter
from ..registry import BATCH_RULES


def batched_type(t: TensorType, size: int) -> TensorType:
    return TensorType((size,) + t.shape, t.dtype)


def _copy(b, node, inputs):
    outs = tuple(Value(v.type) for v in node.outputs)
    b.graph.nodes.append(Node(node.op, tuple(inputs), node.params, outs, node.source_info))
    return outs


def _apply_rule(e, node, args, flags):
    rule = BATCH_RULES.get(node.op)
    if rule is None:
        raise MissingRuleError(node.op, "batching (vmap)")
    e.source_info = node.source_info
    res = rule(e, node, args, flags)
    for old, (new, is_b) in zip(node.outputs, res):
        want = batched_type(old.type, e.size) if is_b else old.type
        if new.type != want:        # a rule bug, caught where it happens
            raise AssertionError(f"batching rule of {node.op} gave {new.type}, expected {want}")
    return res


def batch_graph(graph: Graph, in_batched, size: int, force_out=None):
    """Batch `graph` over `size` examples.

    in_batched[i]: whether input i carries a leading batch axis (its type becomes [size, ...]).
    force_out[i]: make output i batched even if it does not depend on a batched input.
    Returns (graph, out_batched): outputs that are batched carry the batch axis first."""
    b = Builder(Graph(name=f"{graph.name}_vmap", arg_names=graph.arg_names))
    e = BatchEmitter(b, size)
    env = {}
    for v, is_b in zip(graph.inputs, in_batched):
        env[v] = (b.add_input(batched_type(v.type, size) if is_b else v.type), bool(is_b))
    for node in graph.nodes:
        args = [env[v][0] for v in node.inputs]
        flags = [env[v][1] for v in node.inputs]
        if any(flags):
            env.update(zip(node.outputs, _apply_rule(e, node, args, flags)))
        else:
            env.update((v, (o, False)) for v, o in zip(node.outputs, _copy(b, node, args)))
    e.source_info = None
    force_out = force_out or [False] * len(graph.outputs)
    outs = [env[v] for v in graph.outputs]
    outs = [(e.batched(v, is_b), True) if f else (v, is_b) for (v, is_b), f in zip(outs, force_out)]
    b.graph.outputs = [v for v, _ in outs]
    return b.graph, [is_b for _, is_b in outs]
