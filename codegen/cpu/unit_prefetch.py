"""Cold compiles on two cores: the LLVM units a schedule misses are built by this process and a
forked child at once.

llvmlite serializes every LLVM call of a process behind one lock, so threads cannot compile
units side by side; a child process can. Before compile_cpu builds a schedule's units one by
one, `prefetch` finds those neither loaded nor on disk, forks once, and both processes take
units off a shared queue (a pipe holding their indexes: a 4-byte read is atomic) until it is
empty. The child builds its units into the disk cache (codegen/cpu/llvm_jit.py writes each object
with its checksum) and exits; the parent builds the others in memory, waits for the child, and
then compile_cpu's ordinary pass finds the child's units on disk (loading an object takes a
millisecond). Whatever the child fails to build, the parent builds itself then, with the
ordinary errors: the prefetch changes where a unit is compiled, never what runs.

It forks only where that is safe and pays: Linux, no other Python thread in the process (one
could hold a lock the child would need), not in an MPI rank (Open MPI does not support fork),
at least two threads allowed (JITGRAD_NUM_THREADS=1 compiles on the calling thread alone), a
usable disk cache (the child's only way back), and enough units to pay for the fork (at least
MIN_UNITS, and more the larger the process: `_fork_cost_ms`). jitgrad's own LLVM lock is held
across the fork, so no jitgrad thread is inside LLVM at that moment.
"""
from __future__ import annotations

import gc
import os
import sys
import threading
import warnings

from ...ir import config
from .. import disk_cache
from . import llvm_jit, llvm_small_gemm, units

MIN_UNITS = 4          # below this a fork (a few ms) and the split gain little
UNIT_SAVING_MS = 12    # what the child saves per unit it builds: half a typical unit's 25 ms
MAX_UNITS = 4096       # queue entries (16 KiB: one pipe write never blocks)
SMALL_GEMM = "small gemm"     # a queue entry (SMALL_GEMM, (form, dtype)): llvm_small_gemm's unit
_state = {"child": False}     # True in a child, and in the parent while one runs


def forks_allowed() -> bool:
    """Whether this process may fork a compile child now (see the module's docstring)."""
    # not in an MPI rank (mpi4py loaded): Open MPI does not support fork() in its processes
    return (sys.platform.startswith("linux") and hasattr(os, "fork") and not _state["child"]
            and threading.active_count() == 1 and config.read("num_threads") >= 2
            and "mpi4py.MPI" not in sys.modules
            and disk_cache.usable_root("llvm") is not None)


def _fork_cost_ms() -> float:
    """What a fork costs a process of this size: its page tables copied, every page it writes
    afterwards faulted once, the collection after it (measured: 80 ms at 200 MB resident, 260 ms
    at 1.2 GB). A model's compile (150-250 MB) pays for it from 5-7 units; a test runner grown
    to a gigabyte only for 30 or more."""
    try:
        with open("/proc/self/statm") as f:
            resident = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return float("inf")
    return 10 + 0.3 * resident / 2 ** 20


def prefetch(jobs):
    """Start building the units of `jobs` ((kernel node, product hint, unit key)) that are missing
    in a forked child; returns `finish()`, which builds the rest of the queue here, waits for
    the child and returns how many units the child built (0 and no fork where it does not
    pay). Between the two the caller may compile other things (a loop's bodies)."""
    if not forks_allowed():
        return _nothing
    todo, seen = [], set()
    for node, hint, key in jobs:
        if key not in seen:
            seen.add(key)
            if units.needs_build(node, hint, key):
                todo.append((node, hint, key))
    todo = todo[:MAX_UNITS]
    if len(todo) < MIN_UNITS or len(todo) * UNIT_SAVING_MS < _fork_cost_ms():
        return _nothing
    # the unpacked GEMM functions the matmul units call go first: the child builds them while
    # this process does its other work, before either needs them
    smalls = dict.fromkeys(s for s in (units.small_gemm(n) for n, _, _ in todo) if s)
    todo = [(SMALL_GEMM, s, None) for s in smalls if llvm_small_gemm.needs_build(*s)] + todo
    r, w = os.pipe()
    os.write(w, b"".join(i.to_bytes(4, "little") for i in range(len(todo))))
    os.close(w)
    with llvm_jit.locked(), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)     # 3.12: fork in a threaded process
        pid = os.fork()
    if pid == 0:                                 # the child: build, write to disk, leave
        _state["child"] = True
        code = 1
        try:
            _take(r, todo, quiet=True)
            code = 0
        finally:
            os._exit(code)
    _state["child"] = True           # no second fork while this one runs (nested compiles)

    def finish() -> int:
        _state["child"] = False
        try:
            mine = _take(r, todo, quiet=False)
        finally:
            os.close(r)
            os.waitpid(pid, 0)
            # the fork left every page of this process write-protected (copy on write): the
            # first write to each faults once. The garbage collector's next full pass writes
            # to every object at once (a 20-35 ms stall some steps into training, measured on
            # the CNN step); run it now, inside the compile, instead
            gc.collect()
        config.log(2, f"unit prefetch: {len(todo)} units, {len(todo) - mine} built by a "
                      "child process")
        return len(todo) - mine
    return finish


def _nothing() -> int:
    return 0


def _take(fd, todo, quiet) -> int:
    """Build units off the shared queue until it is empty; returns how many this process took."""
    n = 0
    while True:
        b = os.read(fd, 4)
        if not b:
            return n
        node, hint, key = todo[int.from_bytes(b, "little")]
        n += 1
        try:
            if node is SMALL_GEMM:
                llvm_small_gemm.register(*hint)
            else:
                units.kernel_unit(node, hint, key)
        except Exception:  # noqa: BLE001 - the parent builds it again and reports the error
            if not quiet:
                raise
