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
import threading

import numpy as np

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

define internal i64* @field(i64* %hdr, i64 %i) alwaysinline {
  %p = getelementptr i64, i64* %hdr, i64 %i
  %v = load i64, i64* %p
  %q = inttoptr i64 %v to i64*
  ret i64* %q
}

; the sequencer's jg_run, with times[2 * (k - start)] = start of kernel k, [+1] = its end
define i64 @jg_run_timed(i64* %hdr, i64 %start, i64 %end, i64* %times, i8* %clockp) {
entry:
  %clock = bitcast i8* %clockp to i32 (i32, %timespec*)*
  %fns = call i64* @field(i64* %hdr, i64 0)
  %argstart = call i64* @field(i64* %hdr, i64 1)
  %argbase = call i64* @field(i64* %hdr, i64 2)
  %argoff = call i64* @field(i64* %hdr, i64 3)
  %bases = call i64* @field(i64* %hdr, i64 4)
  %argv = call i64* @field(i64* %hdr, i64 5)
  br label %kloop
kloop:
  %k = phi i64 [%start, %entry], [%knext, %kdone]
  %more = icmp slt i64 %k, %end
  br i1 %more, label %kbody, label %exit
kbody:
  %ps = getelementptr i64, i64* %argstart, i64 %k
  %s = load i64, i64* %ps
  %k1 = add i64 %k, 1
  %pe = getelementptr i64, i64* %argstart, i64 %k1
  %e = load i64, i64* %pe
  br label %aloop
aloop:
  %j = phi i64 [%s, %kbody], [%jnext, %abody]
  %amore = icmp slt i64 %j, %e
  br i1 %amore, label %abody, label %call
abody:
  %pb = getelementptr i64, i64* %argbase, i64 %j
  %b = load i64, i64* %pb
  %pbase = getelementptr i64, i64* %bases, i64 %b
  %base = load i64, i64* %pbase
  %po = getelementptr i64, i64* %argoff, i64 %j
  %o = load i64, i64* %po
  %addr = add i64 %base, %o
  %slot = sub i64 %j, %s
  %pa = getelementptr i64, i64* %argv, i64 %slot
  store i64 %addr, i64* %pa
  %jnext = add i64 %j, 1
  br label %aloop
call:
  %pf = getelementptr i64, i64* %fns, i64 %k
  %f = load i64, i64* %pf
  %fp = inttoptr i64 %f to i64 (i64*)*
  %rel = sub i64 %k, %start
  %i0 = mul i64 %rel, 2
  %i1 = add i64 %i0, 1
  %pt0 = getelementptr i64, i64* %times, i64 %i0
  %pt1 = getelementptr i64, i64* %times, i64 %i1
  %t0 = call i64 @now(i32 (i32, %timespec*)* %clock)
  store i64 %t0, i64* %pt0
  %st = call i64 %fp(i64* %argv)
  %t1 = call i64 @now(i32 (i32, %timespec*)* %clock)
  store i64 %t1, i64* %pt1
  %bad = icmp ne i64 %st, 0
  br i1 %bad, label %fail, label %kdone
kdone:
  %knext = add i64 %k, 1
  br label %kloop
fail:
  ret i64 %k1
exit:
  ret i64 0
}
"""

_lock = threading.Lock()
_TIMED = None            # (ctypes function, clock_gettime's address, the engine owning the code)


def _timed_runner():
    global _TIMED
    with _lock:
        if _TIMED is None:
            import llvmlite.binding as llvm
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            mod = llvm.parse_assembly(_TIMED_IR)
            mod.verify()
            tm = llvm.Target.from_default_triple().create_target_machine(opt=2)
            engine = llvm.create_mcjit_compiler(mod, tm)
            engine.finalize_object()
            i64, ptr = ctypes.c_int64, ctypes.c_void_p
            fn = ctypes.CFUNCTYPE(i64, ptr, i64, i64, ptr, ptr)(
                engine.get_function_address("jg_run_timed"))
            clock = ctypes.cast(ctypes.CDLL(None).clock_gettime, ctypes.c_void_p).value
            _TIMED = (fn, clock, engine)
    return _TIMED


def prepare() -> None:
    """Build the timed runner (once per process; llvmlite loads here)."""
    _timed_runner()


def run_timed(program, start: int, end: int):
    """Run kernels [start, end) of a sequencer Program one by one, timing each:
    (status as Program.run returns it, int64 array [end - start, 2] of start/end times in
    perf_counter_ns's clock; rows after a failed kernel are 0)."""
    fn, clock, _ = _timed_runner()
    times = np.zeros((max(end - start, 0), 2), np.int64)
    st = fn(int(program.header.ctypes.data), start, end, times.ctypes.data, clock)
    return st, times
