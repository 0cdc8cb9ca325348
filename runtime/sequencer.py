"""The sequencer: runs a schedule's compiled kernels in order, by address, over typed buffers.

Every kernel is compiled on its own (codegen/cpu/units.py) to a C-ABI function
`int64 kernel(void **argv)`, argv[j] the address of its j-th flat array. A Program is a table:
per kernel its address and, per argument, a Slot (base, byte offset); the bases are the addresses
of the call's arrays (inputs, host-op results, the arena, outputs: written on every call) and of
fixed ones (array constants, the status pair). One small LLVM function, built once per machine
with llvmlite (runtime/native_code.py), walks the table: a new signature compiles nothing of its
own, its set-up is linear in the number of kernels, and no kernel body is re-typed, inlined or
re-optimized.

A call is one call of a builtin function, `jg_call(*arrays)` (runtime/native_builtin.py: the
header is its `self`): it reads the data address of each array (inputs, host results, arena,
outputs) into the bases and runs the kernels with the GIL released. The addresses are read from
the objects themselves (NumPy's `data` field), a layout checked once per process against
`ndarray.ctypes.data`; where the check
fails (a CPython whose object headers differ, e.g. a Py_TRACE_REFS debug build), a Python loop
over `ndarray.ctypes.data` writes them instead. A kernel that returns non-zero stops the run,
which returns 1 + that kernel's position.

Waves (issue 26): the memory plan groups chains of small kernels of independent branches into
waves of lanes (plan.waves); a wave's lanes sit at consecutive positions, lane after lane, and
the walk hands the wave to the thread pool (runtime/thread_pool.py's jg_parallel_for, one item
per lane): the caller and the woken workers each take lanes until none is left, run a lane's
kernels in order, and the walk goes on once every lane has finished. With one thread, or the
pool busy (another call's kernel), the lanes run on the calling thread in order. A failed
kernel ends its lane; the walk returns 1 + the first failed position.
"""
from __future__ import annotations

import ctypes
import threading
import time
from dataclasses import dataclass

import numpy as np

from . import native_builtin, native_code, thread_pool

