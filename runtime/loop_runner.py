"""Native loops and branches: scan, while_loop, cond and switch run compiled sub-programs from one
native call, with no Python per iteration.

A control-flow node's sub-graphs (body, condition, branches) are compiled like any graph into a
sequenced Program (runtime/sequencer.py) whose inputs and outputs are bases it does not own. The
node itself becomes one kernel of the enclosing program, `int64 jg_loop(void **argv)` or
`jg_branch(argv)`, built once per machine from the IR below (runtime/native_code.py): argv[0] is its descriptor (an int64
table, below), argv[1:] the addresses of the enclosing buffers (the node's inputs and outputs, the
scratch of the second carry copy, the condition's flag). Per iteration it writes each sub-program
input and output base from a formula, runs the sub-program's kernels (the sequencer's jg_run loop,
inlined here), and copies what no kernel writes (an output that is an input, a constant, a
repeated value). The module is optimized once (LLVM O3) when the process first needs it.
(codegen/cpu/loop_fused.py builds, per scan / while_loop node, a specialized function over the
same argv and descriptor that calls the body's units directly; jg_loop is the generic form.)

Address formula (a, s, p): argv[a + (p & it)] + i * s. `it` is the iteration count and `i` the
scanned position (length - 1 - it in reverse). Stride s walks xs and the stacked ys; p = 1 takes
argv[a] or argv[a + 1] by parity: the carry ping-pongs between the node's carry output O and a
scratch copy S (reads from argv pair (O, S), writes to (S, O)), so no carry is copied per iteration.
After an odd number of iterations the final carry is in S and is copied to O once.

Descriptor of a call record at offset r (one per sub-program):
  r+0 header of the Program, r+1 number of kernels, r+2 nset, r+3 ncopy,
  nset x (base, a, s, p)  then  ncopy x (a, s, p, source base, source offset, bytes)
jg_loop's descriptor: 0 reserved, 1 kind (0 counted, 1 while: the condition's record before
  each step, 2 while fused: the body's record also computes the next condition into the flag,
  so the condition's record runs before the first step only), 2 length, 3 reverse,
  4 body record, 5 cond record, 6 argv index of the condition's flag (bool), 7 number of carries,
  8/9 written on failure (record, its kernel's status), 10.. carries x (a of O, a of S, a of the
  initial value, bytes).
jg_branch's descriptor: 0 reserved, 1 number of branches, 2 argv index of the index, 3 its bytes,
  4/5 failure (record, status), 6.. record offset per branch.
"""
from __future__ import annotations

import threading

import numpy as np

from . import native_code

