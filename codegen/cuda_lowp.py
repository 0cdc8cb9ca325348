"""The CUDA backend refuses the low-precision dtypes (float16, bfloat16, the small ints) with a
clear error instead of a KeyError deep in kernel generation: its kernel tables cover float32,
float64, int32, int64 and bool. On the CPU (eager, interpreter, LLVM units) they are complete."""
from __future__ import annotations

from ..ir.errors import UnsupportedOpError
from ..ir.graph import Graph
from ..ir.lowp import COMPUTE
from ..ir.types import uint64

LOWP = frozenset(COMPUTE) | {uint64}
_WHY = ("{dtype} is not computed by the cuda backend yet (its kernels cover float32, float64, "
        "int32, int64 and bool); run it on the CPU (.to('cpu'))")


def refuse_lowp_op(op, dtypes) -> None:
    for d in dtypes:
        if d in LOWP:
            raise UnsupportedOpError(op, "cuda", _WHY.format(dtype=d.name))


def refuse_lowp(graph: Graph) -> None:
    """Raise for the first value of a low-precision dtype in `graph` (inputs, nodes, bodies)."""
    for v in graph.inputs:
        refuse_lowp_op("a jit input", [v.type.dtype])
    for n in graph.nodes:
        refuse_lowp_op(n.op, [v.type.dtype for v in n.outputs])
        for p in n.params.values():
            if isinstance(p, Graph):
                refuse_lowp(p)