# The walk over a Program's table, kernel by kernel: a template, so that the profiler's timed
# variant (runtime/profiling.py) is this same loop with hooks around each kernel call. A wave
# starting at k (header field 6: wave_ends[k] > k + 1) goes to the thread pool as one job of
# lane_count[k] items (jg_parallel_for, whose address is header field 7; fields 9-11: lane_first,
# lane_count, lanes): each item runs a lane's kernels with its own argv (field 8: its size).
# Header: 0 fns, 1 argstart, 2 argbase, 3 argoff, 4 bases, 5 argv, 6 wave_ends, 7 pool entry,
# 8 argv size, 9 lane_first, 10 lane_count, 11 lanes, 12 number of kernels; 13-15 the C API
# functions jg_call_fast calls (PyLong_FromLongLong, PyEval_SaveThread, PyEval_RestoreThread),
# 16 the lock of the tables (TableLock).
_WALK_IR = r"""
define i64 @@@NAME@@(i64* %hdr, i64 %start, i64 %end@@PARAMS@@) {
entry:
@@ENTRY@@  %fns = call i64* @field(i64* %hdr, i64 0)
  %argstart = call i64* @field(i64* %hdr, i64 1)
  %argbase = call i64* @field(i64* %hdr, i64 2)
  %argoff = call i64* @field(i64* %hdr, i64 3)
  %bases = call i64* @field(i64* %hdr, i64 4)
  %argv = call i64* @field(i64* %hdr, i64 5)
  %wends = call i64* @field(i64* %hdr, i64 6)
  br label %kloop
kloop:
  %k = phi i64 [%start, %entry], [%knext, %kdone], [%we, %wdone]
  %more = icmp slt i64 %k, %end
  br i1 %more, label %kbody, label %exit
kbody:
  %pw = getelementptr i64, i64* %wends, i64 %k
  %we = load i64, i64* %pw
  %k1 = add i64 %k, 1
  %iswave = icmp sgt i64 %we, %k1
  br i1 %iswave, label %wave, label %single
wave:
  %wst = call i64 @@@NAME@@_wave(i64* %hdr, i64 %k, i64 %we, i64 %start@@ARGS@@)
  %wbad = icmp ne i64 %wst, 0
  br i1 %wbad, label %wfail, label %wdone
wfail:
  ret i64 %wst
wdone:
  br label %kloop
single:
@@CALL:single@@kdone:
  %knext = add i64 %k, 1
  br label %kloop
fail:
  ret i64 %k1
exit:
  ret i64 0
}

; a wave: kernels [k0, kend), its lanes the items of one job of the pool; 0, or 1 + the first
; kernel that failed
define internal i64 @@@NAME@@_wave(i64* %hdr, i64 %k0, i64 %kend, i64 %start@@PARAMS@@) {
  %ctx = alloca [@@NCTX@@ x i64]
  %c = getelementptr [@@NCTX@@ x i64], [@@NCTX@@ x i64]* %ctx, i64 0, i64 0
  %hdri = ptrtoint i64* %hdr to i64
  store i64 %hdri, i64* %c
  %c1 = getelementptr i64, i64* %c, i64 1
  store i64 %k0, i64* %c1
  %c2 = getelementptr i64, i64* %c, i64 2
  store i64 9223372036854775807, i64* %c2
  %c3 = getelementptr i64, i64* %c, i64 3
  store i64 %start, i64* %c3
@@STORE@@  %pp = getelementptr i64, i64* %hdr, i64 7
  %pool = load i64, i64* %pp
  %poolf = inttoptr i64 %pool to void (void (i8*, i64, i64)*, i8*, i64, i64)*
  %counts = call i64* @field(i64* %hdr, i64 10)
  %pn = getelementptr i64, i64* %counts, i64 %k0
  %n = load i64, i64* %pn
  %ci8 = bitcast i64* %c to i8*
  call void %poolf(void (i8*, i64, i64)* @@@NAME@@_item, i8* %ci8, i64 %n, i64 1)
  %failed = load atomic i64, i64* %c2 acquire, align 8
  %none = icmp eq i64 %failed, 9223372036854775807
  %r = select i1 %none, i64 0, i64 %failed
  ret i64 %r
}

; lanes [ib, ie) of a wave, on whichever thread the pool gives them: each lane's kernels in
; order, until one fails
define internal void @@@NAME@@_item(i8* %ctxi8, i64 %ib, i64 %ie) {
entry:
  %c = bitcast i8* %ctxi8 to i64*
  %hdri = load i64, i64* %c
  %hdr = inttoptr i64 %hdri to i64*
  %c1 = getelementptr i64, i64* %c, i64 1
  %k0 = load i64, i64* %c1
  %c2 = getelementptr i64, i64* %c, i64 2
  %c3 = getelementptr i64, i64* %c, i64 3
  %start = load i64, i64* %c3
@@LOAD@@@@ENTRY@@  %fns = call i64* @field(i64* %hdr, i64 0)
  %argstart = call i64* @field(i64* %hdr, i64 1)
  %argbase = call i64* @field(i64* %hdr, i64 2)
  %argoff = call i64* @field(i64* %hdr, i64 3)
  %bases = call i64* @field(i64* %hdr, i64 4)
  %firsts = call i64* @field(i64* %hdr, i64 9)
  %bounds = call i64* @field(i64* %hdr, i64 11)
  %pfirst = getelementptr i64, i64* %firsts, i64 %k0
  %first = load i64, i64* %pfirst
  %pm = getelementptr i64, i64* %hdr, i64 8
  %maxargs = load i64, i64* %pm
  %argv = alloca i64, i64 %maxargs
  br label %lloop
lloop:
  %it = phi i64 [%ib, %entry], [%itnext, %ldone]
  %lmore = icmp slt i64 %it, %ie
  br i1 %lmore, label %lbody, label %exit
lbody:
  %li = add i64 %first, %it
  %pls = getelementptr i64, i64* %bounds, i64 %li
  %ls = load i64, i64* %pls
  %li1 = add i64 %li, 1
  %ple = getelementptr i64, i64* %bounds, i64 %li1
  %le = load i64, i64* %ple
  br label %kloop
kloop:
  %k = phi i64 [%ls, %lbody], [%k1, %kdone]
  %more = icmp slt i64 %k, %le
  br i1 %more, label %kbody, label %ldone
kbody:
  %k1 = add i64 %k, 1
@@CALL:kbody@@kdone:
  br label %kloop
fail:
  %old = atomicrmw min i64* %c2, i64 %k1 acq_rel
  br label %ldone
ldone:
  %itnext = add i64 %it, 1
  br label %lloop
exit:
  ret void
}
"""

