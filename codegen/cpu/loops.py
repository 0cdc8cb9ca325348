"""Control flow on the CPU: a scan / while_loop / cond / switch node becomes one native kernel
that runs its compiled sub-graphs (runtime/loop_runner.py).

Each sub-graph (body, condition, branch) goes through the pass pipeline and the CPU backend like any
graph (`compile_sub`, given by codegen/cpu/backend.py): fused, memory-planned (the result cached
on disk, codegen/pipeline_cache.py), its kernels compiled as units (a nested loop is again one
such kernel). The node's kernel is `jg_loop` / `jg_branch` with
a descriptor saying where each sub-program input and output lives per iteration: xs and the stacked
ys are strided views of the node's buffers, the carry ping-pongs between the node's output and one
preallocated scratch copy. A length-10,000 scan compiles exactly what a length-10 one does.
A scan / while_loop node's kernel is then specialized into one LLVM function with its body's
units called directly (codegen/cpu/loop_fused.py, over the same argv and descriptor); jg_loop
stays the generic form (the option cpu_loop_fusion False), and cond / switch use jg_branch.

`plan(node, compile_sub)` returns a LoopPlan, or a string saying why the node stays a host step
(a sub-graph with a host op: fft, a complex kernel the LLVM units do not build). Which op
a node wraps, its sub-graphs and operands: codegen/kernel/control.py (CUDA reads them too).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...ir.autodiff.emitter import Emitter
from ...ir import config
from ...ir.builder import Builder
from ...ir.control_flow import COND, SCAN, SWITCH, WHILE, branches
from ...ir.graph import Graph
from ...runtime import loop_runner
from ...runtime.executable import ARENA, OUTPUT, Buffer
from ..kernel.control import control_op, operands
from . import loop_fused


@dataclass
class Sub:
    """A compiled sub-graph: its Executable (a SequencedRun without host steps) and where the
    bases of its inputs and outputs are."""
    exe: object
    n_in: int
    outputs: list          # per graph output: ("base", index) or ("copy", base, offset, bytes)

    @property
    def run(self):
        return self.exe.run

    @classmethod
    def of(cls, exe, graph):
        run = exe.run
        bases, n_in = run.bases, len(graph.inputs)
        run.program.bases[bases.slot(Buffer(ARENA)).base] = run.arena.ctypes.data
        outs = []
        for r in run.results:
            if isinstance(r, int):
                outs.append(("base", bases.slot(Buffer(OUTPUT, r)).base))
            else:
                b, t = r[:2]      # (a donated input given back: copied here)
                s = bases.slot(b)
                outs.append(("copy", s.base, s.offset, t.nbytes))
        return cls(exe, n_in, outs)

    def parts(self, inputs, outputs):
        """(sets [(base, a, s, p)], copies [(a, s, p, source base, offset, bytes)]) of a call
        record; inputs / outputs: per sub-graph input / output, its address formula (a, s, p)."""
        sets = [(k, *f) for k, f in enumerate(inputs)]
        copies = []
        for o, f in zip(self.outputs, outputs):
            if o[0] == "base":
                sets.append((o[1], *f))
            else:
                copies.append((*f, *o[1:]))
        return sets, copies

    def record(self, inputs, outputs):
        """inputs / outputs: per sub-graph input / output, its address formula (a, s, p)."""
        return loop_runner.record(self.run.program, *self.parts(inputs, outputs))


@dataclass
class LoopCheck:
    """The bounds-check entry of a loop kernel: which sub-program failed, from its descriptor."""
    desc: np.ndarray
    slot: int                     # where the failed record's offset is (then its status)
    subs: dict                    # record offset -> SequencedRun

    def failed(self):
        rec, st = int(self.desc[self.slot]), int(self.desc[self.slot + 1])
        run = self.subs[rec]
        return run.failure(st, run.status)


@dataclass
class LoopPlan:
    """A control-flow node's kernel: address, argv (layout buffers, built by `argv`), check."""
    op: object
    address: int
    subs: list
    build: object                 # fn(layout buffers of node inputs, outputs, add_fixed) -> argv
    check: object = None
    fused_file: str | None = None # the loop's own function (codegen/cpu/loop_fused.py), if any

    @property
    def files(self):
        """The sub-graphs' unit files and the loop function's (what an artifact carries)."""
        own = [self.fused_file] if self.fused_file else []
        return [f for s in self.subs for f in s.exe.cache_files()] + own

    @property
    def source(self):
        parts = [f"; {self.op}: jg_{'branch' if self.op in (COND, SWITCH) else 'loop'} over "
                 f"{len(self.subs)} compiled sub-graph(s)"]
        return "\n\n".join(parts + [s.exe.kernels for s in self.subs])


