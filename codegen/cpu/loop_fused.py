"""A scan / while_loop / fori_loop node as ONE LLVM function: the loop, its body's kernels called
directly (inlined where LLVM finds it worth it) and, for while_loop, the condition.

The generic loop kernel (runtime/loop_runner.py `jg_loop`) runs a body's kernels through its
sub-program's table each iteration: it rewrites the sub-program's bases from the descriptor,
rebuilds every kernel's argv from (base, offset) slots and calls each kernel by address, ~10 ns
per kernel, where a body like `x * 0.5 + 1` on four floats computes in 1-2 ns. This module
specializes that walk per loop: the same argv and descriptor as jg_loop (so the bounds checks,
the failure report and the artifacts stay as they are), but

- every slot is resolved when the function is generated: an address is the outer buffer of its
  formula (a, s, p) plus i * s plus its offset, or a fixed base (the sub-program's arena,
  constants, status pair) read once at entry; nothing is read from the tables per iteration;
- the loop is written twice, for even and odd iterations, so the carry ping-pong (reads from
  O, writes to S, then the other way) is two fixed sets of addresses instead of a parity select:
  a kernel inlined into each half reads and writes constant pointers;
- the body's LLVM units whose IR has no reassociating reduction (elementwise, matmul, opaque
  shape ops and gathers) are linked into the module and called by name, so LLVM inlines the
  small ones; other kernels (reductions and softmax/layernorm rows, whose float sums must keep
  their exact bits; kernels over more than LINK_MAX elements, whose work hides a call and whose
  inlining would cost optimizer time; a nested loop's kernel) are called by
  address, read once at entry from the sub-program's table;
- while_loop's condition (fused into the body's sub-program by loops.body_then_cond, which
  writes the flag) is tested in the same function: one load per iteration.

The module's name hashes its skeleton (the text without the linked units, whose names are the
hashes of their own code), so the disk cache finds a compiled loop without building any IR. A
descriptor kind or a body this does not cover returns None, and the node keeps jg_loop.
"""
from __future__ import annotations

import hashlib

from ...ir import config
from ...runtime import loop_runner
from . import llvm_jit

DIRECT_KINDS = frozenset({"elementwise", "matmul", "opaque"})    # no `reassoc` in their IR
LINK_MAX = 1024      # elements: a larger kernel takes >100 ns, a call by address adds ~2 ns, and
                     # inlining it costs optimizer time (an LSTM cell's [16,512] gates: 1.3 s)
_VERSION: list = []


def _version() -> str:
    if not _VERSION:
        with open(__file__, "rb") as f:
            _VERSION.append(hashlib.sha256(f.read()).hexdigest()[:16])
    return _VERSION[0]


class LoopCall:
    """One sub-program call of the loop: its descriptor offset, its SequencedRun (program, units,
    kernel nodes), `sets` [(base, a, s, p)] and `copies` [(a, s, p, src base, src off, bytes)]."""

    def __init__(self, offset, run, sets, copies):
        self.offset, self.run, self.sets, self.copies = offset, run, sets, copies


def _direct(unit, node) -> bool:
    """Whether kernel `node`'s unit is linked in and called by name: an LLVM unit (its IR is
    built again only when the loop's module misses the disk cache) of a kind without
    reassociated sums."""
    return (getattr(unit, "name", "").startswith("jg_llvm_")
            and node.params["kind"] in DIRECT_KINDS and _largest(node) <= LINK_MAX)


def _largest(node) -> int:
    """The largest array kernel `node` reads or writes, in elements (units.largest_array's
    count, without importing the unit builders)."""
    body = node.params["body"]
    return max([v.type.size for n in body.nodes for v in (*n.inputs, *n.outputs)] + [0])


class _IRLines:
    def __init__(self):
        self.lines, self.n = [], 0
        self.allocas = []
        self.direct = {}          # unit name -> Unit

    def tmp(self) -> str:
        self.n += 1
        return f"%t{self.n}"

    def emit(self, line: str):
        self.lines.append("  " + line)

    def label(self, name: str):
        self.lines.append(f"{name}:")