# Kernel %k's call, in the walk and in a wave's lanes alike (from block @@FROM@@, %k1 = %k + 1
# defined): its argv filled from the table (base + offset per slot), the call between the
# profiler's hooks, and a branch to %fail on a non-zero status, else to %kdone.
_CALL_KERNEL_IR = r"""  %ps = getelementptr i64, i64* %argstart, i64 %k
  %s = load i64, i64* %ps
  %pe = getelementptr i64, i64* %argstart, i64 %k1
  %e = load i64, i64* %pe
  br label %aloop
aloop:
  %j = phi i64 [%s, %@@FROM@@], [%jnext, %abody]
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
@@BEFORE@@  %st = call i64 %fp(i64* %argv)
@@AFTER@@  %bad = icmp ne i64 %st, 0
  br i1 %bad, label %fail, label %kdone
"""

FIELD_IR = r"""
define internal i64* @field(i64* %hdr, i64 %i) alwaysinline {
  %p = getelementptr i64, i64* %hdr, i64 %i
  %v = load i64, i64* %p
  %q = inttoptr i64 %v to i64*
  ret i64* %q
}
"""


def kernel_walk_ir(name: str, params: str = "", entry: str = "", before: str = "",
                   after: str = "") -> str:
    """LLVM IR of `i64 name(i64* %hdr, i64 %start, i64 %end<params>)` running kernels
    [start, end) of a Program (1 + the position of a failing kernel, else 0); `entry` runs first,
    `before`/`after` around each kernel call (%k is the kernel's position, %fp its address,
    %start the first position of the run). Params are pointers (", i64* %a, i8* %b"): a wave
    hands them to the threads that run its kernels, where the hooks run too."""
    typed = [p.strip().split() for p in params.split(",") if p.strip()]
    store = "".join(f"  %cs{i} = getelementptr i64, i64* %c, i64 {4 + i}\n"
                    f"  %cv{i} = ptrtoint {t} {v} to i64\n"
                    f"  store i64 %cv{i}, i64* %cs{i}\n" for i, (t, v) in enumerate(typed))
    load = "".join(f"  %cs{i} = getelementptr i64, i64* %c, i64 {4 + i}\n"
                   f"  %cv{i} = load i64, i64* %cs{i}\n"
                   f"  {v} = inttoptr i64 %cv{i} to {t}\n" for i, (t, v) in enumerate(typed))
    args = "".join(f", {t} {v}" for t, v in typed)
    walk = _WALK_IR
    for block in ("single", "kbody"):
        walk = walk.replace(f"@@CALL:{block}@@", _CALL_KERNEL_IR.replace("@@FROM@@", block))
    return (walk.replace("@@NAME@@", name).replace("@@PARAMS@@", params)
            .replace("@@ARGS@@", args).replace("@@NCTX@@", str(4 + len(typed)))
            .replace("@@STORE@@", store).replace("@@LOAD@@", load)
            .replace("@@ENTRY@@", entry).replace("@@BEFORE@@", before).replace("@@AFTER@@", after))


