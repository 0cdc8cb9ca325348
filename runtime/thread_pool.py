"""The process's one thread pool for compiled CPU kernels: native workers that yield, then block.

Kernels run inside the sequencer's native loop, a ctypes call that has released the GIL, so the
pool is native too: a few LLVM IR functions (compiled once per machine with llvmlite and kept
in the kernel cache, like the sequencer: runtime/native_code.py) over pthreads. A parallel kernel unit (codegen/cpu/llvm_kernels.py) calls

    void jg_parallel_for(void (*body)(i8 *ctx, i64 begin, i64 end), i8 *ctx, i64 n, i64 grain)

resolved by name when the unit is loaded. The range [0, n) is cut into at most 4 chunks per
thread (none smaller than `grain` iterations); the calling thread and the woken workers take
chunks from a shared counter (an atomic add) until none is left, so a worker the OS does not
schedule delays nobody but itself, and the caller always makes progress. Between jobs a
worker first waits SPIN_YIELDS sched_yield calls (~2 ms) for the next one, then sleeps on a
condition variable; a caller whose workers still run waits for them the same way. A yield hands
the core to any other runnable thread, so a busy machine loses no core to the waiting, and a
training step's kernels, closer together than that, find the worker awake instead of paying a
condition variable's wake-up each (tens to hundreds of microseconds on this VM). One job at a
time: a call made while the pool is busy (another user thread's kernel,
or a nested call) runs its whole range on its own thread, so concurrent calls never wait on
each other and give the same results (chunk boundaries never change what a kernel computes).

The sequencer (runtime/sequencer.py) calls jg_parallel_for too, for a wave of independent
kernels that the memory plan grouped: one item per lane (a chain of small kernels), grain 1, so
the caller and the woken workers each run whole lanes; a lane's kernels find the pool busy and
run their own ranges on their thread.

Size: the CPUs this process may run on (os.sched_getaffinity), or JITGRAD_NUM_THREADS, or
jg.config.update("num_threads", n) (which wins, also after the pool has started). One thread
means every kernel runs its whole range on the calling thread; no worker is ever started.
"""
from __future__ import annotations

import ctypes
import os
import threading

from ..ir import config
from . import native_code