def _skeleton(kind, carries, records, flag, same):
    """(IR text of the loop function `@jg_loopfn`, {unit name: Unit} to link). same[a]: the
    first argv index holding the same buffer as argv[a]."""
    s = _Skeleton(records)
    s.load_pointers(_used(carries, records, flag), same)
    s.loop(kind, carries, flag)
    return s.text(), s.e.direct


def _used(carries, records, flag) -> set:
    """The argv indices the loop reads or writes: carries, the flag, and the buffers the records'
    iteration-dependent sets and copies address (two, alternating by parity, where p)."""
    used = set()
    for c in carries:
        used.update((c[0], c[1], c[2]))
    if flag is not None:
        used.add(flag)
    for r in records:
        for (_, a, _, p) in r.sets:
            used.update((a, a + 1) if p else (a,))
        for (a, _, p, *_rest) in r.copies:
            used.update((a, a + 1) if p else (a,))
    return used


class _Skeleton:
    """The loop function being written: @jg_loopfn (the exported function: loads from argv and
    the descriptor, then the call of @core) and @core (the loop, its buffers `noalias`
    parameters, its kernels called directly or through the function table)."""

    def __init__(self, records):
        self.records = records
        self.e = _IRLines()
        self.outer = []               # the exported function's body: loads, then the call of @core
        self.params, self.args = [], []   # @core's parameters and the outer values passed to them
        self.g, self.fixed, self.indirect = {}, {}, {}
        self.site = 0

    def at(self, ptr, k, out):
        """`out = load ptr[k]` (i64) in the exported function."""
        self.outer.append(f"{out}.p = getelementptr i64, i64* {ptr}, i64 {k}")
        self.outer.append(f"{out} = load i64, i64* {out}.p")
        return out

    def pointer(self, value, name):
        """A buffer the loop reads or writes: a `noalias` pointer parameter of @core (the
        buffers of the node's argv are distinct arrays, or disjoint arena ranges live at once)."""
        self.outer.append(f"{name}.o = inttoptr i64 {value} to i8*")
        self.params.append(f"i8* noalias {name}")
        self.args.append(f"i8* {name}.o")
        return name

    def load_pointers(self, used, same):
        """The descriptor's fields, one pointer per distinct buffer of `used`, and per record its
        fixed bases and the kernels it calls by address."""
        at, outer, g = self.at, self.outer, self.g
        at("%argv", 0, "%descp")
        outer.append("%desc = inttoptr i64 %descp to i64*")
        at("%desc", 2, "%length")
        at("%desc", 3, "%reverse")
        for a in sorted(used):
            rep = same[a]
            if rep not in g:
                g[rep] = self.pointer(at("%argv", a, f"%a{rep}"), f"%g{rep}")
            g[a] = g[rep]
        for ri, r in enumerate(self.records):
            self._record_pointers(ri, r)

    def _record_pointers(self, ri, r):
        at, outer, prog = self.at, self.outer, r.run.program
        at("%desc", r.offset, f"%hdr{ri}")
        outer.append(f"%hdrp{ri} = inttoptr i64 %hdr{ri} to i64*")
        at(f"%hdrp{ri}", 4, f"%basesi{ri}")
        outer.append(f"%bases{ri} = inttoptr i64 %basesi{ri} to i64*")
        at(f"%hdrp{ri}", 0, f"%fnsi{ri}")
        outer.append(f"%fns{ri} = inttoptr i64 %fnsi{ri} to i64*")
        set_bases = {s[0] for s in r.sets}
        wanted = set(int(b) for b in prog.argbase[:int(prog.argstart[prog.n_kernels])])
        wanted |= {c[3] for c in r.copies}
        for b in sorted(wanted - set_bases):   # the sub-program's arena, constants, status pair
            self.fixed[ri, b] = self.pointer(at(f"%bases{ri}", b, f"%b{ri}_{b}"), f"%fb{ri}_{b}")
        for k in range(prog.n_kernels):
            unit, node = r.run.units[k], r.run.kernel_nodes[k]
            if _direct(unit, node):
                self.e.direct[unit.name] = unit
            else:
                f = at(f"%fns{ri}", k, f"%fa{ri}_{k}")
                outer.append(f"%fo{ri}_{k} = inttoptr i64 {f} to i64 (i8**)*")
                self.params.append(f"i64 (i8**)* %fp{ri}_{k}")
                self.args.append(f"i64 (i8**)* %fo{ri}_{k}")
                self.indirect[ri, k] = f"%fp{ri}_{k}"

    def gep(self, base, off):
        if isinstance(off, int) and off == 0:
            return base
        v = self.e.tmp()
        self.e.emit(f"{v} = getelementptr i8, i8* {base}, i64 {off}")
        return v

    def invoke(self, ri, parity, i, fail_to):
        """Run record ri's kernels and copies for an iteration of this parity at position i."""
        e, r = self.e, self.records[ri]
        prog = r.run.program
        addr = {}

        def formula(a, s, p):
            base = self.g[a + (p & parity & 1)]
            if s == 0:
                return base
            off = e.tmp()
            e.emit(f"{off} = mul i64 {i}, {s}")
            return self.gep(base, off)

        def slot(b, o):
            return self.gep(addr[b] if b in addr else self.fixed[ri, b], o)

        for (b, a, s, p) in r.sets:
            addr[b] = formula(a, s, p)
        for k in range(prog.n_kernels):
            self._call(ri, k, slot, fail_to)
        for (a, s, p, sb, so, nbytes) in r.copies:
            self.move(formula(a, s, p), slot(sb, so), nbytes)

    def _call(self, ri, k, slot, fail_to):
        """Kernel k of record ri: its argv in a stack array, the call, a failure branch."""
        e, r = self.e, self.records[ri]
        prog = r.run.program
        start, end = int(prog.argstart[k]), int(prog.argstart[k + 1])
        n = max(end - start, 1)
        self.site += 1
        av = f"%av{self.site}"
        e.allocas.append(f"{av} = alloca [{n} x i8*]")
        for j in range(start, end):
            v = slot(int(prog.argbase[j]), int(prog.argoff[j]))
            q = e.tmp()
            e.emit(f"{q} = getelementptr [{n} x i8*], [{n} x i8*]* {av}, i64 0, i64 {j - start}")
            e.emit(f"store i8* {v}, i8** {q}")
        argp, st, bad = e.tmp(), e.tmp(), e.tmp()
        e.emit(f"{argp} = getelementptr [{n} x i8*], [{n} x i8*]* {av}, i64 0, i64 0")
        unit = r.run.units[k]
        callee = self.indirect.get((ri, k)) or f'@"{unit.name}"'
        e.emit(f"{st} = call i64 {callee}(i8** {argp})")
        e.emit(f"{bad} = icmp ne i64 {st}, 0")
        ok, fail = f"ok{self.site}", f"fail{self.site}"
        e.emit(f"br i1 {bad}, label %{fail}, label %{ok}")
        fail_to.append((fail, r.offset, k + 1))
        e.label(ok)

    def move(self, dst, src, nbytes):
        if dst != src:
            self.e.emit(f"call void @llvm.memmove.p0i8.p0i8.i64(i8* {dst}, i8* {src}, "
                        f"i64 {nbytes}, i1 0)")

    def loop(self, kind, carries, flag):
        """@core's blocks: the initial carry (and a while loop's first condition), the loop
        unrolled by two (parity 0 and 1: a carry alternates between its two buffers), the
        final carry on an odd count, and a failure exit per kernel call."""
        e, g, fails = self.e, self.g, []
        body = 0
        cond = 1 if kind == loop_runner.WHILE_FUSED else None
        e.label("start")
        e.emit("%last = sub i64 %length, 1")
        e.emit("%rev = icmp ne i64 %reverse, 0")
        for (o, _, init, nbytes) in carries:                 # the initial carry into O
            self.move(g[o], g[init], nbytes)
        if cond is not None:                                 # the condition before the first step
            self.invoke(cond, 0, "0", fails)
        e.emit("br label %start_end")
        e.label("start_end")
        e.emit("br label %h0")
        for parity in (0, 1):
            self._step(kind, flag, body, parity, fails)
        e.label("e0")
        e.emit("ret i64 0")
        e.label("e1")                                        # odd: the final carry is in S
        for (o, sc, _, nbytes) in carries:
            self.move(g[o], g[sc], nbytes)
        e.emit("ret i64 0")
        for (label, rec, st) in fails:
            e.label(label)
            e.emit(f"%p8_{label} = getelementptr i64, i64* %desc, i64 8")
            e.emit(f"store i64 {rec}, i64* %p8_{label}")
            e.emit(f"%p9_{label} = getelementptr i64, i64* %desc, i64 9")
            e.emit(f"store i64 {st}, i64* %p9_{label}")
            e.emit("ret i64 1")

    def _step(self, kind, flag, body, parity, fails):
        """The loop's head and body for iterations of one parity."""
        e = self.e
        e.label(f"h{parity}")
        if parity == 0:
            e.emit("%it0 = phi i64 [0, %start_end], [%nx1, %d1]")
        else:
            e.emit("%it1 = phi i64 [%nx0, %d0]")
        if kind == loop_runner.COUNTED:
            e.emit(f"%go{parity} = icmp slt i64 %it{parity}, %length")
        else:
            e.emit(f"%fv{parity} = load i8, i8* {self.g[flag]}")
            e.emit(f"%go{parity} = icmp ne i8 %fv{parity}, 0")
        e.emit(f"br i1 %go{parity}, label %s{parity}, label %e{parity}")
        e.label(f"s{parity}")
        e.emit(f"%back{parity} = sub i64 %last, %it{parity}")
        e.emit(f"%i{parity} = select i1 %rev, i64 %back{parity}, i64 %it{parity}")
        self.invoke(body, parity, f"%i{parity}", fails)
        e.emit(f"%nx{parity} = add i64 %it{parity}, 1")
        e.emit(f"br label %d{parity}")
        e.label(f"d{parity}")
        e.emit(f"br label %h{1 - parity}")

    def text(self) -> str:
        e = self.e
        decls = ["declare void @llvm.memmove.p0i8.p0i8.i64(i8*, i8*, i64, i1)"]
        decls += [f'declare i64 @"{name}"(i8**)' for name in sorted(e.direct)]
        head = ["i64* %desc", "i64 %length", "i64 %reverse"]
        signature = ", ".join(head + self.params)
        core = ([f"define internal i64 @core({signature}) noinline {{", "entry:"]
                + ["  " + x for x in e.allocas] + ["  br label %start"] + e.lines + ["}"])
        call = ", ".join(["i64* %desc", "i64 %length", "i64 %reverse"] + self.args)
        fn = (["define i64 @jg_loopfn(i64* %argv) {", "entry:"] + ["  " + x for x in self.outer]
              + [f"  %r = call i64 @core({call})", "  ret i64 %r", "}"])
        return "\n".join(decls + [""] + core + [""] + fn) + "\n"