_RUNNER_IR = kernel_walk_ir("jg_run") + r"""
; arrays: a tuple of ndarrays. CPython's PyTupleObject keeps ob_size at byte 16 and its items
; from byte 24; NumPy's PyArrayObject keeps its data pointer at byte 16 (checked: _self_test)
define internal void @fill_items(i64* %bases, i64 %start, i8** %items, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%inext, %body]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %body, label %exit
body:
  %pitem = getelementptr i8*, i8** %items, i64 %i
  %item = load i8*, i8** %pitem
  %pdata = getelementptr i8, i8* %item, i64 16
  %pdata64 = bitcast i8* %pdata to i64*
  %data = load i64, i64* %pdata64
  %slot = add i64 %start, %i
  %pb = getelementptr i64, i64* %bases, i64 %slot
  store i64 %data, i64* %pb
  %inext = add i64 %i, 1
  br label %loop
exit:
  ret void
}

define void @jg_fill(i64* %bases, i64 %start, i8* %arrays) {
  %psize = getelementptr i8, i8* %arrays, i64 16
  %psize64 = bitcast i8* %psize to i64*
  %n = load i64, i64* %psize64
  %pitems = getelementptr i8, i8* %arrays, i64 24
  %items = bitcast i8* %pitems to i8**
  call void @fill_items(i64* %bases, i64 %start, i8** %items, i64 %n)
  ret void
}

; Python builtin functions (METH_FASTCALL, runtime/native_builtin.py) whose self is the header
; (an int64 ndarray). Header fields 13-15 hold CPython's PyLong_FromLongLong, PyEval_SaveThread
; and PyEval_RestoreThread; field 16 is the tables' lock: 1 while a call uses the bases, argv
; and arena. It is read and written only with the GIL held (jg_call_fast takes it before
; letting go of the GIL and gives it back after taking the GIL again), so plain loads and
; stores suffice, and a Python-side holder (TableLock) excludes the native calls as well.
define internal i8* @py_int(i64* %hdr, i64 %v) {
  %pint = getelementptr i64, i64* %hdr, i64 13
  %int = load i64, i64* %pint
  %intf = inttoptr i64 %int to i8* (i64)*
  %res = call i8* %intf(i64 %v)
  ret i8* %res
}

define internal i64* @self_header(i8* %self) alwaysinline {
  %phdr = getelementptr i8, i8* %self, i64 16
  %phdr64 = bitcast i8* %phdr to i64**
  %hdr = load i64*, i64** %phdr64
  ret i64* %hdr
}

; jg_call(*arrays): the lock taken, the arrays' addresses filled in, every kernel run without the
; GIL; 0, 1 + the position of a failed kernel, or -1 (the lock was held: nothing ran)
define i8* @jg_call_fast(i8* %self, i8** %args, i64 %nargs) {
entry:
  %hdr = call i64* @self_header(i8* %self)
  %plock = getelementptr i64, i64* %hdr, i64 16
  %held = load i64, i64* %plock
  %busy = icmp ne i64 %held, 0
  br i1 %busy, label %taken, label %go
taken:
  %r = call i8* @py_int(i64* %hdr, i64 -1)
  ret i8* %r
go:
  store i64 1, i64* %plock
  %bases = call i64* @field(i64* %hdr, i64 4)
  call void @fill_items(i64* %bases, i64 0, i8** %args, i64 %nargs)
  %pend = getelementptr i64, i64* %hdr, i64 12
  %end = load i64, i64* %pend
  %psave = getelementptr i64, i64* %hdr, i64 14
  %save = load i64, i64* %psave
  %savef = inttoptr i64 %save to i8* ()*
  %thread = call i8* %savef()
  %st = call i64 @jg_run(i64* %hdr, i64 0, i64 %end)
  %prestore = getelementptr i64, i64* %hdr, i64 15
  %restore = load i64, i64* %prestore
  %restoref = inttoptr i64 %restore to void (i8*)*
  call void %restoref(i8* %thread)
  store i64 0, i64* %plock
  %res = call i8* @py_int(i64* %hdr, i64 %st)
  ret i8* %res
}

; jg_try_lock(): 1 and the lock taken, or 0 where it was held
define i8* @jg_try_lock(i8* %self, i8** %args, i64 %nargs) {
  %hdr = call i64* @self_header(i8* %self)
  %plock = getelementptr i64, i64* %hdr, i64 16
  %held = load i64, i64* %plock
  %free = icmp eq i64 %held, 0
  %got = zext i1 %free to i64
  store i64 1, i64* %plock
  %r = call i8* @py_int(i64* %hdr, i64 %got)
  ret i8* %r
}

""" + FIELD_IR

_lock = threading.Lock()
_RUN = None          # (run, fill, make_call, make_try_lock)