_POOL_IR = r"""
%body_t = type void (i8*, i64, i64)*

@mutex = internal global [64 x i8] zeroinitializer, align 16
@work = internal global [64 x i8] zeroinitializer, align 16
@done = internal global [64 x i8] zeroinitializer, align 16
@busy = internal global i64 0, align 8
@nthreads = internal global i64 1, align 8
@started = internal global i64 0, align 8
@gen = internal global i64 0, align 8
@open = internal global i64 0, align 8
@joined = internal global i64 0, align 8
@max_join = internal global i64 0, align 8
@active = internal global i64 0, align 8
@next = internal global i64 0, align 64
@job_fn = internal global %body_t null, align 8
@job_ctx = internal global i8* null, align 8
@job_n = internal global i64 0, align 8
@job_chunk = internal global i64 0, align 8
@job_chunks = internal global i64 0, align 8
@dispatched = internal global i64 0, align 8

declare i32 @pthread_mutex_lock(i8*)
declare i32 @pthread_mutex_unlock(i8*)
declare i32 @pthread_cond_wait(i8*, i8*)
declare i32 @pthread_cond_broadcast(i8*)
declare i32 @pthread_create(i64*, i8*, i8* (i8*)*, i8*)
declare i32 @pthread_detach(i64)
declare i32 @sched_yield()
declare void @llvm.memset.p0i8.i64(i8*, i8, i64, i1)

define internal i8* @m() alwaysinline {
  %p = getelementptr [64 x i8], [64 x i8]* @mutex, i64 0, i64 0
  ret i8* %p
}
define internal i8* @cw() alwaysinline {
  %p = getelementptr [64 x i8], [64 x i8]* @work, i64 0, i64 0
  ret i8* %p
}
define internal i8* @cd() alwaysinline {
  %p = getelementptr [64 x i8], [64 x i8]* @done, i64 0, i64 0
  ret i8* %p
}

; take chunks from the shared counter until none is left
define internal void @run_chunks(%body_t %fn, i8* %ctx, i64 %n, i64 %chunk, i64 %chunks) {
entry:
  br label %loop
loop:
  %i = atomicrmw add i64* @next, i64 1 monotonic
  %more = icmp slt i64 %i, %chunks
  br i1 %more, label %body, label %exit
body:
  %b = mul i64 %i, %chunk
  %e0 = add i64 %b, %chunk
  %short = icmp slt i64 %e0, %n
  %e = select i1 %short, i64 %e0, i64 %n
  call void %fn(i8* %ctx, i64 %b, i64 %e)
  br label %loop
exit:
  ret void
}

; wait up to SPIN yields for `*p` to differ from (ne=1) or equal (ne=0) `v`: 1 if it did
define internal i1 @spin_until(i64* %p, i64 %v, i1 %ne) {
entry:
  br label %loop
loop:
  %k = phi i64 [0, %entry], [%k1, %next]
  %x = load atomic i64, i64* %p monotonic, align 8
  %eq = icmp eq i64 %x, %v
  %hit = xor i1 %eq, %ne
  br i1 %hit, label %yes, label %next
next:
  %k1 = add i64 %k, 1
  call i32 @sched_yield()
  %more = icmp slt i64 %k1, SPIN
  br i1 %more, label %loop, label %no
yes:
  ret i1 1
no:
  ret i1 0
}

define internal i8* @worker(i8* %arg) {
entry:
  br label %job
job:
  %seen = phi i64 [0, %entry], [%g, %finish]
  call i1 @spin_until(i64* @gen, i64 %seen, i1 1)
  %mx = call i8* @m()
  call i32 @pthread_mutex_lock(i8* %mx)
  br label %check
check:
  %o = load i64, i64* @open
  %g = load i64, i64* @gen
  %j = load i64, i64* @joined
  %mj = load i64, i64* @max_join
  %isopen = icmp ne i64 %o, 0
  %isnew = icmp ne i64 %g, %seen
  %room = icmp slt i64 %j, %mj
  %a1 = and i1 %isopen, %isnew
  %go = and i1 %a1, %room
  br i1 %go, label %join, label %sleep
sleep:
  %c = call i8* @cw()
  call i32 @pthread_cond_wait(i8* %c, i8* %mx)
  br label %check
join:
  %j1 = add i64 %j, 1
  store i64 %j1, i64* @joined
  %ac = load i64, i64* @active
  %ac1 = add i64 %ac, 1
  store i64 %ac1, i64* @active
  %fn = load %body_t, %body_t* @job_fn
  %ctx = load i8*, i8** @job_ctx
  %n = load i64, i64* @job_n
  %chunk = load i64, i64* @job_chunk
  %chunks = load i64, i64* @job_chunks
  call i32 @pthread_mutex_unlock(i8* %mx)
  call void @run_chunks(%body_t %fn, i8* %ctx, i64 %n, i64 %chunk, i64 %chunks)
  call i32 @pthread_mutex_lock(i8* %mx)
  %ad = load i64, i64* @active
  %ad1 = sub i64 %ad, 1
  store atomic i64 %ad1, i64* @active monotonic, align 8
  %last = icmp eq i64 %ad1, 0
  br i1 %last, label %wake, label %finish
wake:
  %d = call i8* @cd()
  call i32 @pthread_cond_broadcast(i8* %d)
  br label %finish
finish:
  call i32 @pthread_mutex_unlock(i8* %mx)
  br label %job
}

define void @jg_parallel_for(%body_t %fn, i8* %ctx, i64 %n, i64 %grain0) {
entry:
  %t = load i64, i64* @nthreads
  %gpos = icmp sgt i64 %grain0, 0
  %grain = select i1 %gpos, i64 %grain0, i64 1
  %one = icmp sle i64 %t, 1
  %small = icmp sle i64 %n, %grain
  %inline0 = or i1 %one, %small
  br i1 %inline0, label %inline, label %try
try:
  %x = cmpxchg i64* @busy, i64 0, i64 1 acquire monotonic
  %got = extractvalue { i64, i1 } %x, 1
  br i1 %got, label %split, label %inline
inline:
  call void %fn(i8* %ctx, i64 0, i64 %n)
  ret void
split:
  ; chunks = min(ceil(n / grain), 4 t); chunk = ceil(n / chunks)
  %ng = add i64 %n, %grain
  %ng1 = sub i64 %ng, 1
  %want = sdiv i64 %ng1, %grain
  %t4 = mul i64 %t, 4
  %few = icmp slt i64 %want, %t4
  %c0 = select i1 %few, i64 %want, i64 %t4
  %nc = add i64 %n, %c0
  %nc1 = sub i64 %nc, 1
  %chunk = sdiv i64 %nc1, %c0
  %nk = add i64 %n, %chunk
  %nk1 = sub i64 %nk, 1
  %chunks = sdiv i64 %nk1, %chunk
  store %body_t %fn, %body_t* @job_fn
  store i8* %ctx, i8** @job_ctx
  store i64 %n, i64* @job_n
  store i64 %chunk, i64* @job_chunk
  store i64 %chunks, i64* @job_chunks
  store atomic i64 0, i64* @next monotonic, align 64
  %mx = call i8* @m()
  call i32 @pthread_mutex_lock(i8* %mx)
  %g = load i64, i64* @gen
  %g1 = add i64 %g, 1
  store atomic i64 %g1, i64* @gen monotonic, align 8
  store i64 1, i64* @open
  store i64 0, i64* @joined
  %t1 = sub i64 %t, 1
  %k1 = sub i64 %chunks, 1
  %lt = icmp slt i64 %t1, %k1
  %mj = select i1 %lt, i64 %t1, i64 %k1
  store i64 %mj, i64* @max_join
  %dc = load i64, i64* @dispatched
  %dc1 = add i64 %dc, 1
  store i64 %dc1, i64* @dispatched
  %c = call i8* @cw()
  call i32 @pthread_cond_broadcast(i8* %c)
  call i32 @pthread_mutex_unlock(i8* %mx)
  call void @run_chunks(%body_t %fn, i8* %ctx, i64 %n, i64 %chunk, i64 %chunks)
  call i32 @pthread_mutex_lock(i8* %mx)
  store i64 0, i64* @open
  %ac0 = load i64, i64* @active
  %busy0 = icmp ne i64 %ac0, 0
  br i1 %busy0, label %spin, label %out
spin:
  call i32 @pthread_mutex_unlock(i8* %mx)
  call i1 @spin_until(i64* @active, i64 0, i1 0)
  call i32 @pthread_mutex_lock(i8* %mx)
  br label %wait
wait:
  %ac = load i64, i64* @active
  %busyw = icmp ne i64 %ac, 0
  br i1 %busyw, label %sleep, label %out
sleep:
  %d = call i8* @cd()
  call i32 @pthread_cond_wait(i8* %d, i8* %mx)
  br label %wait
out:
  call i32 @pthread_mutex_unlock(i8* %mx)
  store atomic i64 0, i64* @busy release, align 8
  ret void
}

; the pool's size (the calling thread included): starts the workers still missing
define i64 @jg_pool_set_threads(i64 %t) {
entry:
  %tid = alloca i64
  store i64 %t, i64* @nthreads
  br label %loop
loop:
  %s = load i64, i64* @started
  %s1 = add i64 %s, 1
  %need = icmp slt i64 %s1, %t
  br i1 %need, label %start, label %exit
start:
  %r = call i32 @pthread_create(i64* %tid, i8* null, i8* (i8*)* @worker, i8* null)
  %ok = icmp eq i32 %r, 0
  br i1 %ok, label %detach, label %fail
detach:
  %id = load i64, i64* %tid
  call i32 @pthread_detach(i64 %id)
  store i64 %s1, i64* @started
  br label %loop
fail:
  %have = add i64 %s, 1
  store i64 %have, i64* @nthreads
  ret i64 %have
exit:
  %w = load i64, i64* @started
  ret i64 %w
}

define i64 @jg_pool_dispatched() {
  %d = load i64, i64* @dispatched
  ret i64 %d
}

; in a forked child: no worker exists, the locks are as new
define void @jg_pool_after_fork() {
  %a = call i8* @m()
  call void @llvm.memset.p0i8.i64(i8* %a, i8 0, i64 64, i1 false)
  %b = call i8* @cw()
  call void @llvm.memset.p0i8.i64(i8* %b, i8 0, i64 64, i1 false)
  %c = call i8* @cd()
  call void @llvm.memset.p0i8.i64(i8* %c, i8 0, i64 64, i1 false)
  store i64 0, i64* @started
  store i64 0, i64* @busy
  store i64 0, i64* @open
  store i64 0, i64* @active
  store i64 0, i64* @joined
  store i64 1, i64* @nthreads
  ret void
}
"""

