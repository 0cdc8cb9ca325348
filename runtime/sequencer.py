"""The sequencer: runs a schedule's compiled kernels in order, by address, over typed buffers.

Every kernel is compiled on its own (codegen/cpu_units.py) to a C-ABI function
`int64 kernel(void **argv)`, argv[j] the address of its j-th flat array. A Program is a table:
per kernel its address and, per argument, a Slot (base, byte offset); the bases are the addresses
of the call's arrays (inputs, host-op results, the arena, outputs: written on every call) and of
fixed ones (array constants, the status pair). One small LLVM function, built once per process
with llvmlite, walks the table: a new signature compiles nothing of its own, its set-up is linear
in the number of kernels, and no kernel body is re-typed, inlined or re-optimized.

A call is `fill(bases, *arrays)` (an @njit(cache=True) function writing the arrays' addresses:
one dispatcher call) then `run(header, start, end)` through ctypes. A kernel that returns
non-zero stops the run, which returns 1 + that kernel's position.
"""
from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass

import numpy as np

_RUNNER_IR = r"""
define i64 @jg_run(i64* %hdr, i64 %start, i64 %end) {
entry:
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
  %st = call i64 %fp(i64* %argv)
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

define internal i64* @field(i64* %hdr, i64 %i) alwaysinline {
  %p = getelementptr i64, i64* %hdr, i64 %i
  %v = load i64, i64* %p
  %q = inttoptr i64 %v to i64*
  ret i64* %q
}
"""

_lock = threading.Lock()
_RUN = None          # ctypes function jg_run, and the execution engine that owns its code
_FILL = None


def _runner():
    global _RUN
    with _lock:
        if _RUN is None:
            import llvmlite.binding as llvm
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            mod = llvm.parse_assembly(_RUNNER_IR)
            mod.verify()
            tm = llvm.Target.from_default_triple().create_target_machine(opt=2)
            engine = llvm.create_mcjit_compiler(mod, tm)
            engine.finalize_object()
            fn = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)(
                engine.get_function_address("jg_run"))
            _RUN = (fn, engine)
    return _RUN[0]


def _filler():
    global _FILL
    if _FILL is None:
        from .fill import CHUNK, fill
        _FILL = fill, CHUNK
    return _FILL


@dataclass(frozen=True)
class Slot:
    """Where an array lives during a call: `bases[base] + offset` bytes."""
    base: int
    offset: int = 0


class Program:
    """The table of one schedule: kernels (address, argument slots) over `n_dynamic` bases
    written per call and fixed arrays (kept alive here) after them."""

    def __init__(self, kernels, n_dynamic, fixed):
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
        self.header = np.array([a.ctypes.data for a in (self.fns, self.argstart, self.argbase,
                                                        self.argoff, self.bases, self.argv)],
                               np.int64)
        self._header = int(self.header.ctypes.data)
        self._run = _runner()
        self._fill, self._chunk = _filler()

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
        other._header = int(other.header.ctypes.data)
        return other

    def fill(self, arrays):
        """Write the addresses of this call's arrays (inputs, host results, arena, outputs)."""
        if len(arrays) <= self._chunk:
            self._fill(self.bases, 0, *arrays)
            return
        for i in range(0, len(arrays), self._chunk):
            self._fill(self.bases, i, *arrays[i:i + self._chunk])

    def run(self, start, end) -> int:
        """Run kernels [start, end): 0, or 1 + the position of a kernel that failed."""
        return self._run(self._header, start, end)