def _scratch(nbytes):
    """A zeroed array of its own cache lines (64-byte aligned and padded): a loop's carry copy or
    flag is written every iteration, and must not share a line with anything else."""
    raw = np.zeros(-(-max(nbytes, 1) // 64) * 64 + 64, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start:start + len(raw) - 64]


def body_then_cond(body, cond, n_carry):
    """A while_loop's body followed by its condition on the new carry: (*carry, *consts) ->
    (*carry', cond(*carry', *consts)). One sub-program per step, and the condition's kernels
    fuse with the body's (`i + 1` and `i + 1 < n` are one kernel)."""
    b = Builder(Graph(name=f"{body.name}_then_{cond.name}"))
    e = Emitter(b)
    ins = [b.add_input(v.type) for v in body.inputs]
    new = e.inline(body, ins)
    b.graph.outputs = new + e.inline(cond, new + ins[n_carry:])
    return b.graph


def _compile_all(graphs, compile_sub):
    subs = []
    for g in graphs:
        exe = compile_sub(g)
        if isinstance(exe, str):
            return exe
        subs.append(Sub.of(exe, g))
    return subs


def _same(argv):
    """Per argv index, the first index holding the same buffer (the node's buffers are distinct
    arrays or arena ranges live at the same time: equal or disjoint)."""
    first = {}
    return [first.setdefault(b, a) if b is not None else a for a, b in enumerate(argv)]


def _scan_like(node, op, compile_sub):
    inner = node.params["body"].nodes[0]
    p = inner.params
    if op == SCAN:
        nc, nx, length, reverse = p["n_carry"], p["n_xs"], p["length"], p["reverse"]
        graphs = [p["body"]]
    else:
        nc, nx, length, reverse = p["n_carry"], 0, 0, False
        graphs = [body_then_cond(p["body"], p["cond"], nc), p["cond"]]
    subs = _compile_all(graphs, compile_sub)
    if isinstance(subs, str):
        return subs
    in_types = [v.type for v in inner.inputs]
    out_types = [v.type for v in inner.outputs]
    plan = LoopPlan(op, loop_runner.entry_points()[0], subs, None)

    def build(ins, outs, add_fixed):
        ins, outs = operands(node, ins, outs, lambda n: add_fixed(_scratch(n)))
        argv = [None]                                  # the descriptor, filled below
        pair = []
        for c in range(nc):
            scratch = add_fixed(_scratch(out_types[c].nbytes))
            pair.append(len(argv))
            argv += [outs[c], scratch, outs[c]]
        a_in = []
        for b in ins:
            a_in.append(len(argv))
            argv.append(b)
        a_out = {}
        for k in range(nc, len(outs)):
            a_out[k] = len(argv)
            argv.append(outs[k])
        flag = 0
        if op == WHILE:
            flag = len(argv)
            argv.append(add_fixed(_scratch(1)))
        carry_in = [(a, 0, 1) for a in pair]
        xs_in = [(a_in[nc + j], in_types[nc + j].nbytes // max(length, 1), 0) for j in range(nx)]
        consts = [(a, 0, 0) for a in a_in[nc + nx:]]
        body_out = [(a + 1, 0, 1) for a in pair]
        body_out += [(a_out[k], out_types[k].nbytes // max(length, 1), 0)
                     for k in range(nc, len(outs))]
        body_out += [(flag, 0, 0)] if op == WHILE else []       # the next step's condition
        parts = [subs[0].parts(carry_in + xs_in + consts, body_out)]
        if op == WHILE:
            parts.append(subs[1].parts(carry_in + consts, [(flag, 0, 0)]))
        body = loop_runner.record(subs[0].run.program, *parts[0])
        cond = loop_runner.record(subs[1].run.program, *parts[1]) if op == WHILE else None
        carries = [(a, a + 1, a_in[c], out_types[c].nbytes) for c, a in enumerate(pair)]
        kind = loop_runner.WHILE_FUSED if op == WHILE else loop_runner.COUNTED
        desc = loop_runner.loop_descriptor(kind, length, reverse, body, cond, flag, carries)
        argv[0] = add_fixed(desc)
        records = {int(desc[4]): subs[0].run}
        if op == WHILE:
            records[int(desc[5])] = subs[1].run
        plan.check = LoopCheck(desc, 8, records)
        if config.read("cpu_loop_fusion"):     # the loop and its body as one function, else jg_loop
            fused = loop_fused.compile_loop(
                kind, carries, [loop_fused.LoopCall(int(desc[4 + k]), s.run, *p)
                                for k, (s, p) in enumerate(zip(subs, parts))],
                flag if op == WHILE else None, _same(argv))
            if fused is not None:
                plan.address, plan.fused_file = fused
        return argv

    plan.build = build
    return plan


def _branch(node, op, compile_sub):
    inner = node.params["body"].nodes[0]
    graphs = branches(op, inner.params)
    subs = _compile_all(graphs, compile_sub)
    if isinstance(subs, str):
        return subs
    index_bytes = inner.inputs[0].type.dtype.itemsize
    plan = LoopPlan(op, loop_runner.entry_points()[1], subs, None)

    def build(ins, outs, add_fixed):
        ins, outs = operands(node, ins, outs, lambda n: add_fixed(_scratch(n)))
        argv = [None, *ins, *outs]
        args_in = [(1 + k, 0, 0) for k in range(1, len(ins))]
        results = [(1 + len(ins) + k, 0, 0) for k in range(len(outs))]
        recs = [s.record(args_in, results) for s in subs]
        desc = loop_runner.branch_descriptor(1, index_bytes, recs)
        argv[0] = add_fixed(desc)
        offsets = desc[loop_runner.BRANCH_HEADER:loop_runner.BRANCH_HEADER + len(subs)]
        plan.check = LoopCheck(desc, 4, {int(o): s.run for o, s in zip(offsets, subs)})
        return argv

    plan.build = build
    return plan


_PLANNERS = {SCAN: _scan_like, WHILE: _scan_like, COND: _branch, SWITCH: _branch}


def plan(node, compile_sub):
    """The LoopPlan of a control-flow kernel node, or why it runs on the host."""
    op = control_op(node)
    return _PLANNERS[op](node, op, compile_sub)