def _runner():
    global _RUN
    with _lock:
        if _RUN is None:
            at = native_code.load(_RUNNER_IR, ["jg_run", "jg_fill", "jg_call_fast",
                                               "jg_try_lock"])
            i64, ptr = ctypes.c_int64, ctypes.c_void_p
            run = ctypes.CFUNCTYPE(i64, ptr, i64, i64)(at[0])
            fill = ctypes.CFUNCTYPE(None, ptr, i64, ctypes.py_object)(at[1])
            make_call = make_try_lock = None
            if not _self_test(fill):
                fill = None
            elif native_builtin.api_addresses() is not None:
                make_call = native_builtin.builtin_maker(at[2], "jg_call")
                make_try_lock = native_builtin.builtin_maker(at[3], "jg_try_lock")
            _RUN = (run, fill, make_call, make_try_lock)
    return _RUN


def _self_test(fill) -> bool:
    """Whether jg_fill reads the addresses ndarray.ctypes.data gives (the object layouts)."""
    arrays = tuple(np.empty(n, np.float32)[::1] for n in (3, 5))
    out = np.zeros(2, np.int64)
    fill(out.ctypes.data, 0, arrays)
    return [int(v) for v in out] == [a.ctypes.data for a in arrays]


def _python_fill(bases, start, arrays):
    """Where the layout check fails: the addresses from ndarray.ctypes.data, one by one."""
    for i, a in enumerate(arrays):
        bases[start + i] = a.ctypes.data


class TableLock:
    """The lock of a Program's tables and its caller's arena (header field 16), which the
    native call takes and gives back itself: threading.Lock's acquire, release and `with`.
    A blocking acquire polls, backing off to 1 ms (a native call gives it back without
    waking anyone): only calls of programs with loops wait."""

    def __init__(self, header, try_lock):
        self._header, self._try = header, try_lock

    def acquire(self, blocking=True) -> bool:
        if self._try():
            return True
        if not blocking:
            return False
        delay = 1e-6
        while not self._try():
            time.sleep(delay)
            delay = min(2 * delay, 1e-3)
        return True

    def release(self):
        self._header[16] = 0

    def locked(self) -> bool:
        return bool(self._header[16])

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


@dataclass(frozen=True)
class Slot:
    """Where an array lives during a call: `bases[base] + offset` bytes."""
    base: int
    offset: int = 0


