"""The runtime's side of the profiler (jitgrad/profiler.py): who is listening, and a timed
variant of the sequencer's kernel loop.

`active` is the list of profilers recording now; it is empty unless a `jg.profiler.profile()`
block (or JITGRAD_PROFILE) is open. The executable checks it once per call
(runtime/executable.py); only when it is non-empty does a call take the instrumented path, which
runs each stretch of kernels through `run_timed`: the same walk over the program's table as
runtime/sequencer.py's `jg_run`, with a CLOCK_MONOTONIC read (libc's clock_gettime, the clock
behind Python's time.perf_counter_ns on Linux) before and after every kernel, written into an
int64 array. The plain runner and its one native call per schedule are untouched, so profiling
off costs one list test per call and nothing per kernel.
"""
from __future__ import annotations

import ctypes
import inspect
import threading
import time

import numpy as np

from . import native_code, sequencer

active: list = []          # the open profilers (jitgrad.profiler.Profile), innermost last

_TIMED_IR = r"""
%timespec = type { i64, i64 }

define internal i64 @now(i32 (i32, %timespec*)* %clock) {
  %ts = alloca %timespec
  %r = call i32 %clock(i32 1, %timespec* %ts)
  %ps = getelementptr %timespec, %timespec* %ts, i32 0, i32 0
  %s = load i64, i64* %ps
  %pn = getelementptr %timespec, %timespec* %ts, i32 0, i32 1
  %n = load i64, i64* %pn
  %sn = mul i64 %s, 1000000000
  %t = add i64 %sn, %n
  ret i64 %t
}
""" + sequencer.FIELD_IR + sequencer.kernel_walk_ir(
    # the sequencer's jg_run, with times[3 * (k - start)] = start of kernel k, [+1] = its end,
    # [+2] = the thread that ran it (gettid: a wave's kernels run on the pool's threads)
    "jg_run_timed", params=", i64* %times, i8* %clockp, i8* %tidp",
    entry="""  %clock = bitcast i8* %clockp to i32 (i32, %timespec*)*
  %gettid = bitcast i8* %tidp to i32 ()*
""",
    before="""  %rel = sub i64 %k, %start
  %i0 = mul i64 %rel, 3
  %i1 = add i64 %i0, 1
  %i2 = add i64 %i0, 2
  %pt0 = getelementptr i64, i64* %times, i64 %i0
  %pt1 = getelementptr i64, i64* %times, i64 %i1
  %pt2 = getelementptr i64, i64* %times, i64 %i2
  %t0 = call i64 @now(i32 (i32, %timespec*)* %clock)
  store i64 %t0, i64* %pt0
""",
    after="""  %t1 = call i64 @now(i32 (i32, %timespec*)* %clock)
  store i64 %t1, i64* %pt1
  %tid32 = call i32 %gettid()
  %tid = sext i32 %tid32 to i64
  store i64 %tid, i64* %pt2
""")

_lock = threading.Lock()
_TIMED = None            # (ctypes function, clock_gettime's address, gettid's address)


def _timed_runner():
    global _TIMED
    with _lock:
        if _TIMED is None:
            (at,) = native_code.load(_TIMED_IR, ["jg_run_timed"])
            i64, ptr = ctypes.c_int64, ctypes.c_void_p
            fn = ctypes.CFUNCTYPE(i64, ptr, i64, i64, ptr, ptr, ptr)(at)
            libc = ctypes.CDLL(None)
            clock = ctypes.cast(libc.clock_gettime, ctypes.c_void_p).value
            gettid = ctypes.cast(libc.gettid, ctypes.c_void_p).value
            _TIMED = (fn, clock, gettid)
    return _TIMED


def prepare() -> None:
    """Build the timed runner (once per process, from the kernel cache after the first; llvmlite loads here)."""
    _timed_runner()


def run_timed(program, start: int, end: int, in_order: bool = False):
    """Run kernels [start, end) of a sequencer Program, timing each: (status as Program.run
    returns it, int64 array [end - start, 3] of start and end times in perf_counter_ns's clock
    and the native id of the thread that ran it (threading.get_native_id's; a wave's lanes run
    on the pool's threads); rows of kernels that did not run are 0). in_order: no wave, every
    kernel on the calling thread in order."""
    fn, clock, gettid = _timed_runner()
    times = np.zeros((max(end - start, 0), 3), np.int64)
    header = program.in_order if in_order else program.header
    st = fn(int(header.ctypes.data), start, end, times.ctypes.data, clock, gettid)
    return st, times


def deliver(recorders, run, start, times) -> None:
    """Hand run_timed's rows to the profilers, each kernel an event on the thread that ran it:
    a profiler's `kernels(run, start, times, tids=...)` gets the rows' threads when it takes
    them; `kernels(run, start, times)` records the rows as the calling thread's (run the
    stretch in_order for those: see in_order)."""
    spans = np.ascontiguousarray(times[:, :2])
    for r in recorders:
        if takes_tids(r):
            r.kernels(run, start, spans, tids=times[:, 2].tolist())
        else:
            r.kernels(run, start, spans)


def in_order(recorders) -> bool:
    """Whether a profiled stretch runs without waves: some recorder would put every kernel on
    the calling thread (its `kernels` takes no `tids`), which a wave's lanes are not."""
    return not all(takes_tids(r) for r in recorders)


def takes_tids(recorder) -> bool:
    """Whether the recorder's `kernels` takes each row's thread (`tids`)."""
    try:
        return "tids" in inspect.signature(recorder.kernels).parameters
    except (TypeError, ValueError):
        return False


def interpreted(graph, arrays, interpret):
    """Run `graph` on `arrays` with the reference interpreter `interpret` (ir/interpreter.py),
    each node an "interpreted" event of every open profiler and the whole run one "call": how
    grad, vjp, jvp and vmap run outside jit."""
    recorders = list(active)

    def on_node(node, t0, t1):
        for r in recorders:
            r.interpreted(node, t0, t1)
    t0 = time.perf_counter_ns()
    try:
        return interpret(graph, arrays, on_node)
    finally:
        t1 = time.perf_counter_ns()
        for r in recorders:
            r.call(graph, t0, t1)
