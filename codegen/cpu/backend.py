"""The CPU backend: a schedule of kernel nodes -> compiled kernel units + a sequenced program.

    BACKENDS["cpu"](graph, optimized, schedule, plan) -> Executable

Each kernel node is compiled on its own, as a unit keyed by its canonical source
(codegen/cpu/units.py: identical kernels compile once, in memory and on disk). Nothing is
compiled per signature: the memory plan becomes a table of typed buffers, and the sequencer
(runtime/sequencer.py) calls the units by address in the plan's execution order (the
schedule's, except that the plan's concurrent waves sit at consecutive positions, which the
sequencer runs on the thread pool). The per-call Python side
(runtime/executable.py) takes outputs from the caching allocator, writes the call's array
addresses once, and runs.

Host ops (codegen/cpu/host.py: ops without a CPU kernel, complex kernels the LLVM units
do not build) run outside the kernels, with the NumPy reference. The sequence is cut there and
the host op's result is written into an array the later kernels read.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ...ir import config
from ...ir.kernel import kernel_nodes
from ...runtime import threads
from ...runtime.allocator import aligned_empty
from ...runtime.executable import (ARENA, HOST, INPUT, OUTPUT, Bases, Buffer, Executable,
                                   HostStep, SequencedRun)
from ...runtime.sequencer import Program
from ..kernel.control import CONTROL, control_op
from ..pipeline_cache import optimize
from . import host, loops, unit_prefetch
from .kernels import opaque
from .units import kernel_unit, unit_key
from .waves import planned


def matmul_product_hint(plan, i, node):
    """Where the memory plan puts matmul kernel i's product: ("output", body value) or
    ("scratch", arena offset)."""
    if node.params["kind"] != "matmul" or plan is None:
        return None
    if i in plan.product:
        return "output", dict(zip(node.outputs, node.params["body"].outputs))[plan.product[i]]
    if i in plan.scratch:
        return "scratch", plan.scratch[i][0]
    return None


def arena_layout(values) -> tuple[dict, int]:
    """Offsets for `values` laid out one after another (64-byte aligned), and the total size:
    the arena when no memory plan is given."""
    offsets, at = {}, 0
    for v in values:
        offsets[v] = at
        at = -(-(at + max(v.type.nbytes, 1)) // 64) * 64
    return offsets, max(at, 64)


class Layout:
    """Every value's Buffer, from the memory plan; array constants and the status pair as fixed
    buffers."""

    def __init__(self, graph, nodes, plan, on_host=None):
        self.graph, self.plan = graph, plan
        on_host = on_host or host.runs_on_host
        hosts = [v for n in nodes if on_host(n) for v in n.outputs]
        self.buffer = {v: Buffer(INPUT, i) for i, v in enumerate(graph.inputs)}
        self.host_types = []
        for j, v in enumerate(hosts):
            self.buffer.setdefault(v, Buffer(HOST, j))
            self.host_types.append(v.type)
        self.outputs = []            # output arrays' values, in order
        graph_outputs = set(graph.outputs)
        donated = getattr(plan, "donated", {})
        offsets = dict(getattr(plan, "offsets", {}) or {})
        produced = [v for n in nodes if not on_host(n) for v in n.outputs]
        missing = [v for v in produced if v not in offsets and v not in graph_outputs
                   and v not in donated]
        if missing:                 # no plan (or an incomplete one): one slot each
            extra, _ = arena_layout(missing)
            base = max([o + v.type.nbytes for v, o in offsets.items()] + [0])
            offsets.update({v: base + 64 + o for v, o in extra.items()})
        self.arena_bytes = max([o + v.type.nbytes for v, o in offsets.items()]
                               + [getattr(plan, "peak_bytes", 0) or 0, 64])
        self.offsets = offsets
        views = getattr(plan, "views", {}) or {}
        for v in produced:
            if v in self.buffer:
                continue
            if v in views:            # a reshape of a graph input: its storage (plan_memory)
                self.buffer[v] = Buffer(INPUT, views[v])
            elif v in donated:
                self.buffer[v] = Buffer(INPUT, donated[v])
            elif v in graph_outputs:
                self.buffer[v] = Buffer(OUTPUT, len(self.outputs))
                self.outputs.append(v)
            else:
                self.buffer[v] = Buffer(ARENA, 0, offsets[v])
        self.bases = Bases(len(graph.inputs), len(hosts), len(self.outputs))
        self.status = np.zeros(2, np.int64)
        self.status_buffer = self.bases.add_fixed(self.status)
        self._consts = {}

    def is_view(self, i, node) -> bool:
        """Kernel i only makes a view its output already is (plan_memory's views): skipped.
        Not when its input is a host step's output (the plan placed that in the arena, the
        host step writes it elsewhere): then the copy runs."""
        return i in (getattr(self.plan, "free", None) or ()) and \
            self.buffer[node.inputs[0]].kind in (ARENA, INPUT)

    def const(self, lit) -> Buffer:
        b = self._consts.get(lit.digest)
        if b is None:
            array = np.asarray(lit.array)
            aligned = aligned_empty(array.nbytes).view(array.dtype).reshape(array.shape)
            aligned[...] = array            # a cache line's start, as the arena's buffers
            b = self._consts[lit.digest] = self.bases.add_fixed(aligned)
        return b

    def slots(self, unit, node, i):
        """The sequencer slots of kernel i's argv, from its unit's parameter roles (a shifted
        unit's offsets added: kernels/opaque.shifts)."""
        out = []
        shift = opaque.shifts(node) if getattr(unit, "shifted", False) else {}
        for role in unit.params:
            if role[0] == "in":
                b = self.buffer[node.inputs[role[1]]]
            elif role[0] in ("out", "at"):
                b = self.buffer[node.outputs[role[1]]]
            elif role[0] == "const":
                b = self.const(unit.consts[role[1]])
            elif role[0] == "prod":
                b = Buffer(ARENA, 0, self.plan.scratch[i][0])
            else:
                b = self.status_buffer
            if shift.get(role):
                b = dataclasses.replace(b, offset=b.offset + shift[role])
            out.append(self.bases.slot(b))
        return out


def output_results(graph, layout):
    """Per graph output: the index of its output array (first occurrence), or (Buffer, type) of
    a copy (an input, a constant, a repeated output, ...), or (Buffer, type, None) for the
    first output written into a donated input: that array itself (the caller gave it up)."""
    seen, taken, results = set(), set(), []
    donated = getattr(layout.plan, "donated", {})
    for v in graph.outputs:
        b = layout.buffer.get(v)
        if b is not None and b.kind == OUTPUT and v not in seen:
            seen.add(v)
            results.append(b.index)
        elif v in donated and b.index not in taken:
            taken.add(b.index)
            results.append((b, v.type, None))
        else:
            results.append((b, v.type))
    return results


def compile_subgraph(graph):
    """A control-flow sub-graph (body, condition, branch) through the pass pipeline (cached on
    disk as a jitted function's graph is: codegen/pipeline_cache.py) and this backend: its
    Executable, or why it cannot run inside a native loop (a host step in it)."""
    optimized, schedule, plan = optimize(graph, (), "cpu")
    exe = compile_cpu(graph, optimized, schedule, plan)
    host_steps = [s[1].node for s in exe.run.steps if s[0] == "host"]
    if host_steps:
        what = host.only_op(host_steps[0]) or "a kernel"
        return f"its {graph.name or 'sub-graph'} has a host step ({what})"
    return exe


def _loop_plans(nodes, plan):
    """Control-flow kernels compiled as native loops (codegen/cpu/loops.py), by position; the
    others (a host op inside, a donated output) stay host steps, logged."""
    plans = {}
    donated = getattr(plan, "donated", {}) or {}
    for i, n in enumerate(nodes):
        op = control_op(n)
        if op is None:
            continue
        why = ("an output takes a donated input's storage"
               if any(v in donated for v in n.outputs) else None)
        loop = why or loops.plan(n, compile_subgraph)
        if isinstance(loop, str):
            config.log(1, f"cpu backend: {op} runs on the host (NumPy reference): {loop}")
            continue
        config.log(1, f"cpu backend: {op} compiled: {len(loop.subs)} sub-graph(s), "
                      f"{sum(s.run.program.n_kernels for s in loop.subs)} kernels, native loop")
        plans[i] = loop
    return plans


def execution_order(nodes, plan):
    """(the order the kernels run in, {a wave's first kernel: the wave's lanes}) from the
    memory plan's concurrent waves (codegen/cpu/waves.py: issue 26); the schedule's order when
    the plan has none."""
    order = list(getattr(plan, "order", None) or ())
    if sorted(order) != list(range(len(nodes))):
        return list(range(len(nodes))), {}
    return order, {w[0][0]: w for w in getattr(plan, "waves", ())}


class _Units:
    """The units of a schedule's kernels: each kernel's unit key computed once (the prefetch and
    the build share it), each unit asked of codegen/cpu/units.py once (the sequence and the wave
    check share it)."""

    def __init__(self, nodes, plan):
        self.nodes, self.plan, self.units = nodes, plan, {}
        free = getattr(plan, "free", None) or ()     # views: no unit (Layout.is_view)
        self.hints = {i: matmul_product_hint(plan, i, n) for i, n in enumerate(nodes)
                      if i not in free and control_op(n) is None and not host.runs_on_host(n)}
        self.keys = {i: unit_key(nodes[i], hint) for i, hint in self.hints.items()}

    def jobs(self) -> list:
        """(kernel node, product hint, unit key) of each kernel the prefetch may build."""
        return [(self.nodes[i], hint, self.keys[i]) for i, hint in self.hints.items()]

    def __call__(self, i, n):
        if i not in self.units:
            hint = self.hints[i] if i in self.hints else matmul_product_hint(self.plan, i, n)
            self.units[i] = kernel_unit(n, hint, self.keys.get(i))
        return self.units[i]


def compile_cpu(graph, optimized, schedule, plan):
    nodes = kernel_nodes(optimized, schedule)
    plan = plan if plan is None else planned(optimized, plan)     # with the pool's waves
    threads.configure()
    unit_of = _Units(nodes, plan)
    finish = unit_prefetch.prefetch(unit_of.jobs())
    try:
        loop_plans = _loop_plans(nodes, plan)     # meanwhile a child builds this graph's units
    finally:
        finish()
    compiled = {id(nodes[i]) for i in loop_plans}

    def on_host(n):
        return id(n) not in compiled and host.runs_on_host(n)
    layout = Layout(optimized, nodes, plan, on_host)
    kernels, checks, steps, units, start = [], [], [], [], 0
    placed = []                 # the kernel node at each sequencer position (the profiler's names)
    waves = []                  # per wave, its lanes' bounds (positions): run at the same time

    def emit(i, n):
        nonlocal start
        if i in loop_plans:     # a control-flow node: one kernel running its compiled sub-graphs
            loop = loop_plans[i]
            argv = loop.build([layout.buffer[v] for v in n.inputs],
                              [layout.buffer[v] for v in n.outputs], layout.bases.add_fixed)
            units.append(loop)
            placed.append(n)
            kernels.append((loop.address, [layout.bases.slot(b) for b in argv]))
            checks.append(loop.check)
            return
        if on_host(n):
            if len(kernels) > start:
                steps.append(("kernels", start, len(kernels)))
            start = len(kernels)
            what = host.only_op(n) or f"a {n.params['kind']} kernel"
            gap = host.complex_gap(n)
            why = " (complex values)" if gap else ""
            if what not in CONTROL:      # logged with its reason by _loop_plans
                config.log(1, f"cpu backend: {what}{why} runs on the host (NumPy reference)"
                              + (f": {gap}" if gap else ""))
            steps.append(("host", HostStep(n, [(layout.buffer[v], v.type) for v in n.inputs],
                                           [layout.buffer[v].index for v in n.outputs])))
            return
        if layout.is_view(i, n):
            return
        unit = unit_of(i, n)
        units.append(unit)
        placed.append(n)
        kernels.append((unit.address, layout.slots(unit, n, i)))
        # a unit is shared by every kernel of its canonical text: the user's line is this node's
        checks.append(None if unit.check is None else unit.check[:3] + (n.source_info,))

    def concurrent(i, n):
        """Whether kernel i may run in a wave's lane: a compiled kernel without a bounds check
        (the status pair is shared)."""
        return (i not in loop_plans and not on_host(n)
                and (layout.is_view(i, n)
                     or unit_of(i, n).check is None))

    order, wave_at = execution_order(nodes, plan)
    in_waves = {i for w in wave_at.values() for lane in w for i in lane}
    for i in order:
        wave = wave_at.get(i)
        if wave is None:
            if i not in in_waves:
                emit(i, nodes[i])
            continue
        together = all(concurrent(j, nodes[j]) for lane in wave for j in lane)
        bounds = [len(kernels)]
        for lane in wave:       # lane after lane; in order on this thread if not `together`
            for j in lane:
                emit(j, nodes[j])
            if len(kernels) > bounds[-1]:
                bounds.append(len(kernels))
        if together and len(bounds) > 2:
            waves.append(tuple(bounds))
    if len(kernels) > start or not steps:
        steps.append(("kernels", start, len(kernels)))
    program = Program(kernels, layout.bases.n_dynamic, layout.bases.fixed, waves)
    run = SequencedRun(program, layout.bases, steps, [v.type for v in layout.outputs],
                       layout.host_types, output_results(optimized, layout), checks,
                       layout.arena_bytes, layout.status)
    run.units, run.bases = units, layout.bases
    run.exclusive = bool(loop_plans)   # loops' descriptors and sub-programs: one call at a time
    run.name, run.kernel_nodes = graph.name, placed
    def source():               # built on demand: a unit loaded from disk has no IR in memory
        return "\n\n".join(u.source for u in units)
    if config.debug_level() >= 4:
        print(source(), flush=True)
    exe = Executable(graph, optimized, run, nodes, plan, source, "cpu")
    exe.cache_files = lambda: [f for u in units for f in u.files]   # what an artifact carries
    return exe
