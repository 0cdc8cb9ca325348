"""Rewriter: copies a graph node by node into a new one, substituting values as it goes.

Passes are pure: they never mutate their input. A pass walks the source nodes, and for each one
either `keep`s it (a new Node with substituted inputs and the same output Values), or `replace`s
its outputs with other values (possibly `emit`ting new nodes first). Sub-graphs held as params
(control flow) are rewritten by the same pass when one is given.
"""
from __future__ import annotations

from ..builder import Builder
from ..graph import Graph, Literal, Node
from ..ops import Op


class Rewriter:
    def __init__(self, src: Graph, subgraph_pass=None):
        self.src = src
        self.graph = Graph(list(src.inputs), [], [], src.name, src.arg_names)
        self.builder = Builder(self.graph)
        self.subst = {}
        self.producer = {}          # Value -> Node in the new graph
        self.subgraph_pass = subgraph_pass

    def get(self, v):
        return self.subst.get(v, v)

    def inputs(self, node):
        return tuple(self.get(v) for v in node.inputs)

    def keep(self, node, inputs=None) -> Node:
        params = node.params
        if self.subgraph_pass is not None and any(isinstance(p, Graph) for p in params.values()):
            params = {k: self.subgraph_pass(p) if isinstance(p, Graph) else p
                      for k, p in params.items()}
        new = Node(node.op, self.inputs(node) if inputs is None else tuple(inputs), params,
                   node.outputs, node.source_info)
        self._append(new)
        return new

    def emit(self, op, inputs, params=None, source_info=None):
        self.builder.emit(op, inputs, params, source_info)
        node = self.graph.nodes[-1]
        for v in node.outputs:
            self.producer[v] = node
        return node.output if len(node.outputs) == 1 else node.outputs

    def constant(self, array, source_info=None):
            return self.emit(Op.constant, (), {"value": Literal(array)}, source_info)

    def replace(self, node, values):
        for old, new in zip(node.outputs, values):
            self.subst[old] = new

    def _append(self, node):
        self.graph.nodes.append(node)
        for v in node.outputs:
            self.producer[v] = node

    def op_of(self, v):
        """The op producing `v` in the new graph (None for graph inputs)."""
        n = self.producer.get(v)
        return None if n is None else n.op

    def finish(self) -> Graph:
        self.graph.outputs = [self.get(v) for v in self.src.outputs]
        return self.graph

    def literal(self, v, through_broadcast=True):
        """The array `v` holds when it is a constant (or a broadcast of one: then the small
        array, which broadcasts to v's shape by NumPy's rules); else None."""
        n = self.producer.get(v)
        if n is not None and n.op == Op.broadcast_to and through_broadcast:
            n = self.producer.get(n.inputs[0])
        if n is not None and n.op == Op.constant:
            return n.params["value"].array
        return None
