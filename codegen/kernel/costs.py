"""How much work a CPU kernel is, and the thresholds its loops are shaped by (LLVM units, the
runtime's thread pool, the memory planner's lanes).

A kernel's work is its domain size times `element_cost` of its body: transcendental ops (the
records' cost class) count 9, everything else 1.
"""
from __future__ import annotations

from ...ir.registry import TRANSCENDENTAL

PARALLEL_MIN = 1 << 19      # element-costs; below, waking the other thread costs more than it saves
SUM_BLOCK = 1 << 12         # a long sum is added up in blocks of this many elements


def element_cost(nodes) -> int:
    """The cost of computing one element of a kernel whose body is `nodes`."""
    return 1 + 8 * sum(n.op in TRANSCENDENTAL for n in nodes)
