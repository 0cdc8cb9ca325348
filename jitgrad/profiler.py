"""jg.profiler: where a program's time goes, kernel by kernel, in torch.profiler's shape.

    with jg.profiler.profile() as prof:
        step(params, x, y)
    print(prof.table(sort_by="total", row_limit=10))
    prof.export_chrome_trace("trace.json")          # chrome://tracing, ui.perfetto.dev

What is recorded while a profile is open, each event on the thread that ran it:
- every compiled kernel call (CPU backend): the sequencer runs each stretch of kernels through a
  timed variant of its native loop (runtime/profiling.py), which reads the clock before and after
  every kernel, so each kernel is measured on its own without a Python call per kernel;
- host steps between kernels (random numbers, control flow, complex values: the NumPy reference);
- each jitted call as a whole ("call" events: the kernels plus the per-call work around them);
- compiles (tracing excluded: the pass pipeline and code generation of one signature);
- eager operations (op by op, NumPy reference or CUDA kernels), named by op and source line;
- graphs run by the reference interpreter (grad, vjp, jvp, vmap outside jit), node by node
  ("interpreted" rows), each run a "call".

Off by default: when no profile is open, a compiled call makes one test of an empty list and runs
its one native call over the whole schedule; nothing is done per kernel. JITGRAD_PROFILE=path.json
profiles a whole program and writes the trace (and the table, to stderr) when it exits.
"""
from __future__ import annotations

import atexit
import contextlib
import json
import os
import sys
import threading
import time
import weakref
from dataclasses import asdict, dataclass

from .eager.dispatch import EAGER_BACKENDS
from .ir import config
from .ir.registry import KIND
from .runtime import profiling
from .trace.source_info import user_source_info

__all__ = ["profile", "Profile", "KernelAverage", "KernelAverages", "ProfiledKernel"]

HIDDEN_OPS = frozenset({"constant", "broadcast_to", "reshape"})   # not part of a kernel's name
SORT_KEYS = {"total": lambda r: -r.total_ms, "mean": lambda r: -r.mean_us,
             "calls": lambda r: -r.calls, "bytes": lambda r: -r.bytes * r.calls,
             "flops": lambda r: -r.flops * r.calls, "name": lambda r: r.name}
# event categories that are rows of the table
TABLE_KINDS = ("kernel", "host", "eager", "interpreted")
# torch.profiler's names for the same orders
SORT_ALIASES = {"cpu_time_total": "total", "self_cpu_time_total": "total",
                "cpu_time": "mean", "self_cpu_time": "mean", "count": "calls"}


@dataclass(frozen=True)
class ProfiledKernel:
    """What one kernel of a schedule is: a name made of its ops, the user's source line(s), its
    fusion kind, its input shapes, and per call the bytes it reads and writes and its FLOPs."""
    name: str
    source: str
    kind: str
    shapes: str
    bytes: int
    flops: int


@dataclass
class KernelAverage:
    """One row of `prof.key_averages()` / `prof.table()`: every call of kernels with the same
    name, source, kind and shapes."""
    name: str
    source: str
    kind: str
    shapes: str
    calls: int
    total_ms: float
    mean_us: float
    share: float          # of the total time of the profiled jitted calls (else of all rows)
    bytes: int            # per call
    flops: int            # per call
    gb_per_s: float
    gflop_per_s: float


def _op_flops(n) -> int:
    """Floating-point operations of one body node (multiply-add = 2 in a matmul)."""
    kind = KIND.get(n.op)
    if kind == "matmul":
        k = n.inputs[0].type.shape[-1] if n.inputs[0].type.shape else 1
        return 2 * n.outputs[0].type.size * k
    if kind == "elementwise" and n.op.value not in ("convert", "stop_gradient"):
        return n.outputs[0].type.size
    if kind in ("reduce", "cumulative"):
        return n.inputs[0].type.size
    return 0


def _shape(t) -> str:
    return "[" + ",".join(map(str, t.shape)) + "]"


def _short_source(info) -> str:
    if not info:
        return ""
    lines = info.split(", ")
    return lines[0] + (f" (+{len(lines) - 1})" if len(lines) > 1 else "")


