"""Emitter: the Builder with the small vocabulary derivative rules are written in.

Python numbers passed to the arithmetic helpers become 0-d constants of the other operand's
dtype (elementwise ops broadcast implicitly). `sum_to` is THE place where broadcasting is
un-summed; the VJP driver applies it to every cotangent whose shape differs from its input's.
"""
from __future__ import annotations

import numpy as np

from ..graph import Node, Value
from ..ops import Op


class Emitter:
    def __init__(self, builder):
        self.b = builder
        self.source_info = None      # the primal node's user line, carried onto its derivatives

    def __call__(self, op, *inputs, **params) -> Value:
        return self.b.emit1(op, inputs, params, self.source_info)

    # constants ----------------------------------------------------------------------------
    def const(self, value, dtype) -> Value:
        return self.b.constant(np.asarray(value, dtype=dtype), self.source_info)

    def full(self, value, type) -> Value:
        c = self.const(value, type.dtype)
        return c if type.shape == () else self(Op.broadcast_to, c, shape=type.shape)

    def zeros(self, type) -> Value:
        return self.full(0, type)

    def _operands(self, a, b):
        if not isinstance(a, Value):
            a = self.const(a, b.type.dtype)
        if not isinstance(b, Value):
            b = self.const(b, a.type.dtype)
        return a, b

    # arithmetic ---------------------------------------------------------------------------
    def add(self, a, b):
        return self(Op.add, *self._operands(a, b))

    def sub(self, a, b):
        return self(Op.sub, *self._operands(a, b))

    def mul(self, a, b):
        return self(Op.mul, *self._operands(a, b))

    def div(self, a, b):
        return self(Op.div, *self._operands(a, b))

    def neg(self, a):
        return self(Op.neg, a)

    def eq(self, a, b):
        return self(Op.eq, *self._operands(a, b))

    def select(self, pred, a, b):
        """select with Python numbers allowed on either side (typed like the other side)."""
        ref = a if isinstance(a, Value) else b
        a = a if isinstance(a, Value) else self.const(a, ref.type.dtype)
        b = b if isinstance(b, Value) else self.const(b, ref.type.dtype)
        return self(Op.select, pred, a, b)

    def convert(self, v, dtype):
        return v if v.type.dtype == dtype else self(Op.convert, v, dtype=np.dtype(dtype))

    # shapes -------------------------------------------------------------------------------
    def reshape(self, v, shape):
        shape = tuple(shape)
        return v if v.type.shape == shape else self(Op.reshape, v, shape=shape)

    def transpose(self, v, perm):
        perm = tuple(int(p) for p in perm)
        return v if perm == tuple(range(len(perm))) else self(Op.transpose, v, perm=perm)

    def broadcast_to(self, v, shape):
        shape = tuple(shape)
        return v if v.type.shape == shape else self(Op.broadcast_to, v, shape=shape)

    def reduce_sum(self, v, axes):
        axes = tuple(sorted(axes))
        return self(Op.reduce_sum, v, axes=axes) if axes else v

    def sum_to(self, v, shape):
        """Un-broadcast: sum `v` down to `shape` (the inverse of NumPy broadcasting)."""
        shape = tuple(shape)
        if v.type.shape == shape:
            return v
        lead = v.type.ndim - len(shape)
        axes = list(range(lead)) + [lead + i for i, d in enumerate(shape)
                                    if d == 1 and v.type.shape[lead + i] != 1]
        return self.reshape(self.reduce_sum(v, axes), shape)

    def expand(self, v, axes, shape):
        """Inverse of a reduction over `axes`: broadcast `v` back to the input `shape`."""
        keep = tuple(1 if i in axes else d for i, d in enumerate(shape))
        return self.broadcast_to(self.reshape(v, keep), shape)

    def swap_last(self, v):
        perm = list(range(v.type.ndim))
        perm[-2:] = perm[-1], perm[-2]
        return self.transpose(v, perm)

    # indexing along one axis with per-row indices (sort's permutation) ----------------------
    def _flat_positions(self, idx, axis):
        """idx (int, any shape) indexes along `axis` row by row. Returns (flat positions into the
        array moved to axis-last and flattened, the move permutation, the moved shape)."""
        nd = idx.type.ndim
        perm = [i for i in range(nd) if i != axis] + [axis]
        moved = tuple(idx.type.shape[p] for p in perm)
        n, rows = moved[-1], int(np.prod(moved[:-1], dtype=np.int64))
        offsets = (np.arange(rows, dtype=idx.type.dtype) * n).reshape(moved[:-1] + (1,))
        pos = self.add(self.transpose(idx, perm), self.const(offsets, idx.type.dtype))
        return self.reshape(pos, (rows * n,)), perm, moved

    def take_along_axis(self, x, idx, axis):
        pos, perm, moved = self._flat_positions(idx, axis)
        flat = self.reshape(self.transpose(x, perm), (pos.type.shape[0],))
        out = self.reshape(self(Op.take, flat, pos, axis=0), moved)
        return self.transpose(out, np.argsort(perm))

    def scatter_along_axis(self, upd, idx, axis):
        """The transpose of take_along_axis: out[..., idx[..., i], ...] += upd[..., i, ...]."""
        pos, perm, moved = self._flat_positions(idx, axis)
        flat = self.reshape(self.transpose(upd, perm), pos.type.shape)
        out = self(Op.scatter_add, pos, flat, shape=pos.type.shape, axis=0)
        return self.transpose(self.reshape(out, moved), np.argsort(perm))

    # sub-graphs ---------------------------------------------------------------------------
    def inline(self, graph, inputs) -> list:
        """Copy `graph`'s nodes in, applied to `inputs`; returns the values of its outputs."""
        env = dict(zip(graph.inputs, inputs))
        for n in graph.nodes:
            outs = tuple(Value(v.type) for v in n.outputs)
            self.b.graph.nodes.append(Node(n.op, tuple(env[v] for v in n.inputs), n.params, outs,
                                           n.source_info))
            env.update(zip(n.outputs, outs))
        return [env[v] for v in graph.outputs]
