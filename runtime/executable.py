"""What a compiled signature is at run time: the Executable record, and the runner of a
sequenced schedule (kernels by address over typed buffers, host ops between them).

Buffers are typed records (`Buffer`): where a value lives during a call — a graph input, a host
op's result, the arena at an offset, an output array, a fixed array (constants, the status pair) —
instead of roles decoded from names. `SequencedRun(arrays) -> outputs` is the Python side of a
call: outputs from the caching allocator, one `fill` of the addresses, one `run` per stretch of
kernels (a host op, run by the NumPy reference, between stretches), results.
"""
from __future__ import annotations

import functools
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ..ir import Graph
from ..ir.errors import check_error
from ..ir.interpreter import interpret
from . import allocator, profiling
from .sequencer import Program, Slot


@dataclass
class Executable:
    graph: Graph                      # the graph as traced
    optimized: Graph                  # after the pass pipeline (a schedule of kernels)
    run: object                       # fn(list of arrays) -> list of arrays
    schedule: list = field(default_factory=list)
    memory_plan: object = None
    source: object = ""               # the kernels' source, or a function building it on demand
    backend: str = "interpreter"

    @property
    def kernels(self) -> str:
        if callable(self.source):
            self.source = self.source()
        return self.source


INPUT, HOST, ARENA, OUTPUT, FIXED = "input", "host", "arena", "output", "fixed"


@dataclass(frozen=True)
class Buffer:
    """Where a value lives during a call: `kind` and its index among those (inputs, host results,
    outputs, fixed arrays), and a byte offset (the arena)."""
    kind: str
    index: int = 0
    offset: int = 0


class Bases:
    """The order of the sequencer's bases: inputs, host results, the arena, outputs (written per
    call), then the fixed arrays."""

    def __init__(self, n_inputs, n_hosts, n_outputs):
        self.n_inputs, self.n_hosts, self.n_outputs = n_inputs, n_hosts, n_outputs
        self.fixed = []

    @property
    def n_dynamic(self):
        return self.n_inputs + self.n_hosts + 1 + self.n_outputs

    def add_fixed(self, array) -> Buffer:
        self.fixed.append(array)
        return Buffer(FIXED, len(self.fixed) - 1)

    def slot(self, b: Buffer) -> Slot:
        start = {INPUT: 0, HOST: self.n_inputs, ARENA: self.n_inputs + self.n_hosts,
                 OUTPUT: self.n_inputs + self.n_hosts + 1, FIXED: self.n_dynamic}[b.kind]
        return Slot(start + b.index, b.offset)


def read(b: Buffer, type, *rest):
    """A fresh copy of the value of `type` held in buffer b during a call; with a None before
    the arrays, the donated input b itself (the kernels wrote the value into it)."""
    if rest[0] is None:         # (not a reshaped view: the result must own it to be donated)
        a = rest[1][b.index]
        return a if a.shape == type.shape else a.reshape(type.shape)
    return _copy(b, type, *rest)


def _copy(b: Buffer, type, xs, hs, arena, outs, fixed):
    if b.kind == ARENA:
        return arena[b.offset:b.offset + type.nbytes].view(type.dtype).reshape(type.shape).copy()
    src = {INPUT: xs, HOST: hs, OUTPUT: outs, FIXED: fixed}[b.kind][b.index]
    return np.array(src).reshape(type.shape)


@dataclass
class HostStep:
    node: object            # a kernel node around one host op (fft, control flow)
    inputs: list            # (Buffer, type) of its inputs
    index: list             # its results' indices among the host results


