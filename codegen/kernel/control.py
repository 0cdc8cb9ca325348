"""A control-flow kernel node (scan, while_loop, cond, switch wrapped by fusion as an opaque
kernel): which op it wraps, its sub-graphs, and where the op's own operands are. Every target
reads it the same way; what each runs it as is its own (codegen/cpu/loops.py: a native loop over
compiled sub-graphs; codegen/cuda/loops.py: a host loop around kernel launches; the native
library: functions of the library)."""
from __future__ import annotations

from ...ir.control_flow import COND, SCAN, SWITCH, WHILE, branches

CONTROL = frozenset({COND, SWITCH, WHILE, SCAN})


def control_op(node):
    """The control-flow op a kernel node wraps, else None."""
    nodes = node.params["body"].nodes
    return nodes[0].op if len(nodes) == 1 and nodes[0].op in CONTROL else None


def operands(node, ins, outs, unread):
    """Where the control-flow op's own inputs and outputs are, from where the kernel node's are
    (fusion dedupes repeated inputs); an output nobody reads gets `unread(nbytes)`."""
    body = node.params["body"]
    inner = body.nodes[0]
    where_in = {v: b for v, b in zip(body.inputs, ins)}
    where_out = {v: b for v, b in zip(body.outputs, outs)}
    bins = [where_in[v] for v in inner.inputs]
    bouts = [where_out[v] if v in where_out else unread(v.type.nbytes) for v in inner.outputs]
    return bins, bouts


def sub_graphs(node) -> list:
    """The sub-graphs of a control-flow kernel node: [body] (scan), [body, cond] (while_loop),
    the branches in index order (cond, switch)."""
    op = control_op(node)
    p = node.params["body"].nodes[0].params
    return {SCAN: lambda: [p["body"]], WHILE: lambda: [p["body"], p["cond"]]}.get(
        op, lambda: branches(op, p))()
