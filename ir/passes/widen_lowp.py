"""widen_lowp: float16/bfloat16 and the small ints computed wide, as the reference computes them.

Every op on a low-precision dtype (ir/lowp.py) becomes: its inputs converted to the compute dtype
(float32, int32 or int64), the op in that dtype, its results converted back. So a float16 add
rounds once, a float16 sum accumulates in float32, a bfloat16 matmul is an sgemm, an int8 add
wraps; the backends see the narrow dtypes only in converts (and in loads/stores of them). Runs
first in the pipeline and is not a kill switch: without it the backends would get ops they do
not compute."""
from __future__ import annotations

from .. import lowp
from ..graph import Graph
from ..ops import Op
from .rewriter import Rewriter


def widen_lowp(graph: Graph) -> Graph:
    if not _has_lowp(graph):
        return graph
    rw = Rewriter(graph, subgraph_pass=widen_lowp)
    for node in graph.nodes:
        ins = rw.inputs(node)
        outs = [v.type.dtype for v in node.outputs]
        if not lowp.needs_widening(node.op, [v.type.dtype for v in ins], outs):
            rw.keep(node, ins)
            continue
        src = node.source_info
        wide_ins = [rw.emit(Op.convert, (v,), {"dtype": lowp.wide(v.type.dtype)}, src)
                    if v.type.dtype in lowp.COMPUTE else v for v in ins]
        res = rw.emit(node.op, wide_ins, lowp.widened_params(node.params), src)
        res = res if isinstance(res, tuple) else (res,)
        rw.replace(node, [r if r.type.dtype == d else rw.emit(Op.convert, (r,), {"dtype": d}, src)
                          for r, d in zip(res, outs)])
    return rw.finish()


def _has_lowp(graph: Graph) -> bool:
    """Any low-precision value, here or in a sub-graph."""
    for v in graph.inputs:
        if v.type.dtype in lowp.COMPUTE:
            return True
    for n in graph.nodes:
        if any(v.type.dtype in lowp.COMPUTE for v in n.outputs):
            return True
        if any(isinstance(p, Graph) and _has_lowp(p) for p in n.params.values()):
            return True
    return False
