"""The verifier: SSA form, types against the type rules, topological order."""
from __future__ import annotations

from .errors import ShapeError, VerifyError
from .graph import Graph
from .printer import print_graph
from .registry import infer_types


def _context(g: Graph, index: int) -> str:
    """The printed IR around node `index`, the bad line marked."""
    lines = print_graph(g).split("\n")
    # line 0 is the header; node i prints on line i+1 (nested graphs excepted)
    lo, hi = max(1, index - 2), min(len(lines), index + 4)
    return "\n".join(("> " if i == index + 1 else "  ") + lines[i] for i in range(lo, hi)
                     if i < len(lines))


def verify(g: Graph) -> Graph:
    """Raise VerifyError naming the first bad node; return the graph unchanged when it is valid."""
    defined = set()
    for v in g.inputs:
        if v in defined:
            raise VerifyError(f"graph {g.name}: input {v} appears twice")
        defined.add(v)
    for i, node in enumerate(g.nodes):
        where = f"node {i} ({node.op}{', ' + node.source_info if node.source_info else ''})"
        for v in node.inputs:
            if v not in defined:
                later = any(v in n.outputs for n in g.nodes[i:])
                why = "a cycle or out-of-order node" if later else "use before definition"
                raise VerifyError(f"{where}: input is not defined before it is used ({why})\n"
                                  + _safe_context(g, i))
        try:
            want = infer_types(node.op, [v.type for v in node.inputs], node.params)
        except ShapeError as e:
            raise VerifyError(f"{where}: {e}\n" + _safe_context(g, i)) from None
        got = [v.type for v in node.outputs]
        if want != got:
            raise VerifyError(f"{where}: declared type {', '.join(map(str, got))} but the type "
                              f"rule gives {', '.join(map(str, want))}\n" + _safe_context(g, i))
        for v in node.outputs:
            if v in defined:
                raise VerifyError(f"{where}: value defined twice (not SSA)\n" + _safe_context(g, i))
            defined.add(v)
        for p in node.params.values():
            if isinstance(p, Graph):
                verify(p)
    for v in g.outputs:
        if v not in defined:
            raise VerifyError(f"graph {g.name}: returns a value that is never defined")
    return g


def _safe_context(g, i):
    try:
        return _context(g, i)
    except KeyError:
        # the graph is too broken to print in full: print the nodes up to the bad one
        return "\n".join(f"  {n.op} ({len(n.inputs)} inputs)" for n in g.nodes[max(0, i - 2):i + 1])
