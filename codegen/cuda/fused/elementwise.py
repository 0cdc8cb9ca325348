"""Elementwise kernels on CUDA: a grid-stride loop over the ElementwiseNest's collapsed shape (one
flat index, unravelled by divmod over the collapsed dims an operand spans), 128-bit vectors when
the arrays are aligned."""
from __future__ import annotations

from ....ir.passes.fusion_rules import analyze_kernel
from ...kernel.buffer import CSE
from ...kernel.nest import elementwise_nest
from ...kernel.space import flat_space
from .. import vectorize as VV
from ..kernels import grid_stride
from ..target import grid_for, threads_for
from .fused_kernel import Fused, FusedKernel


def gen_elementwise(name, node) -> Fused:
    k = FusedKernel(name, node, "elementwise")
    nest = elementwise_nest(k.body, analyze_kernel(node))
    n = nest.size
    vp = VV.plan(k.arrays, k.outs, n)
    with k.header():
        if vp is not None:
            _elementwise_vectors(k, vp, nest)
        with grid_stride(k.buf, str(n)) if vp is None else k.buf.indent(f"while i < {n}:"):
            cse = CSE(k.buf)
            space = flat_space(nest.shape, "i", cse)
            ev = k.evaluator(lambda v: space, cse, shapes=nest.shapes)
            for v in nest.outputs:
                k.store(v, space, ev.expr(v), nest.shapes[v])
            k.buf.writeline("i += step")
    per_thread = vp.lanes if vp is not None else 1
    threads = threads_for(n, per_thread)
    return k.finish((grid_for(n, threads, per_thread),), (threads,))


def _elementwise_vectors(k, vp, nest):
    """The 128-bit path (codegen/cuda/vectorize.py), then `i` at the first element the scalar
    loop after it covers: the tail, or everything when an array is not 16-byte aligned."""
    k.kind = f"elementwise: {vp.lanes}-wide vectors"
    k.extra_imports.append(VV.IMPORT)
    groups, buf = nest.size // vp.lanes, k.buf
    buf.writeline("i = cuda.grid(1)")
    buf.writeline("step = cuda.gridsize(1)")
    with buf.indent(f"if {VV.aligned_check(k.arrays, k.outs, vp)}:   # once per launch"):
        with buf.indent(f"while i < {groups}:"):
            lanes = VV.load_group(buf, k.arrays, vp, "i")
            results = {v: [] for v in nest.outputs}
            for lane in range(vp.lanes):
                cse = CSE(buf, f"l{lane}_")
                space = flat_space(nest.shape, cse.get(f"i * {vp.lanes} + {lane}"), cse)
                ev = k.evaluator(lambda v: space, cse,
                                 {v: names[lane] for v, names in lanes.items()}, nest.shapes)
                for v in nest.outputs:
                    results[v].append(ev.expr(v))
            VV.store_group(buf, k.outs, vp, "i", results)
            buf.writeline("i += step")
        buf.writeline(f"i = {groups * vp.lanes} + cuda.grid(1)   # the scalar tail")