_IR = r"""
declare void @llvm.memmove.p0i8.p0i8.i64(i8*, i8*, i64, i1)

define internal i64 @at(i64* %d, i64 %k) alwaysinline {
  %p = getelementptr i64, i64* %d, i64 %k
  %v = load i64, i64* %p
  ret i64 %v
}

define internal i64 @addr(i64* %argv, i64 %a, i64 %s, i64 %p, i64 %it, i64 %i) alwaysinline {
  %par = and i64 %p, %it
  %par1 = and i64 %par, 1
  %j = add i64 %a, %par1
  %base = call i64 @at(i64* %argv, i64 %j)
  %off = mul i64 %i, %s
  %r = add i64 %base, %off
  ret i64 %r
}

; the sequencer's jg_run (runtime/sequencer.py) over kernels [0, nk), here so that it inlines
define internal i64 @run_kernels(i64 %hdri, i64 %nk) alwaysinline {
entry:
  %hdr = inttoptr i64 %hdri to i64*
  %fnsi = call i64 @at(i64* %hdr, i64 0)
  %fns = inttoptr i64 %fnsi to i64*
  %asi = call i64 @at(i64* %hdr, i64 1)
  %argstart = inttoptr i64 %asi to i64*
  %abi = call i64 @at(i64* %hdr, i64 2)
  %argbase = inttoptr i64 %abi to i64*
  %aoi = call i64 @at(i64* %hdr, i64 3)
  %argoff = inttoptr i64 %aoi to i64*
  %bsi = call i64 @at(i64* %hdr, i64 4)
  %bases = inttoptr i64 %bsi to i64*
  %avi = call i64 @at(i64* %hdr, i64 5)
  %argv = inttoptr i64 %avi to i64*
  br label %kloop
kloop:
  %k = phi i64 [0, %entry], [%k1, %kdone]
  %more = icmp slt i64 %k, %nk
  br i1 %more, label %kbody, label %exit
kbody:
  %s = call i64 @at(i64* %argstart, i64 %k)
  %k1 = add i64 %k, 1
  %e = call i64 @at(i64* %argstart, i64 %k1)
  br label %aloop
aloop:
  %j = phi i64 [%s, %kbody], [%jnext, %abody]
  %amore = icmp slt i64 %j, %e
  br i1 %amore, label %abody, label %call
abody:
  %b = call i64 @at(i64* %argbase, i64 %j)
  %base = call i64 @at(i64* %bases, i64 %b)
  %o = call i64 @at(i64* %argoff, i64 %j)
  %addr = add i64 %base, %o
  %slot = sub i64 %j, %s
  %pa = getelementptr i64, i64* %argv, i64 %slot
  store i64 %addr, i64* %pa
  %jnext = add i64 %j, 1
  br label %aloop
call:
  %f = call i64 @at(i64* %fns, i64 %k)
  %fp = inttoptr i64 %f to i64 (i64*)*
  %st = call i64 %fp(i64* %argv)
  %bad = icmp ne i64 %st, 0
  br i1 %bad, label %fail, label %kdone
kdone:
  br label %kloop
fail:
  ret i64 %k1
exit:
  ret i64 0
}

define internal void @move(i64 %dst, i64 %src, i64 %n) alwaysinline {
  %d = inttoptr i64 %dst to i8*
  %s = inttoptr i64 %src to i8*
  call void @llvm.memmove.p0i8.p0i8.i64(i8* %d, i8* %s, i64 %n, i1 0)
  ret void
}

; run the sub-program of record r with its bases set for iteration it at position i
define internal i64 @invoke(i64* %desc, i64 %r, i64* %argv, i64 %it, i64 %i) {
entry:
  %hdr = call i64 @at(i64* %desc, i64 %r)
  %r1 = add i64 %r, 1
  %nk = call i64 @at(i64* %desc, i64 %r1)
  %r2 = add i64 %r, 2
  %nset = call i64 @at(i64* %desc, i64 %r2)
  %r3 = add i64 %r, 3
  %ncopy = call i64 @at(i64* %desc, i64 %r3)
  %hdrp = inttoptr i64 %hdr to i64*
  %basesi = call i64 @at(i64* %hdrp, i64 4)
  %bases = inttoptr i64 %basesi to i64*
  %s0 = add i64 %r, 4
  br label %setloop
setloop:
  %j = phi i64 [0, %entry], [%jn, %setbody]
  %more = icmp slt i64 %j, %nset
  br i1 %more, label %setbody, label %go
setbody:
  %q0 = mul i64 %j, 4
  %q = add i64 %s0, %q0
  %b = call i64 @at(i64* %desc, i64 %q)
  %qa = add i64 %q, 1
  %a = call i64 @at(i64* %desc, i64 %qa)
  %qs = add i64 %q, 2
  %s = call i64 @at(i64* %desc, i64 %qs)
  %qp = add i64 %q, 3
  %p = call i64 @at(i64* %desc, i64 %qp)
  %ad = call i64 @addr(i64* %argv, i64 %a, i64 %s, i64 %p, i64 %it, i64 %i)
  %pb = getelementptr i64, i64* %bases, i64 %b
  store i64 %ad, i64* %pb
  %jn = add i64 %j, 1
  br label %setloop
go:
  %st = call i64 @run_kernels(i64 %hdr, i64 %nk)
  %bad = icmp ne i64 %st, 0
  br i1 %bad, label %fail, label %copies
copies:
  %c4 = mul i64 %nset, 4
  %c0 = add i64 %s0, %c4
  br label %cloop
cloop:
  %k = phi i64 [0, %copies], [%kn, %cbody]
  %cmore = icmp slt i64 %k, %ncopy
  br i1 %cmore, label %cbody, label %done
cbody:
  %w0 = mul i64 %k, 6
  %w = add i64 %c0, %w0
  %ca = call i64 @at(i64* %desc, i64 %w)
  %w1 = add i64 %w, 1
  %cs = call i64 @at(i64* %desc, i64 %w1)
  %w2 = add i64 %w, 2
  %cp = call i64 @at(i64* %desc, i64 %w2)
  %dst = call i64 @addr(i64* %argv, i64 %ca, i64 %cs, i64 %cp, i64 %it, i64 %i)
  %w3 = add i64 %w, 3
  %sb = call i64 @at(i64* %desc, i64 %w3)
  %sbase = call i64 @at(i64* %bases, i64 %sb)
  %w4 = add i64 %w, 4
  %so = call i64 @at(i64* %desc, i64 %w4)
  %src = add i64 %sbase, %so
  %w5 = add i64 %w, 5
  %n = call i64 @at(i64* %desc, i64 %w5)
  call void @move(i64 %dst, i64 %src, i64 %n)
  %kn = add i64 %k, 1
  br label %cloop
done:
  ret i64 0
fail:
  ret i64 %st
}

; move each carry: from the argv entry at column `from` to the one at column `to`
define internal void @carries(i64* %desc, i64* %argv, i64 %to, i64 %from) {
entry:
  %nc = call i64 @at(i64* %desc, i64 7)
  br label %loop
loop:
  %c = phi i64 [0, %entry], [%cn, %body]
  %more = icmp slt i64 %c, %nc
  br i1 %more, label %body, label %exit
body:
  %q0 = mul i64 %c, 4
  %q = add i64 %q0, 10
  %qt = add i64 %q, %to
  %at = call i64 @at(i64* %desc, i64 %qt)
  %dst = call i64 @at(i64* %argv, i64 %at)
  %qf = add i64 %q, %from
  %af = call i64 @at(i64* %desc, i64 %qf)
  %src = call i64 @at(i64* %argv, i64 %af)
  %qn = add i64 %q, 3
  %n = call i64 @at(i64* %desc, i64 %qn)
  call void @move(i64 %dst, i64 %src, i64 %n)
  %cn = add i64 %c, 1
  br label %loop
exit:
  ret void
}

define i64 @jg_loop(i64* %argv) {
entry:
  %desci = call i64 @at(i64* %argv, i64 0)
  %desc = inttoptr i64 %desci to i64*
  %kind = call i64 @at(i64* %desc, i64 1)
  %length = call i64 @at(i64* %desc, i64 2)
  %reverse = call i64 @at(i64* %desc, i64 3)
  %body = call i64 @at(i64* %desc, i64 4)
  %cond = call i64 @at(i64* %desc, i64 5)
  %flagi = call i64 @at(i64* %desc, i64 6)
  %flagp = call i64 @at(i64* %argv, i64 %flagi)
  %flag = inttoptr i64 %flagp to i8*
  %last = sub i64 %length, 1
  %counted = icmp eq i64 %kind, 0
  %separate = icmp eq i64 %kind, 1
  call void @carries(i64* %desc, i64* %argv, i64 0, i64 2)
  br label %head
head:
  %it = phi i64 [0, %entry], [%itn, %ran]
  br i1 %counted, label %count, label %which
which:                          ; WHILE_FUSED: the body wrote the flag, the cond runs first only
  %first = icmp eq i64 %it, 0
  %again = or i1 %first, %separate
  br i1 %again, label %test, label %tested
count:
  %cmore = icmp slt i64 %it, %length
  br i1 %cmore, label %step, label %end
test:
  %cst = call i64 @invoke(i64* %desc, i64 %cond, i64* %argv, i64 %it, i64 0)
  %cbad = icmp ne i64 %cst, 0
  br i1 %cbad, label %cfail, label %tested
tested:
  %f = load i8, i8* %flag
  %go = icmp ne i8 %f, 0
  br i1 %go, label %step, label %end
step:
  %rev = icmp ne i64 %reverse, 0
  %back = sub i64 %last, %it
  %i = select i1 %rev, i64 %back, i64 %it
  %ist = call i64 @invoke(i64* %desc, i64 %body, i64* %argv, i64 %it, i64 %i)
  %ibad = icmp ne i64 %ist, 0
  br i1 %ibad, label %bfail, label %ran
ran:
  %itn = add i64 %it, 1
  br label %head
end:
  %odd = and i64 %it, 1
  %isodd = icmp ne i64 %odd, 0
  br i1 %isodd, label %fix, label %exit
fix:
  call void @carries(i64* %desc, i64* %argv, i64 0, i64 1)
  br label %exit
exit:
  ret i64 0
cfail:
  br label %fail
bfail:
  br label %fail
fail:
  %rec = phi i64 [%cond, %cfail], [%body, %bfail]
  %st = phi i64 [%cst, %cfail], [%ist, %bfail]
  %p8 = getelementptr i64, i64* %desc, i64 8
  store i64 %rec, i64* %p8
  %p9 = getelementptr i64, i64* %desc, i64 9
  store i64 %st, i64* %p9
  ret i64 1
}

define i64 @jg_branch(i64* %argv) {
entry:
  %desci = call i64 @at(i64* %argv, i64 0)
  %desc = inttoptr i64 %desci to i64*
  %n = call i64 @at(i64* %desc, i64 1)
  %ia = call i64 @at(i64* %desc, i64 2)
  %isz = call i64 @at(i64* %desc, i64 3)
  %ip = call i64 @at(i64* %argv, i64 %ia)
  switch i64 %isz, label %w8 [i64 1, label %w1
                              i64 2, label %w2
                              i64 4, label %w4]
w1:
  %p1 = inttoptr i64 %ip to i8*
  %v1 = load i8, i8* %p1
  %x1 = sext i8 %v1 to i64
  br label %have
w2:
  %p2 = inttoptr i64 %ip to i16*
  %v2 = load i16, i16* %p2
  %x2 = sext i16 %v2 to i64
  br label %have
w4:
  %p4 = inttoptr i64 %ip to i32*
  %v4 = load i32, i32* %p4
  %x4 = sext i32 %v4 to i64
  br label %have
w8:
  %p8 = inttoptr i64 %ip to i64*
  %x8 = load i64, i64* %p8
  br label %have
have:
  %x = phi i64 [%x1, %w1], [%x2, %w2], [%x4, %w4], [%x8, %w8]
  %neg = icmp slt i64 %x, 0
  %lo = select i1 %neg, i64 0, i64 %x
  %top = sub i64 %n, 1
  %over = icmp sgt i64 %lo, %top
  %k = select i1 %over, i64 %top, i64 %lo
  %q = add i64 %k, 6
  %rec = call i64 @at(i64* %desc, i64 %q)
  %st = call i64 @invoke(i64* %desc, i64 %rec, i64* %argv, i64 0, i64 0)
  %bad = icmp ne i64 %st, 0
  br i1 %bad, label %fail, label %ok
ok:
  ret i64 0
fail:
  %f4 = getelementptr i64, i64* %desc, i64 4
  store i64 %rec, i64* %f4
  %f5 = getelementptr i64, i64* %desc, i64 5
  store i64 %st, i64* %f5
  ret i64 1
}
"""