class Program:
    """The table of one schedule: kernels (address, argument slots) over `n_dynamic` bases
    written per call and fixed arrays (kept alive here) after them. `waves`: per wave, the
    bounds of its lanes (positions b0 < b1 < ... < bL: lane i is [b_i, b_(i+1))): lanes run at
    the same time on the thread pool (plan_memory planned their buffers apart), each lane's
    kernels in order; the other kernels run one after another on the calling thread."""

    def __init__(self, kernels, n_dynamic, fixed, waves=()):
        self.n_kernels = len(kernels)
        self.fns = np.array([a for a, _ in kernels] + [0], np.int64)
        counts = [len(slots) for _, slots in kernels]
        self.argstart = np.zeros(len(kernels) + 1, np.int64)
        np.cumsum(counts, out=self.argstart[1:])
        flat = [s for _, slots in kernels for s in slots]
        self.argbase = np.array([s.base for s in flat] + [0], np.int64)
        self.argoff = np.array([s.offset for s in flat] + [0], np.int64)
        self.fixed = list(fixed)            # arrays whose addresses stay put
        self.bases = np.zeros(n_dynamic + len(self.fixed) + 1, np.int64)
        for i, a in enumerate(self.fixed):
            self.bases[n_dynamic + i] = a.ctypes.data
        self.argv = np.zeros(max(counts, default=0) + 1, np.int64)
        self.waves = [tuple(int(b) for b in w) for w in waves if len(w) > 2]
        n = len(kernels)
        self.wave_ends = np.arange(1, n + 2, dtype=np.int64)     # k + 1: no wave starts at k
        self.lane_first = np.zeros(n + 1, np.int64)   # a wave at k: its bounds at lanes[first:]
        self.lane_count = np.zeros(n + 1, np.int64)
        flat = []
        for w in self.waves:
            if list(w) != sorted(set(w)) or not 0 <= w[0] < w[-1] <= n:
                raise ValueError(f"wave {w}: not increasing lane bounds within {n} kernels")
            self.wave_ends[w[0]] = w[-1]
            self.lane_first[w[0]], self.lane_count[w[0]] = len(flat), len(w) - 1
            flat += w
        self.lanes = np.array(flat + [0], np.int64)
        self.plain_ends = (np.arange(1, n + 2, dtype=np.int64) if self.waves
                           else self.wave_ends)          # the in-order header's (no wave)
        pool = 0
        if self.waves:                      # the pool starts only for a program with waves
            pool = thread_pool.entry_address()
        api = native_builtin.api_addresses()
        self.header = np.array([a.ctypes.data for a in (self.fns, self.argstart, self.argbase,
                                                        self.argoff, self.bases, self.argv,
                                                        self.wave_ends)]
                               + [pool, len(self.argv)]
                               + [a.ctypes.data for a in (self.lane_first, self.lane_count,
                                                          self.lanes)] + [n]
                               + (api or [0, 0, 0]) + [0], np.int64)
        self.header_address = int(self.header.ctypes.data)
        self._in_order_header()
        self._bases = int(self.bases.ctypes.data)
        self._run, self._fill, make_call, make_try_lock = _runner()
        # the builtin call only where api_addresses() finds CPython's C API and a GIL
        self._make_call, self._make_try_lock = (make_call, make_try_lock) if api else (None, None)
        self._native()

    def _native(self):
        """The builtin call and the lock over this header (threading's where the builtins are
        out of reach: Program.call then takes it)."""
        self._call = self._make_call(self.header) if self._make_call else None
        self.lock = (TableLock(self.header, self._make_try_lock(self.header))
                     if self._make_call else threading.Lock())

    def _in_order_header(self):
        """The same table with no wave: every kernel in order on the calling thread."""
        self.in_order = self.header.copy()
        self.in_order[6] = self.plain_ends.ctypes.data


    def clone(self, fixed):
        """The same kernels and slots over private bases (for a concurrent call): `fixed`
        replaces the fixed arrays (e.g. another status pair)."""
        other = object.__new__(Program)
        other.__dict__.update(self.__dict__)
        n_dynamic = len(self.bases) - len(self.fixed) - 1
        other.fixed = list(fixed)
        other.bases = self.bases.copy()
        for i, a in enumerate(other.fixed):
            other.bases[n_dynamic + i] = a.ctypes.data
        other.argv = self.argv.copy()
        other.header = self.header.copy()
        other.header[4], other.header[5] = other.bases.ctypes.data, other.argv.ctypes.data
        other.header_address = int(other.header.ctypes.data)
        other._in_order_header()
        other._bases = int(other.bases.ctypes.data)
        other.header[16] = 0
        other._native()
        return other

    def fill(self, arrays):
        """Write the addresses of this call's arrays (inputs, host results, arena, outputs)."""
        if self._fill is None:
            _python_fill(self.bases, 0, tuple(arrays))
        else:
            self._fill(self._bases, 0, tuple(arrays))

    def call(self, *arrays) -> int:
        """With `lock` free: take it, fill(arrays), run every kernel and give it back; 0, or
        1 + the position of a failed kernel. -1 where `lock` was held: nothing ran."""
        if self._call is not None:
            return self._call(*arrays)
        if not self.lock.acquire(False):
            return -1
        try:
            self.fill(arrays)
            return self.run(0, self.n_kernels)
        finally:
            self.lock.release()

    def native_call(self):
        """The builtin function fn(*arrays) that call(*arrays) calls (jg_call_fast: ~0.1 us
        a call, lock included, where ctypes' conversion of one argument alone takes ~0.4 us),
        for callers that skip this method's frame (the jitted call's fast path); None where
        the object layouts are not the ones it reads or CPython's C API is out of reach."""
        return self._call

    def run(self, start, end) -> int:
        """Run kernels [start, end): 0, or 1 + the position of a kernel that failed."""
        return self._run(self.header_address, start, end)