class SequencedRun:
    """run(arrays) -> outputs for a schedule sequenced by `program` (runtime/sequencer.py).

    steps: ("kernels", start, end) | ("host", HostStep), in schedule order; outputs: types of the
    output arrays; results: per graph output, an index into them or (Buffer, type) of a copy;
    checks: per kernel position, its bounds check (op, kind, size, source) or None.
    exclusive: calls wait for each other instead of cloning the tables (loop kernels' shared
    descriptors and sub-programs)."""

    exclusive = False

    def __init__(self, program: Program, bases: Bases, steps, outputs, host_types, results,
                 checks, arena_bytes, status):
        self.program, self.steps, self.checks, self.status = program, steps, checks, status
        self.fixed = bases.fixed
        self.make_outputs = allocator.ALLOCATOR.maker([(t.shape, t.dtype) for t in outputs])
        self.host_types = host_types
        self.results = results
        self.arena = allocator.aligned_empty(max(arena_bytes, 64))
        self.simple = (not host_types and len(steps) == 1
                       and results == list(range(len(outputs))))
        self._fast = (program.native_call() or program.call) if self.simple else None
        self._outputs = outputs

    def __call__(self, arrays):
        if profiling.active:            # jg.profiler is recording: the timed path
            return self._profiled(arrays)
        xs = [a if a.flags.c_contiguous else np.ascontiguousarray(a) for a in arrays]
        outs = self.make_outputs()
        if self._fast is not None:      # the common case, kept short: one call takes the
            st = self._fast(*xs, self.arena, *outs)     # tables, fills and runs
            return outs if not st else self._after(st, xs, outs)
        return self._locked(xs, outs)

    def _after(self, st, xs, outs):
        """A native call's non-zero status: a failed bounds check (st > 0) raises its error;
        the tables held by another call (st < 0) runs the call again under the lock."""
        if st > 0:
            raise self.failure(st, self.status)
        return self._locked(xs, outs)

    def _locked(self, xs, outs):
        """The call with the tables' lock taken (waiting for it where `exclusive`), or on
        private tables where another call holds it (the native call lets go of the GIL while
        kernels run, so another thread's call may be in progress)."""
        lock = self.program.lock
        if not lock.acquire(blocking=self.exclusive):
            return self._concurrent(xs, outs)
        try:
            return self._run(self.program, self.arena, self.status, xs, outs)
        finally:
            lock.release()

    def fast_runner(self, wrap):
        """For arrays known to be C-contiguous and of the graph's input dtypes (the jitted
        call's fast path checked them on its first call): run(arrays) -> wrap(output) where the
        graph has one output, else [wrap(output), ...]; None where a call is more than one
        stretch of kernels or the program has no native call. The same steps as __call__'s
        common case in one frame, with the arena and output sizes bound once and the kernels
        started by one builtin call (jitted `x * 2 + 1`: 5.5 -> ~1.8 us of CPU time a call).

        A small single output is one of the last two calls' outputs where no one else holds
        it any longer (as the caching allocator reuses large blocks: sys.getrefcount tells;
        views and wrappers of an array hold it), else a new array: `y = f(x)` in a loop, or
        a result dropped, allocates nothing."""
        call = self.program.native_call() if self.simple else None
        if call is None:
            return None
        arena, active = self.arena, profiling.active
        if len(self._outputs) != 1:
            make = self.make_outputs

            def run(xs):
                if active:                  # jg.profiler is recording
                    return [wrap(o) for o in self._profiled(xs)]
                outs = make()
                st = call(*xs, arena, *outs)
                if st:
                    outs = self._after(st, xs, outs)
                return [wrap(o) for o in outs]
            return run
        t = self._outputs[0]
        if t.nbytes >= allocator.SMALL:
            def run_pooled(xs):
                if active:
                    return wrap(self._profiled(xs)[0])
                out = self.make_outputs()[0]
                st = call(*xs, arena, out)
                if st:
                    out = self._after(st, xs, [out])[0]
                return wrap(out)
            return run_pooled
        make = functools.partial(np.empty, t.shape, np.dtype(t.dtype))
        spare, refs = [make(), make()], sys.getrefcount

        def run_one(xs):
            if active:
                return wrap(self._profiled(xs)[0])
            out = spare[0]          # 3 references: spare's, out's and refs' argument
            if refs(out) != 3:
                out = spare[1]
                if refs(out) != 3:
                    out = spare[0] = make()
            st = call(*xs, arena, out)
            if st:
                out = self._after(st, xs, [out])[0]
            return wrap(out)
        return run_one

    def occupied(self):
        """The lock a call holds while it uses the shared arena and tables, as a context manager:
        while it is held, a call takes private ones (as a second thread's call does), or waits
        for it when `exclusive`. For tests of re-entrant and concurrent calls."""
        return self.program.lock

    def _concurrent(self, xs, outs, recorders=None):
        """A call while another runs: private tables, arena and status pair."""
        status = np.zeros(2, np.int64)
        fixed = [status if a is self.status else a for a in self.fixed]
        program = self.program.clone(fixed)
        return self._run(program, allocator.aligned_empty(len(self.arena)), status, xs, outs,
                         recorders)

    def _profiled(self, arrays):
        """A call while jg.profiler records: each kernel and host step timed (the profilers in
        runtime.profiling.active receive the events)."""
        recorders = list(profiling.active)
        xs = [a if a.flags.c_contiguous else np.ascontiguousarray(a) for a in arrays]
        outs = self.make_outputs()
        t0 = time.perf_counter_ns()
        try:
            lock = self.program.lock
            if not lock.acquire(blocking=self.exclusive):
                return self._concurrent(xs, outs, recorders)
            try:
                return self._run(self.program, self.arena, self.status, xs, outs, recorders)
            finally:
                lock.release()
        finally:
            for r in recorders:
                r.call(self, t0, time.perf_counter_ns())

    def _run(self, program, arena, status, xs, outs, recorders=None):
        if self.simple and recorders is None:
            program.fill(xs + [arena] + outs)
            st = program.run(0, program.n_kernels)
            if st:
                raise self.failure(st, status)
            return outs
        hs = [allocator.empty(t.shape, t.dtype) for t in self.host_types]
        program.fill(xs + hs + [arena] + outs)
        for step in self.steps:
            if step[0] == "kernels" and recorders is None:
                st = program.run(step[1], step[2])
                if st:
                    raise self.failure(st, status)
            elif step[0] == "kernels":
                st, times = profiling.run_timed(program, step[1], step[2],
                                                profiling.in_order(recorders))
                profiling.deliver(recorders, self, step[1], times)
                if st:
                    raise self.failure(st, status)
            elif recorders is None:
                self._host(step[1], xs, hs, arena, outs)
            else:
                t0 = time.perf_counter_ns()
                self._host(step[1], xs, hs, arena, outs)
                for r in recorders:
                    r.host(self, step[1], t0, time.perf_counter_ns())
        return [outs[r] if isinstance(r, int) else read(*r, xs, hs, arena, outs, self.fixed)
                for r in self.results]

    def _host(self, h: HostStep, xs, hs, arena, outs):
        ins = [read(b, t, xs, hs, arena, outs, self.fixed) for b, t in h.inputs]
        res = interpret(h.node.params["body"], ins)
        for j, r in zip(h.index, res):
            hs[j][...] = r

    def failure(self, st, status):
        """The error of kernel st - 1's failed bounds check (status: [1, offending index]); a
        loop kernel's entry names the sub-program that failed (codegen/cpu/loops.py)."""
        if hasattr(self.checks[st - 1], "failed"):
            return self.checks[st - 1].failed()
        index = int(status[1])
        status[:] = 0
        op, check, size, src = self.checks[st - 1]
        return check_error(op, check, index, size, src)