def kernel_info(node) -> ProfiledKernel:
    """The ProfiledKernel of a kernel node of a schedule (op="kernel", params kind and body)."""
    body = node.params.get("body")
    nodes = body.nodes if body is not None else [node]
    ops = list(dict.fromkeys(n.op.value for n in nodes if n.op.value not in HIDDEN_OPS))
    ops = ops or [nodes[0].op.value if nodes else "copy"]
    name = "+".join(ops[:4]) + ("+..." if len(ops) > 4 else "")
    nbytes = sum(v.type.nbytes for v in (*node.inputs, *node.outputs))
    return ProfiledKernel(name, _short_source(node.source_info), node.params.get("kind", "opaque"),
                      "x".join(_shape(v.type) for v in node.inputs) or "()", nbytes,
                      sum(_op_flops(n) for n in nodes))


_INFOS = weakref.WeakKeyDictionary()       # a sequenced run -> its kernels' ProfiledKernel


def _infos(run):
    infos = _INFOS.get(run)
    if infos is None:
        nodes = getattr(run, "kernel_nodes", None) or []
        infos = _INFOS[run] = [kernel_info(n) for n in nodes]
    return infos


@dataclass
class Event:
    name: str
    cat: str            # kernel | host | call | compile | eager | interpreted | span
    t0: int             # perf_counter_ns
    t1: int
    tid: int
    info: ProfiledKernel | None = None