# Before blocking, a worker that finished a job, and a caller whose workers still run, wait
# this many sched_yield calls (~0.64 us each on an idle core here: ~2 ms) for the next job or
# the workers' end. A training step's parallel kernels come closer together than that, eager
# ones included (an eager GEMM follows the layer norm, GELU or attention ops between, 0.3-1 ms
# of Python), so the worker is awake for each; a condition-variable wake-up costs tens to
# hundreds of microseconds on this VM, and a worker that wakes too late leaves its half to the
# caller. An eager [512,128]x[128,512] product 300-1000 us after the previous one: 600-790 us
# with 200 yields (~0.13 ms; 5% of calls split), 515 us with 3000 (all split; one thread 740);
# GPT's eager training step 43-45 -> 37-40 ms (torch's spin-waiting OpenMP: 38-39). Each yield
# hands the core to any other runnable thread, so a busy machine loses nothing to the waiting.
SPIN_YIELDS = 3000

_lock = threading.Lock()
_state: dict = {}           # "engine", "entry", "set", "dispatched", "after_fork", "threads"


def num_threads() -> int:
    """The pool's size (the calling thread included): the option num_threads (ir/config.py:
    jg.config.update, else JITGRAD_NUM_THREADS, else the CPUs this process may run on)."""
    return config.read("num_threads")