def _link(name, skeleton, units) -> str:
    """The skeleton with the units' IR linked in (internal, so that LLVM may inline and drop
    them), the function renamed to `name`: the module's text."""
    import llvmlite.binding as llvm     # lazy: LLVM; only a compile that misses the disk cache
    main = llvm.parse_assembly(skeleton.replace("@jg_loopfn(", f'@"{name}"('))
    for u in units.values():
        m = llvm.parse_assembly(u.source)
        m.triple, m.data_layout = main.triple, main.data_layout
        main.link_in(m)
    for u in units:
        main.get_function(u).linkage = "internal"
    return str(main)


def compile_loop(kind, carries, records, flag, same):
    """(address, cache file) of the specialized loop function, or None where the generic
    jg_loop runs the node (a descriptor kind this does not write). same[a]: the first argv
    index holding the same buffer as argv[a] (one pointer per distinct buffer)."""
    if kind not in (loop_runner.COUNTED, loop_runner.WHILE_FUSED):
        return None
    skeleton, units = _skeleton(kind, carries, records, flag, same)
    digest = hashlib.sha256("\0".join([skeleton, llvm_jit.versions(), _version()]).encode())
    name = "jg_loopfn_" + digest.hexdigest()[:24]
    (address,), status = llvm_jit.compile_ir(name, lambda: _link(name, skeleton, units), [name])
    if status != "loaded":
        n = sum(r.run.program.n_kernels for r in records)
        direct = sum(_direct(u, k) for r in records
                     for u, k in zip(r.run.units, r.run.kernel_nodes))
        config.log(1, f"loop function {name} ({status}): {direct} of {n} kernels called "
                      f"directly (inlinable), {n - direct} by address")
    return address, llvm_jit.entry_path(name)