_lock = threading.Lock()
_ENGINE = None          # (address of jg_loop, address of jg_branch)


def entry_points():
    """(address of jg_loop, address of jg_branch), compiled once per machine."""
    global _ENGINE
    with _lock:
        if _ENGINE is None:
            # the O3 module passes inline the helpers and hoist the loads
            _ENGINE = tuple(native_code.load(_IR, ["jg_loop", "jg_branch"], opt=3, passes=True))
    return _ENGINE


LOOP_HEADER, BRANCH_HEADER = 10, 6
COUNTED, WHILE, WHILE_FUSED = 0, 1, 2


def record(program, sets, copies) -> list:
    """A call record: run `program` with bases set by `sets` [(base, a, s, p)] and then
    `copies` [(a, s, p, source base, source offset, bytes)]."""
    out = [program.header_address, program.n_kernels, len(sets), len(copies)]
    for s in sets:
        out.extend(s)
    for c in copies:
        out.extend(c)
    return out


def loop_descriptor(kind, length, reverse, body, cond, flag, carries) -> np.ndarray:
    """jg_loop's table: body / cond are records (cond None for a counted loop), carries
    [(a of O, a of S, a of the initial value, bytes)]."""
    head = [0, kind, length, int(reverse), 0, 0, flag, len(carries), 0, 0]
    for c in carries:
        head.extend(c)
    head[4] = len(head)
    head.extend(body)
    if cond is not None:
        head[5] = len(head)
        head.extend(cond)
    return np.array(head, np.int64)


def branch_descriptor(index_arg, index_bytes, records) -> np.ndarray:
    head = [0, len(records), index_arg, index_bytes, 0, 0] + [0] * len(records)
    for k, r in enumerate(records):
        head[BRANCH_HEADER + k] = len(head)
        head.extend(r)
    return np.array(head, np.int64)
