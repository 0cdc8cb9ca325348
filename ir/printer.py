"""The one text form of the IR. `ir.parse` reads it back exactly (see parser.py)."""
from __future__ import annotations

import re

import numpy as np

from .graph import INLINE_LIMIT, Graph, Literal
from .types import SHORT_NAME, is_bfloat16

COMMENT_COLUMN = 48


def format_scalar(x) -> str:
    if isinstance(x, np.generic) and is_bfloat16(x.dtype):     # not an np.floating: its float32
        x = np.float32(x)                                     # value's text reads back exactly
    if isinstance(x, (bool, np.bool_)):
        return "True" if x else "False"
    if isinstance(x, (complex, np.complexfloating)):      # 1.5-2.0j, read back by the parser
        im = format_scalar(x.imag)
        return f"{format_scalar(x.real)}{'' if im.startswith('-') else '+'}{im}j"
    if isinstance(x, (float, np.floating)):
        if np.isnan(x):
            return "nan"
        if np.isinf(x):
            return "inf" if x > 0 else "-inf"
        # the shortest text that reads back to the same value in the value's own dtype
        text = str(x) if isinstance(x, np.floating) else repr(x)
        return text if any(c in text for c in ".en") else text + ".0"
    return repr(int(x))


def format_param(v, indent: str) -> str:
    if isinstance(v, Literal):
        if v.size > INLINE_LIMIT:
            return "@" + v.digest
        flat = v.array.reshape(-1)
        if v.array.ndim == 0:
            return format_scalar(flat[0])
        return "[" + ",".join(format_scalar(x) for x in flat) + "]"
    if isinstance(v, np.dtype):
        return SHORT_NAME[v]
    if isinstance(v, Graph):
        return print_graph(v, indent).lstrip()
    if isinstance(v, tuple):
        inner = ",".join(format_param(x, indent) for x in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(v, str):
        return '"' + v + '"'
    if v is None or isinstance(v, (bool, int, float, np.integer, np.floating)):
        return "None" if v is None else format_scalar(v)
    raise TypeError(f"cannot print param value {v!r}")


def ident(name: str) -> str:
    """A graph's name as printed (and parsed back): generated code names graphs this way too, so
    a graph read back from its text yields the same kernel source (and cache key)."""
    return re.sub(r"\W", "_", name.strip("<>")) or "graph"


def print_graph(g: Graph, indent: str = "") -> str:
    names = {}
    arg_names = getattr(g, "arg_names", None) or []
    if len(arg_names) != len(g.inputs) or len(set(arg_names)) != len(arg_names):
        arg_names = [f"a{i}" for i in range(len(g.inputs))]
    for v, n in zip(g.inputs, arg_names):
        names[v] = "%" + n
    counter = 0
    lines = []
    args = ", ".join(f"{names[v]}: {v.type}" for v in g.inputs)
    outs = [v.type for v in g.outputs]
    out_t = str(outs[0]) if len(outs) == 1 else "(" + ", ".join(map(str, outs)) + ")"
    lines.append(f"{indent}graph {ident(g.name)}({args}) -> {out_t} {{")
    inner = indent + "  "

    def name(v):
        if v not in names:
            raise KeyError(f"value {v!r} is used before it is defined")
        return names[v]

    for node in g.nodes:
        for v in node.outputs:
            names[v] = f"%{counter}"
            counter += 1
        lhs = ", ".join(names[v] for v in node.outputs)
        parts = [f"{inner}{lhs} = {node.op}"]
        if node.inputs:
            parts.append(" " + ", ".join(name(v) for v in node.inputs))
        for k, v in node.params.items():
            parts.append(f" {k}={format_param(v, inner)}")
        parts.append(" : " + ", ".join(str(v.type) for v in node.outputs))
        text = "".join(parts)
        if node.source_info:
            last = text.rsplit("\n", 1)[-1]
            text += " " * max(1, COMMENT_COLUMN - len(last)) + "# " + node.source_info
        lines.append(text)
    lines.append(f"{inner}return " + ", ".join(name(v) for v in g.outputs))
    lines.append(f"{indent}}}")
    return "\n".join(lines)


# str(graph) / repr(graph) print the graph (graph.py cannot import this module: it imports graph.py)
Graph.__str__ = Graph.__repr__ = print_graph