class Profile:
    """A recording; use as `with jg.profiler.profile() as prof:`."""

    def __init__(self):
        self.events: list[Event] = []
        self._lock = threading.Lock()
        self._eager = {}
        self.start_ns = self.end_ns = None

    # -- recording ---------------------------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        if self in profiling.active:
            raise RuntimeError("this profile is already recording")
        profiling.prepare()         # build the timed runner now, not inside a timed call
        self.start_ns = time.perf_counter_ns()
        profiling.active.append(self)
        if len(profiling.active) == 1:
            _wrap_eager()

    def stop(self):
        if self not in profiling.active:
            return
        profiling.active.remove(self)
        if not profiling.active:
            _unwrap_eager()
        self.end_ns = time.perf_counter_ns()

    def _add(self, ev: Event):
        with self._lock:
            self.events.append(ev)

    def kernels(self, run, start, times, tids=None):
        """From the executable: kernels start, start+1, ... of `run` ran over [t0, t1] rows;
        tids: per row, the thread that ran it (a wave's lanes run on the pool's threads);
        rows of kernels that did not run (after a failed one) are 0."""
        infos, tid = _infos(run), threading.get_native_id()
        for i, (t0, t1) in enumerate(times.tolist()):
            if t0 == 0:
                continue
            info = infos[start + i] if start + i < len(infos) else ProfiledKernel(
                f"kernel {start + i}", "", "opaque", "", 0, 0)
            self._add(Event(info.name, "kernel", t0, t1, tid if tids is None else tids[i], info))

    def host(self, run, step, t0, t1):
        """From the executable: a host step (a kernel body run by the NumPy reference)."""
        self._node_event(step.node, "host", t0, t1)

    def interpreted(self, node, t0, t1):
        """From runtime/profiling.interpreted: a node of a graph run by the reference interpreter
        (grad, vjp, jvp, vmap outside jit)."""
        self._node_event(node, "interpreted", t0, t1)

    def _node_event(self, node, kind, t0, t1):
        info = kernel_info(node)
        info = ProfiledKernel(info.name, info.source, kind, info.shapes, info.bytes, info.flops)
        self._add(Event(info.name, kind, t0, t1, threading.get_native_id(), info))

    def call(self, run, t0, t1):
        """From the executable (and runtime/profiling.interpreted): one whole call."""
        self._add(Event(getattr(run, "name", "call"), "call", t0, t1,
                        threading.get_native_id()))

    @contextlib.contextmanager
    def span(self, name, cat="span"):
        """Record the enclosed block as one event (compiles; also usable for user steps)."""
        t0 = time.perf_counter_ns()
        try:
            yield
        finally:
            ev = Event(name, cat, t0, time.perf_counter_ns(), threading.get_native_id())
            for p in list(profiling.active) or [self]:
                p._add(ev)

    # -- results -----------------------------------------------------------------------------
    def key_averages(self) -> "KernelAverages":
        """One KernelAverage per (name, source, kind, shapes), in first-seen order; the list
        has `.table(sort_by, row_limit)` as torch's key_averages() does."""
        groups: dict = {}
        for ev in self.events:
            if ev.cat in TABLE_KINDS:
                g = groups.setdefault(ev.info, [0, 0])
                g[0] += 1
                g[1] += ev.t1 - ev.t0
        calls_ns = sum(ev.t1 - ev.t0 for ev in self.events if ev.cat == "call")
        denom = calls_ns or sum(g[1] for g in groups.values()) or 1
        rows = []
        for info, (n, ns) in groups.items():
            mean_s = ns / n / 1e9
            rows.append(KernelAverage(
                info.name, info.source, info.kind, info.shapes, n, ns / 1e6, mean_s * 1e6,
                ns / denom, info.bytes, info.flops,
                info.bytes / mean_s / 1e9 if mean_s else 0.0,
                info.flops / mean_s / 1e9 if mean_s else 0.0))
        return KernelAverages(rows, self)

    def table(self, sort_by: str = "total", row_limit: int = 20) -> str:
        """The rows of key_averages() as a text table, sorted by `sort_by` (total, mean, calls,
        bytes, flops, name; torch's cpu_time_total, self_cpu_time_total, count also work), at
        most `row_limit` rows (-1: all)."""
        return self._table(self.key_averages(), sort_by, row_limit)

    def _table(self, rows, sort_by, row_limit) -> str:
        sort_by = SORT_ALIASES.get(sort_by, sort_by)
        if sort_by not in SORT_KEYS:
            raise ValueError(f"table: sort_by={sort_by!r}; expected one of "
                             f"{', '.join(SORT_KEYS)}")
        rows = sorted(rows, key=SORT_KEYS[sort_by])
        shown = rows if row_limit is None or row_limit < 0 else rows[:row_limit]
        head = ["Name", "Source", "Kind", "Shapes", "Calls", "Total ms", "Mean us", "%",
                "Bytes", "FLOPs", "Rate"]
        body = [[_clip(r.name, 32), _clip(r.source, 28), r.kind, _clip(r.shapes, 36),
                 str(r.calls), f"{r.total_ms:.3f}", f"{r.mean_us:.1f}", f"{100 * r.share:.1f}",
                 _si(r.bytes, "B"), _si(r.flops, ""), _rate(r)] for r in shown]
        widths = [max(len(x) for x in col) for col in zip(head, *body)]
        right = {4, 5, 6, 7, 8, 9, 10}

        def fmt(cells):
            return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                             for i, (c, w) in enumerate(zip(cells, widths)))
        rule = "-" * len(fmt(head))
        out = [rule, fmt(head), rule] + [fmt(b) for b in body] + [rule]
        out.append(self._summary(rows))
        return "\n".join(out)

    def _summary(self, rows) -> str:
        calls = [e for e in self.events if e.cat == "call"]
        compiles = [e for e in self.events if e.cat == "compile"]
        kern = sum(r.total_ms for r in rows)
        parts = [f"{len(rows)} rows, {kern:.3f} ms in them"]
        if calls:
            parts.append(f"{len(calls)} calls (jitted or interpreted), "
                         f"{sum(e.t1 - e.t0 for e in calls) / 1e6:.3f} ms in them")
        if compiles:
            parts.append(f"{len(compiles)} compiles, "
                         f"{sum(e.t1 - e.t0 for e in compiles) / 1e9:.3f} s")
        return "; ".join(parts)

    def export_chrome_trace(self, path) -> None:
        """Write the events in Chrome's trace event format (JSON; chrome://tracing, Perfetto):
        complete events ("ph": "X", microseconds) on one track per thread."""
        with open(path, "w") as f:
            json.dump(self.chrome_trace(), f)

    def chrome_trace(self) -> dict:
        pid = os.getpid()
        t_base = min([e.t0 for e in self.events] + [self.start_ns or 0]) if self.events else 0
        events = []
        for tid in sorted({e.tid for e in self.events}):
            name = next((t.name for t in threading.enumerate() if t.native_id == tid),
                        f"thread {tid}")
            events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                           "args": {"name": name}})
        for e in self.events:
            ev = {"name": e.name, "cat": e.cat, "ph": "X", "pid": pid, "tid": e.tid,
                  "ts": (e.t0 - t_base) / 1e3, "dur": (e.t1 - e.t0) / 1e3}
            if e.info is not None:
                ev["args"] = {k: v for k, v in asdict(e.info).items() if k != "name"}
            events.append(ev)
        return {"traceEvents": events, "displayTimeUnit": "ms"}


