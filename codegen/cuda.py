"""The CUDA backend for @jit: a schedule of kernel nodes -> numba.cuda kernels + a host launcher.

    BACKENDS["cuda"](graph, optimized, schedule, plan) -> Executable

Elementwise kernels (fused chains, broadcasting, multiple outputs) become ONE generated
numba.cuda kernel each: a grid-stride loop whose body is written by the CPU generator's
Evaluator and iteration spaces (codegen/evaluator.py, codegen/space.py) with the CUDA expression
table (codegen/cuda_exprs.py) in place of the CPU one — the renderer shares the CPU structure and
overrides only the op table and the kernel prologue (no @njit; a grid-stride `while`).

Other kinds (reduce, rowwise, matmul, opaque) run their body op by op with the eager per-op
kernels (codegen/cuda_eager.py: block-per-row reductions with warp shuffles, tiled matmul), so
every jitted graph runs on the device today; fusing those kinds into single kernels is the next
step (see the report in the issue). Everything is queued on the device's one stream, in order,
with no host synchronization between kernels; intermediates come from the caching allocator,
which recycles a dead intermediate's block for the next one of its size class.
"""
from __future__ import annotations

import math
import re

import numpy as np

from ..ir.kernel import KERNEL, unfused_schedule
from ..runtime import config, cuda_device
from . import cuda_eager, cuda_exprs
from .buffer import CSE, IndentedBuffer
from .cuda_kernels import grid_stride
from .cuda_source import NUMBA_TYPE, KernelSource, module_text
from .evaluator import Evaluator, array_constants
from .space import flat_space


def _kernel_nodes(optimized, schedule):
    if schedule and all(getattr(n, "op", None) == KERNEL for n in schedule):
        return list(schedule)
    if optimized.nodes and all(n.op == KERNEL for n in optimized.nodes):
        return list(optimized.nodes)
    return unfused_schedule(optimized).nodes


def gen_elementwise(name, node) -> tuple:
    """(KernelSource, array-constant Literals) of a fused elementwise kernel node. Parameters:
    the node's inputs, its body's array constants, its outputs (all flat)."""
    body = node.params["body"]
    consts = array_constants(body)
    arrays = {v: f"in{k}" for k, v in enumerate(body.inputs)}
    arrays.update({n.outputs[0]: f"c{k}" for k, n in enumerate(consts)})
    outs: dict = {}
    for k, v in enumerate(body.outputs):
        outs.setdefault(v, []).append(f"out{k}")
    shape = max((v.type.shape for v in body.outputs), key=math.prod)
    n = math.prod(shape)
    params = list(arrays.values()) + [o for names in outs.values() for o in names]
    ctx = cuda_exprs.ExprContext()
    buf = IndentedBuffer()
    with buf.indent(f"def {name}({', '.join(params)}):"):
        with grid_stride(buf, str(n)):
            cse = CSE(buf)
            space = flat_space(shape, "i", cse)
            ev = Evaluator(ctx, body, arrays, lambda v: space, cse,
                           expr_table=cuda_exprs.scalar_expr)
            for v, names in outs.items():
                e = ev.expr(v)
                for o in names:
                    buf.writeline(f"{o}[{space.offset(v.type.shape)}] = {e}")
            buf.writeline("i += step")
    dtypes = [v.type.dtype for v in body.inputs] + [c.outputs[0].type.dtype for c in consts] + \
        [v.type.dtype for v in body.outputs]
    comment = f"kernel {name} (elementwise) from {node.source_info or 'unknown source'}\n" + \
        "\n".join(f"  {line}" for line in str(body).splitlines())
    text = module_text(comment, ctx.prologue(), buf._lines)
    src = KernelSource(name, text, tuple(f"{NUMBA_TYPE[np.dtype(d)]}[::1]" for d in dtypes))
    return src, [c.params["value"] for c in consts]


class _FusedElementwise:
    """One launch of a generated kernel."""

    def __init__(self, node, name, index):
        src, consts = gen_elementwise(name, node)
        self.source = src.text
        self.kernel = cuda_eager.jit_source(src)
        self.node, self.index = node, index
        self.consts = [cuda_eager.upload(np.asarray(c.array), index) for c in consts]
        self.n = math.prod(max((v.type.shape for v in node.outputs), key=math.prod))

    def __call__(self, env):
        outs = [cuda_eager.empty(v.type.shape, v.type.dtype, self.index) for v in self.node.outputs]
        if self.n:
            args = [env[v] for v in self.node.inputs] + self.consts + outs
            cuda_eager.launch(self.kernel, *cuda_eager.grid_1d(self.n),
                              *(cuda_eager.flat(a) for a in args), index=self.index)
        env.update(zip(self.node.outputs, outs))


class _OpByOp:
    """A kernel whose kind has no fused CUDA generator yet: its body's ops, each an eager kernel."""

    def __init__(self, node, name, index):
        self.node, self.source = node, f"# {name} ({node.params['kind']}): per-op eager kernels\n"

    def __call__(self, env):
        body = self.node.params["body"]
        local = {b: env[v] for b, v in zip(body.inputs, self.node.inputs)}
        for n in body.nodes:
            arrays = [local[v] for v in n.inputs]
            local.update(zip(n.outputs, cuda_eager.run(n.op, arrays, n.params,
                                                       [v.type for v in n.outputs])))
        env.update((v, local[b]) for b, v in zip(body.outputs, self.node.outputs))


class _Runner:
    """run(arrays) -> device arrays: upload host inputs, launch every step on the stream."""

    def __init__(self, graph, steps, index):
        self.graph, self.steps, self.index = graph, steps, index

    def __call__(self, arrays):
        env = {}
        for v, a in zip(self.graph.inputs, arrays):
            env[v] = cuda_eager.upload(a, self.index) if isinstance(a, np.ndarray) else a
        for step in self.steps:
            step(env)
        return [env[v] for v in self.graph.outputs]


def compile_cuda(graph, optimized, schedule, plan, index=0):
    from ..compiler import Executable
    nodes = _kernel_nodes(optimized, schedule)
    steps = []
    for i, node in enumerate(nodes):
        name = re.sub(r"\W", "_", f"{graph.name}_k{i}")
        step = None
        if node.params["kind"] == "elementwise":
            try:
                step = _FusedElementwise(node, name, index)
            except NotImplementedError as e:     # a body the Evaluator can't express
                config.log(1, f"cuda codegen: {name}: {e}; running it op by op")
        steps.append(step or _OpByOp(node, name, index))
    source = "\n".join(s.source for s in steps)
    config.log(4, source)
    cuda_device.check_available(index)
    return Executable(graph, optimized, _Runner(optimized, steps, index), nodes, plan, source,
                      "cuda")
