"""The CUDA backend for @jit: a schedule of kernel nodes -> numba.cuda kernels + a host launcher.

    BACKENDS["cuda"](graph, optimized, schedule, plan) -> Executable

Every elementwise, reduce, rowwise and matmul kernel node becomes ONE generated numba.cuda kernel
(codegen/cuda/fused/: bodies written by the shared Evaluator, codegen/kernel/evaluator.py, with
the CUDA expression table). Opaque kernels (shape ops, take, scatter_add, sort, cumsum, ...)
and the few bodies the generators do not cover (kernel_coverage.why_not: argmax/argmin inside a
fused kernel, integer matmul, ...; logged at JITGRAD_DEBUG=1) run op by op through the eager
per-op kernels (codegen/cuda/eager.py). An op no eager kernel implements either
(kernel_coverage.op_why_not) is an UnsupportedOpError naming the op and the user's line, raised
when the function compiles.

Memory follows the plan (ir/passes/plan_memory.py): each call takes ONE arena of
plan.arena_bytes from the caching allocator and every planned intermediate is a view at its
offset; graph outputs are fresh arrays, donated inputs give their storage. Outputs of op-by-op
kernels come from the allocator instead (ignoring a planned offset never makes two live buffers
share memory). Everything is queued on the device's one stream, in order, with no host
synchronization between kernels; the arena goes back to the allocator when the call returns,
stream-ordered, so the next call's kernels reuse it only after this call's have run.
"""
from __future__ import annotations

import numpy as np

from ...ir import config
from ...ir.errors import UnsupportedOpError, with_source
from ...ir.kernel import kernel_nodes
from ...ir.passes.manager import run_pipeline
from ...runtime import cuda_device
from ...runtime.executable import Executable
from ..kernel import canonical
from ..kernel.control import control_op
from ..kernel.space import c_strides
from . import eager
from .kernel_coverage import op_why_not, why_not
from .fused import GENERATORS
from .loops import CudaLoop


class _Launch:
    """One launch of a generated kernel."""

    def __init__(self, node, fused, index):
        self.node, self.fused, self.index = node, fused, index
        self.name = fused.source.name          # k_<hash>: its canonical name
        self.source = fused.source.text
        self.kernel = eager.jit_source(fused.source)
        self.consts = [eager.upload(np.asarray(c.array), index) for c in fused.constants]
        # scratch the kernel leaves as it found it (a split reduction's partials and ticket)
        self.workspace = [eager.upload(np.zeros(n, dt), index) for dt, n in fused.workspace]

    def __call__(self, env, alloc):
        outs = [alloc(v) for v in self.node.outputs]
        if any(v.type.size for v in self.node.outputs):
            args = [env[v] for v in self.node.inputs] + self.consts + outs + self.workspace
            eager.launch(self.kernel, self.fused.grid, self.fused.block,
                         *(eager.flat(a) for a in args), index=self.index)
        env.update(zip(self.node.outputs, outs))


class _OpByOp:
    """An opaque kernel, or a body the generators do not cover: its ops, each an eager kernel."""

    def __init__(self, node, name, index):
        self.node, self.source = node, f"# {name} ({node.params['kind']}): per-op eager kernels\n"
        self.name = name
        self.index = index
        for n in node.params["body"].nodes:
            why = op_why_not(n.op)
            if why is not None:
                raise UnsupportedOpError(n.op, "cuda", why, n.source_info)

    def __call__(self, env, alloc):
        body = self.node.params["body"]
        local = {b: env[v] for b, v in zip(body.inputs, self.node.inputs)}
        for n in body.nodes:
            arrays = [local[v] for v in n.inputs]
            try:
                outs = eager.run(n.op, arrays, n.params, [v.type for v in n.outputs])
            except (IndexError, ValueError) as e:     # a failed check: name the user's line
                raise with_source(e, n.source_info) from None
            local.update(zip(n.outputs, outs))
        # eager ops may return views of their inputs (reshape): the memory plan gives each
        # output its own buffer and reuses the inputs' buffers afterwards, so copy into it
        for b, v in zip(body.outputs, self.node.outputs):
            out = alloc(v)
            if v.type.size:
                shape = v.type.shape
                eager.strided_copy(out, 0, c_strides(shape), local[b], 0, c_strides(shape),
                                   shape, self.index)
            env[v] = out


class _Runner:
    """run(arrays) -> device arrays: upload host inputs, take the arena, launch every step."""

    def __init__(self, graph, steps, plan, index):
        self.graph, self.steps, self.plan, self.index = graph, steps, plan, index

    def __call__(self, arrays):
        env = {}
        for v, a in zip(self.graph.inputs, arrays):
            env[v] = eager.upload(a, self.index) if isinstance(a, np.ndarray) else a
        plan = self.plan
        arena = eager.empty((plan.arena_bytes,), np.uint8, self.index) \
            if plan is not None and plan.arena_bytes else None

        def alloc(v):
            t = v.type
            if plan is not None and t.nbytes:
                if v in plan.offsets:
                    off = plan.offsets[v]
                    return arena[off:off + t.nbytes].view(t.dtype).reshape(t.shape)
                if v in plan.donated:
                    return eager.flat(env[self.graph.inputs[plan.donated[v]]]) \
                        .view(t.dtype).reshape(t.shape)
            return eager.empty(t.shape, t.dtype, self.index)

        for step in self.steps:
            step(env, alloc)
        return [env[v] for v in self.graph.outputs]


def _compile_sub(graph, index):
    """A control-flow sub-graph through the pass pipeline and this backend."""
    optimized, schedule, plan = run_pipeline(graph)
    return compile_cuda(graph, optimized, schedule, plan, index)


def compile_cuda(graph, optimized, schedule, plan, index=0):
    nodes = kernel_nodes(optimized, schedule)
    steps = []
    for i, node in enumerate(nodes):
        if control_op(node) is not None:     # a loop or branch: a host loop (codegen/cuda/loops.py)
            steps.append(CudaLoop(node, index, lambda g: _compile_sub(g, index)))
            continue
        # named by its canonical text: identical kernels (of this graph or any other) are one
        # module, compiled once per process and cached on disk by numba
        name = f"k_{canonical.digest(node)[:16]}"
        kind = node.params["kind"]
        why = why_not(node) if kind in GENERATORS else None     # opaque kernels: op by op
        if why is not None:
            config.log(1, f"cuda codegen: {name}: {why}; running it op by op")
        steps.append(_Launch(node, GENERATORS[kind](name, node), index)
                     if kind in GENERATORS and why is None else _OpByOp(node, name, index))
    source = "\n".join(s.source for s in steps)
    config.log(4, source)
    cuda_device.check_available(index)
    return Executable(graph, optimized, _Runner(optimized, steps, plan, index), nodes, plan,
                      source, "cuda")