class KernelAverages(list):
    """prof.key_averages(): a list of KernelAverage rows, with .table() like the profile's."""

    def __init__(self, rows, profile):
        super().__init__(rows)
        self.profile = profile

    def table(self, sort_by: str = "total", row_limit: int = 20) -> str:
        return self.profile._table(list(self), sort_by, row_limit)


def profile() -> Profile:
    """A profiler: `with jg.profiler.profile() as prof: ...`, then `prof.table()`,
    `prof.key_averages()`, `prof.export_chrome_trace(path)`."""
    return Profile()


# ------------------------------------------------------------------------- eager ops

_PLAIN = {}             # device type -> the eager backend function while wrapped


def _wrap_eager():
    for dev, fn in list(EAGER_BACKENDS.items()):
        _PLAIN[dev] = fn

        def timed(op, arrays, params, out_types, _fn=fn):
            t0 = time.perf_counter_ns()
            try:
                return _fn(op, arrays, params, out_types)
            finally:
                t1 = time.perf_counter_ns()
                name = getattr(op, "value", str(op))
                info = ProfiledKernel(name, user_source_info() or "", "eager",
                                  "x".join("[" + ",".join(map(str, getattr(a, "shape", ())))
                                           + "]" for a in arrays) or "()",
                                  sum(getattr(a, "nbytes", 0) for a in arrays)
                                  + sum(t.nbytes for t in out_types), 0)
                ev = Event(name, "eager", t0, t1, threading.get_native_id(), info)
                for p in list(profiling.active):
                    p._add(ev)
        EAGER_BACKENDS[dev] = timed


def _unwrap_eager():
    EAGER_BACKENDS.update(_PLAIN)
    _PLAIN.clear()


# ------------------------------------------------------------------------- formatting

def _clip(s, n):
    return s if len(s) <= n else s[:n - 3] + "..."


def _si(x, unit):
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if x >= scale:
            return f"{x / scale:.1f}{prefix}{unit}"
    return f"{int(x)}{unit}" if x else "-"


def _rate(r) -> str:
    if r.flops and "matmul" in (r.kind, r.name):      # a fused product, or an interpreted one
        return f"{r.gflop_per_s:.1f} GFLOP/s"
    return f"{r.gb_per_s:.2f} GB/s" if r.bytes else "-"


# ------------------------------------------------------------------------- JITGRAD_PROFILE

_ENV_PROFILE = None


def profile_from_env() -> Profile | None:
    """JITGRAD_PROFILE=path.json: record the whole program; at exit write the Chrome trace to
    the path and the table (top 30 by total time) to stderr."""
    global _ENV_PROFILE
    path = config.read("profile")
    if not path or _ENV_PROFILE is not None:
        return _ENV_PROFILE
    prof = _ENV_PROFILE = Profile()
    prof.start()

    def finish():
        prof.stop()
        try:
            prof.export_chrome_trace(path)
        except OSError as e:
            print(f"[jitgrad] JITGRAD_PROFILE: could not write {path}: {e}", file=sys.stderr)
            return
        print(f"[jitgrad] profile written to {path}\n{prof.table(row_limit=30)}", file=sys.stderr)
    atexit.register(finish)
    return prof
