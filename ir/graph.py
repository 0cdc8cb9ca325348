"""Value, Node, Graph: the SSA graph IR. Values carry identity and a type; names exist only in print."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from .types import TensorType, canonical_dtype

INLINE_LIMIT = 16          # constants with more elements print as @digest references


class Value:
    """An SSA value. Identity only: two Values are the same value iff they are the same object."""
    __slots__ = ("type", "__weakref__")

    def __init__(self, type: TensorType):
        self.type = type

    def __repr__(self):
        return f"<Value {self.type} at {id(self):#x}>"


class Literal:
    """An immutable array held by a `constant` node; hashed and compared by content."""
    __slots__ = ("array", "digest")

    def __init__(self, array):
        a = np.array(array, dtype=canonical_dtype(np.asarray(array).dtype), copy=True)
        a.flags.writeable = False
        self.array = a
        h = hashlib.sha256(f"{a.dtype.str}{a.shape}".encode())
        h.update(np.ascontiguousarray(a).tobytes())
        self.digest = h.hexdigest()[:16]

    shape = property(lambda self: self.array.shape)
    dtype = property(lambda self: self.array.dtype)
    size = property(lambda self: self.array.size)

    def __eq__(self, other):
        return isinstance(other, Literal) and self.digest == other.digest

    def __hash__(self):
        return hash(self.digest)

    def __repr__(self):
        return f"Literal({self.array!r})"


@dataclass(eq=False)
class Node:
    op: object                    # ops.Op, or a registered extra op name (kernel, cond, ...)
    inputs: tuple
    params: dict
    outputs: tuple
    source_info: str | None = None

    @property
    def output(self) -> Value:
        (v,) = self.outputs
        return v


@dataclass(eq=False)
class Graph:
    inputs: list = field(default_factory=list)
    nodes: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    name: str = "main"
    arg_names: list | None = None     # printing names of the inputs (the traced function's args)

    def consumers(self) -> dict:
        """Value -> list of nodes reading it (computed on demand, never cached)."""
        users = {}
        for n in self.nodes:
            for v in n.inputs:
                users.setdefault(v, []).append(n)
        return users

    def producers(self) -> dict:
        return {v: n for n in self.nodes for v in n.outputs}

    @property
    def constants(self) -> dict:
        """digest -> array for every constant too large to print inline."""
        out = {}
        for n in self.walk_nodes():
            lit = n.params.get("value") if n.op == "constant" else None
            if lit is not None and lit.size > INLINE_LIMIT:
                out[lit.digest] = lit.array
        return out

    def walk_nodes(self):
        """Every node, including those inside sub-graphs held as params."""
        for n in self.nodes:
            yield n
            for p in n.params.values():
                for g in (p if isinstance(p, tuple) else (p,)):
                    if isinstance(g, Graph):
                        yield from g.walk_nodes()

    # str(graph) and repr(graph) are the IR's text form: printer.py (which imports this module,
    # and which ir/__init__.py always loads) installs them
