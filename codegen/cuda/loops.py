"""Control flow on CUDA: scan, while_loop, cond and switch as a loop on the host around the
compiled sub-graphs' kernel launches.

Each sub-graph (body, condition, branch) is compiled by the CUDA backend like any graph (fused
kernels, its own memory plan); the node runs them from Python: a scan launches the body's kernels
once per step (xs rows copied out and ys rows copied in on the device, the carry passed along as
device arrays), a while_loop reads the condition's flag back to the host each iteration, a cond /
switch reads its index once. Why the host: numba.cuda kernels cannot launch kernels (no dynamic
parallelism from numba), and a device-side loop would need the whole body in one kernel, which
fusion does not produce for a body with matmuls or reductions; the cost is a launch per kernel
per iteration (and one device-to-host read per while iteration), the same as JAX on GPU pays for
a while_loop's predicate.
"""
from __future__ import annotations

import numpy as np

from ...ir.control_flow import COND, SCAN, SWITCH, WHILE
from ...ir.types import TensorType
from ...runtime import cuda_device
from ..kernel.control import control_op, operands, sub_graphs
from ..kernel.space import c_strides
from . import eager


def _host_scalar(a, index):
    host = a.copy_to_host(stream=cuda_device.stream(index))
    cuda_device.stream(index).synchronize()
    return np.asarray(host).reshape(())


def _copy(out, out_offset, src, src_offset, t, index):
    eager.strided_copy(out, out_offset, c_strides(t.shape), src, src_offset,
                       c_strides(t.shape), t.shape, index)


class CudaLoop:
    """One control-flow kernel node: step(env, alloc) as the other CUDA steps."""

    def __init__(self, node, index, compile_sub):
        self.node, self.index, self.op = node, index, control_op(node)
        self.inner = node.params["body"].nodes[0]
        self.subs = [compile_sub(g) for g in sub_graphs(node)]
        self.source = (f"# {self.op}: a host loop over {len(self.subs)} compiled sub-graph(s)\n"
                       + "\n".join(s.kernels for s in self.subs))

    def __call__(self, env, alloc):
        ins, _ = operands(self.node, [env[v] for v in self.node.inputs],
                          [None] * len(self.node.outputs), lambda n: None)
        outs = {SCAN: self._scan, WHILE: self._while, COND: self._branch,
                SWITCH: self._branch}[self.op](ins)
        results = dict(zip(self.inner.outputs, outs))
        for b, v in zip(self.node.params["body"].outputs, self.node.outputs):
            out = alloc(v)
            if v.type.size:
                _copy(out, 0, results[b], 0, v.type, self.index)
            env[v] = out

    def _scan(self, ins):
        p, index = self.inner.params, self.index
        nc, nx, length = p["n_carry"], p["n_xs"], p["length"]
        carry, xs, consts = ins[:nc], ins[nc:nc + nx], ins[nc + nx:]
        rows = [TensorType(v.type.shape[1:], v.type.dtype) for v in self.inner.inputs[nc:nc + nx]]
        y_types = [TensorType(v.type.shape[1:], v.type.dtype) for v in self.inner.outputs[nc:]]
        ys = [eager.empty((length,) + t.shape, t.dtype, index) for t in y_types]
        body = self.subs[0]
        for it in range(length):
            i = length - 1 - it if p["reverse"] else it
            x_rows = [eager.strided_view_copy(x, t, i * t.size, c_strides(t.shape), index)
                      for x, t in zip(xs, rows)]
            out = body.run(carry + x_rows + consts)
            carry = list(out[:nc])
            for y, row, t in zip(ys, out[nc:], y_types):
                if t.size:
                    _copy(y, i * t.size, row, 0, t, index)
        return carry + ys

    def _while(self, ins):
        nc = self.inner.params["n_carry"]
        carry, consts = ins[:nc], ins[nc:]
        body, cond = self.subs
        while bool(_host_scalar(cond.run(carry + consts)[0], self.index)):
            carry = list(body.run(carry + consts))
        return carry

    def _branch(self, ins):
        k = int(_host_scalar(ins[0], self.index))
        k = min(max(k, 0), len(self.subs) - 1)
        return list(self.subs[k].run(ins[1:]))
