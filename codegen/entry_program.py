"""The whole schedule as ONE generated module with one @njit entry per stretch of kernels: the
layout of the standalone native library (codegen/native_entry.py), whose C entry point calls the
kernels in order over a caller-provided workspace.

Serial kernels without fastmath flags are written into the entry as plain statements; host ops
(`random`) cut the schedule into segments. A kernel the numba generators do not cover is an
UnsupportedOpError (`unsupported`, checked before any code is written). (The JIT backend
compiles kernels one by one instead: codegen/cpu.py.)
"""
from __future__ import annotations

import numpy as np

from ..ir.errors import UnsupportedOpError
from ..ir.ops import Op
from ..ir.printer import ident
from . import cpu_kernels
from .cpu_units import largest_array
from .entry import (ModuleBuilder, arena_layout, arena_view, entry_source, flat_view,
                    inline_kernel)

HOST_OPS = frozenset({Op.random})
LONG_LOOP = 1024     # elements: below, a kernel's loops gain little from SIMD
_ALIAS_OPS = frozenset({Op.reshape, Op.stop_gradient})   # same bytes, other type: no copy


def _only_op(node):
    nodes = node.params["body"].nodes
    return nodes[0].op if len(nodes) == 1 else None


def unsupported(nodes) -> UnsupportedOpError | None:
    """The error for the first kernel of `nodes` the entry cannot run (host ops aside), or None."""
    for n in nodes:
        err = None if _only_op(n) in HOST_OPS else cpu_kernels.unsupported(n)
        if err is not None:
            return err
    return None


class EntryProgram:
    """Buffers, kernels and entries of one schedule, as Python data and generated source."""

    def __init__(self, graph, nodes, plan=None, native=False):
        self.graph, self.plan = graph, plan
        self.index = {n: i for i, n in enumerate(nodes)}     # schedule position (memory plan)
        self.mb = ModuleBuilder(native)
        self.flat = {}          # Value -> name of its flat array inside an entry
        self.bind = {}          # flat name -> binding expression
        self.consts = []        # writable copies of array constants, in parameter order
        self._const_index = {}
        self.outputs = []       # Values written into output arrays, in parameter order
        self.hosts = []         # host-op nodes, in parameter order
        self.arena_values = []
        self.aliases = {}
        for i, v in enumerate(graph.inputs):
            self._name(v, f"xf{i}", flat_view(f"x{i}", v.type))
        self.segments = []      # ("entry", [(KernelSource, node)]) | ("host", node)
        self._count = 0
        for n in nodes:
            self._plan(n)

    def _name(self, v, name, expr):
        self.flat.setdefault(v, name)
        self.bind[name] = expr

    def _const(self, lit):
        j = self._const_index.get(lit.digest)
        if j is None:
            j = self._const_index[lit.digest] = len(self.consts)
            self.consts.append(np.array(lit.array, order="C"))   # writable, C-ordered
        return j

    def _plan(self, n):
        op = _only_op(n)
        if op == Op.constant:
            j = self._const(n.params["body"].nodes[0].params["value"])
            self._name(n.outputs[0], f"cf{j}", flat_view(f"cv{j}", n.outputs[0].type))
            return
        if op in HOST_OPS:
            (v,) = n.outputs
            j = len(self.hosts)
            self.hosts.append(n)
            self._name(v, f"hf{j}", flat_view(f"h{j}", v.type))
            self.segments.append(("host", n))
            return
        outs = set(self.graph.outputs)
        src = n.inputs[0] if n.inputs else None
        if op in _ALIAS_OPS and self.plan is None and n.outputs[0] not in outs \
                and src in self.flat and src.type.dtype == n.outputs[0].type.dtype:
            self.flat[n.outputs[0]] = self.flat[src]
            return
        kind = n.params["kind"]
        name = f"k{self._count}_{kind}"
        self._count += 1
        self.mb.product_hint = self._product_hint(n)
        self.mb.long_loop = largest_array(n) >= LONG_LOOP
        ks = cpu_kernels.generate(self.mb, name, n)
        self.mb.kernels.append(ks)
        for lit in ks.consts:
            self._const(lit)
        donated = getattr(self.plan, "donated", {})
        for v in n.outputs:
            if v in self.flat:
                continue
            if v in donated:
                self.flat[v] = f"xf{donated[v]}"
            elif v in outs:
                k = len(self.outputs)
                self.outputs.append(v)
                self._name(v, f"of{k}", flat_view(f"o{k}", v.type))
            else:
                self.arena_values.append(v)
        if not self.segments or self.segments[-1][0] != "entry":
            self.segments.append(("entry", []))
        self.segments[-1][1].append((ks, n))

    def _product_hint(self, n):
        """Where the memory plan puts matmul kernel n's product: ("output", body value) or
        ("scratch", arena offset); None without a plan."""
        i = self.index.get(n)
        if self.plan is None or i is None or n.params["kind"] != "matmul":
            return None
        if i in self.plan.product:
            body_of = dict(zip(n.outputs, n.params["body"].outputs))
            return "output", body_of[self.plan.product[i]]
        if i in self.plan.scratch:
            return "scratch", self.plan.scratch[i][0]
        return None

    def layout(self, plan):
        offsets = getattr(plan, "offsets", None) if plan is not None else None
        if not offsets or any(v not in offsets for v in self.arena_values):
            offsets, size = arena_layout(self.arena_values)
        else:
            size = max(int(plan.peak_bytes), 64)
        for j, v in enumerate(self.arena_values):
            self._name(v, f"b{j}", arena_view(offsets[v], v.type))
        self.offsets, self.arena_bytes = offsets, size

    def generate(self):
        self.params = ([f"x{i}" for i in range(len(self.graph.inputs))] +
                       [f"h{j}" for j in range(len(self.hosts))] +
                       [f"cv{j}" for j in range(len(self.consts))] + ["arena"] +
                       [f"o{k}" for k in range(len(self.outputs))])
        entries, self.entry_names = [], []
        for kind, items in self.segments:
            if kind != "entry":
                continue
            calls, used = [], []
            for ks, n in items:
                args = [self.flat[v] for v in n.inputs]
                args += [self._const_arg(lit) for lit in ks.consts]
                args += [self.flat[v] for v in n.outputs]
                used += args
                args += ks.extra_args
                if ks.inline:
                    calls += inline_kernel(ks, args, self.mb.global_names())
                else:
                    calls.append(f"{ks.name}({', '.join(args)})")
            bindings = [(nm, self.bind[nm]) for nm in dict.fromkeys(used) if nm in self.bind]
            ename = f"entry{len(self.entry_names)}"
            self.entry_names.append(ename)
            entries.append(entry_source(ename, self.params, bindings, calls,
                                        f"{ename}: {len(items)} kernels of graph {ident(self.graph.name)}",
                                        any("st" in ks.extra_args for ks, _ in items)))
        return self.mb.source(f"jitgrad kernels for graph {ident(self.graph.name)}", entries)

    def _const_arg(self, lit):
        j = self._const(lit)
        name = f"cf{j}"
        self.bind[name] = flat_view(f"cv{j}", self.consts[j])
        return name
