"""Kernel nodes: the unit of the schedule that fusion produces and code generation consumes.

A kernel node is `Node(op="kernel", inputs, params={"kind": KIND, "body": Graph}, outputs)`.
Its body is a closed graph whose inputs correspond one-to-one to the node's inputs and whose
outputs are the node's outputs. Kinds:

  elementwise  elementwise ops (with NumPy broadcasting), converts, constants, broadcast_to;
               every output has the kernel's iteration shape (the largest output shape)
  reduce       an elementwise prologue feeding reductions over the same axes, plus an
               optional elementwise epilogue on the reduced values
  rowwise      reductions over the last axis whose results are broadcast back and combined
               with the row (softmax, layernorm): one kernel, one or two passes per row
  matmul       one matmul, plus an optional elementwise epilogue (bias, activation)
  opaque       any single other op (shape ops, take, scatter_add, sort, cumsum, ...)

An optimized graph's top-level nodes are all kernel nodes; `lowered.schedule` lists them.

What fusion guarantees about a body (ir/passes/fusion_rules.py checks it; `analyze_kernel(node)`
there returns the kernel's domain D, reduced axes R and every body value's index map):
- Besides the kind's own ops, bodies of elementwise / reduce / rowwise / matmul kernels hold only
  elementwise ops, constants, broadcast_to, and reshapes that only insert or remove size-1 axes.
- Index maps: the kernel iterates over a domain D (elementwise: the output shape; reduce and
  rowwise: the common input shape of its reductions, reduced over axes R — for rowwise R is the
  last axis; matmul: the product's shape). Every body value v is indexed from a point of D by one
  map: per axis of v, an axis of D, or None for a size-1 axis (read at 0). Broadcasting
  right-aligns an operand's axes with its result's; a size-1 reshape keeps the non-unit axes in
  order; a reduction's input has R at its reduced axes. A value never needs two different maps,
  so it can be computed once per point (per row, for values without R in a rowwise kernel).
- Outputs cover D (map = the non-unit axes of D in order) or, in reduce / rowwise kernels, D
  without R (one value per reduced element: reduction results and the epilogue).
- matmul: the matmul's operands are body inputs, or a transpose of the last two axes of a body
  input (read it as a transposed BLAS operand); every other node is epilogue on the product.
"""
from __future__ import annotations

from .builder import Builder
from .errors import ShapeError
from .graph import Graph, Node, Value
from .interpreter import interpret
from .ops import Op
from .registry import KIND

KERNEL = Op.kernel
KINDS = ("elementwise", "reduce", "rowwise", "matmul", "opaque")


def type_rule(op, in_types, params):
    body = params["body"]
    if params.get("kind") not in KINDS:
        raise ShapeError(f"kernel: unknown kind {params.get('kind')!r}")
    want = [v.type for v in body.inputs]
    if list(in_types) != want:
        raise ShapeError("kernel: inputs " + ", ".join(map(str, in_types)) +
                         " do not match its body's inputs " + ", ".join(map(str, want)))
    return [v.type for v in body.outputs]


def reference(*arrays, kind, body):
    return tuple(interpret(body, arrays))


def make_kernel(kind: str, body: Graph, inputs) -> Node:
    """A kernel node running `body` on `inputs` (fresh output Values typed like the body's)."""
    outs = tuple(Value(v.type) for v in body.outputs)
    node = Node(KERNEL, tuple(inputs), {"kind": kind, "body": body}, outs,
                ", ".join(sorted({n.source_info for n in body.nodes if n.source_info})) or None)
    type_rule(KERNEL, [v.type for v in inputs], node.params)
    return node


def kind_of(op) -> str:
    """The kernel kind a single op gets when it is not fused with anything."""
    return _KERNEL_KIND.get(KIND.get(op), "elementwise" if op in (Op.constant, Op.broadcast_to)
                            else "opaque")


_KERNEL_KIND = {"elementwise": "elementwise", "reduce": "reduce", "matmul": "matmul"}


def single_op_kernel(node: Node, name: str = "k") -> Node:
    """Wrap one node in a kernel of its own (the unfused schedule)."""
    b = Builder(Graph(name=name))
    ins = [b.add_input(v.type) for v in node.inputs]
    outs = b.emit(node.op, ins, node.params, node.source_info)
    b.graph.outputs = list(outs)
    k = make_kernel(kind_of(node.op), b.graph, node.inputs)
    k.outputs = node.outputs          # keep the outer SSA values
    return k


def unfused_schedule(g: Graph) -> Graph:
    """Every node in its own kernel: the schedule with fusion switched off."""
    out = Graph(list(g.inputs), [], list(g.outputs), g.name, g.arg_names)
    out.nodes = [n if n.op == KERNEL else single_op_kernel(n, f"k{i}") for i, n in enumerate(g.nodes)]
    return out


def kernel_nodes(optimized: Graph, schedule) -> list:
    """The kernel nodes a backend runs: the schedule when it is one, else one kernel per node."""
    if schedule and all(getattr(n, "op", None) == KERNEL for n in schedule):
        return list(schedule)
    if optimized.nodes and all(n.op == KERNEL for n in optimized.nodes):
        return list(optimized.nodes)
    return unfused_schedule(optimized).nodes