def _resize(n) -> None:
    """After jg.config.update("num_threads", n): workers beyond n stay asleep."""
    with _lock:
        if "set" in _state:
            _state["threads"] = _state["set"](n)


config.on_update("num_threads", _resize)


def set_num_threads(n) -> None:
    """Resize the pool: jg.config.update("num_threads", n)."""
    config.update("num_threads", n)


def use_default_size() -> None:
    """Forget a size set by set_num_threads: the environment or the affinity mask decides."""
    config.reset("num_threads")


def entry_address() -> int:
    """The address of jg_parallel_for (the pool is built and its workers started on first use)."""
    with _lock:
        if "entry" not in _state:
            _build()
        return _state["entry"]


def _after_fork_in_child():
    """A forked child has none of the parent's workers and maybe a lock held by one: start
    afresh (os.register_at_fork)."""
    if "after_fork" in _state:
        _state["after_fork"]()
        _state["threads"] = _state["set"](num_threads())
    if hasattr(os, "register_at_fork") and not _state.get("fork_hook"):
        os.register_at_fork(after_in_child=_after_fork_in_child)
        _state["fork_hook"] = True


def dispatched() -> int:
    """How many parallel jobs the pool has handed to workers in this process (tests)."""
    with _lock:
        return _state["dispatched"]() if "dispatched" in _state else 0


def _build():
    entry, set_threads, dispatched, after_fork = native_code.load(
        _POOL_IR.replace("SPIN", str(SPIN_YIELDS)),
        ["jg_parallel_for", "jg_pool_set_threads", "jg_pool_dispatched", "jg_pool_after_fork"])
    i64 = ctypes.c_int64
    _state.update(entry=entry, set=ctypes.CFUNCTYPE(i64, i64)(set_threads),
                  dispatched=ctypes.CFUNCTYPE(i64)(dispatched),
                  after_fork=ctypes.CFUNCTYPE(None)(after_fork))
    _state["threads"] = _state["set"](num_threads())
    if hasattr(os, "register_at_fork") and not _state.get("fork_hook"):
        os.register_at_fork(after_in_child=_after_fork_in_child)
        _state["fork_hook"] = True
