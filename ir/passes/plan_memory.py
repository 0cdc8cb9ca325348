"""plan_memory: where every kernel output of a schedule lives.

Liveness over the schedule: a value is live from the kernel that writes it (its index in the
schedule) to the last kernel that reads it, inclusive. Every intermediate (a kernel output that is
not a graph output) gets a byte offset in ONE arena per device; buffers whose lifetimes are
disjoint share space. Offsets are chosen best-fit, largest buffer first: each buffer goes into the
smallest gap, among buffers already placed that are live at the same time, that holds it.

In place: a kernel writes an output into the storage of an input that dies at that kernel when
both have the same type and the kernel is elementwise (every point reads its inputs before
writing its outputs), or the input is read only by the elementwise epilogue of a reduce or
matmul kernel (the epilogue writes each output element after reading that element's inputs).
Donated inputs (jit's donate_argnums) are reused the same way, graph outputs included: the
caller gave that storage up.

Views: a kernel that only reshapes (an opaque reshape: the same bytes in row-major order) copies
nothing when its input is an arena buffer or a graph input and its output is not a graph output:
the output is a view of the input's storage (plan.free holds the kernel's index, which backends
may skip; plan.views maps a view of graph input i to i; a view of an arena buffer gets that
buffer's offset). A view and the buffer it views form one group whose members all live until the
last read of any of them, and none is written over in place while another is read.

Graph outputs are never in the arena (the runtime reuses the arena across calls while the caller
keeps the outputs): they are allocated separately each call, unless written into a donated input.

The plan (MemoryPlan), which codegen follows: allocate one arena of `arena_bytes` bytes per call
(or once, and reuse it), then for each kernel output value v:
  v in plan.offsets   -> arena[offset : offset + v.type.nbytes] viewed as v's dtype and shape
  v in plan.outputs   -> a fresh array (the graph output with that index)
  v in plan.donated   -> the storage of graph input plan.donated[v] (a donated argument)
Matmul kernel i (the i-th kernel of the schedule) writes its product into the storage of output
plan.product[i] (the product itself, or an epilogue output of the same type that is not written
in place, which the epilogue then overwrites point by point); when there is none,
plan.scratch[i] = (offset, nbytes) is an arena workspace for the product.
Concurrent waves (issue 26): a backend that runs independent kernels at the same time (the CPU
pool: codegen/cpu/waves.py picks the waves) passes them in: lanes of kernels run at once, each
lane's kernels in order (runtime/sequencer.py). plan.order is the execution order (the
schedule's, except that a wave's kernels sit together, lane after lane, and the few kernels they
wait for just before), plan.waves the waves (per wave, its lanes: tuples of schedule indices).
A buffer is live over its schedule indices [start, end] and over its positions in plan.order (`steps`);
two buffers share arena bytes only when neither interval overlaps and they are not live in two
lanes of one wave (lanes run at the same time; within a lane, reuse and in place as usual). So
the plan holds for the schedule run in order (other backends, the native export, the loop
runners) and for the waves run at once: no kernel writes a buffer that a kernel of another lane
of its wave uses. plan.check() checks both.
Fields: arena_bytes (== peak_bytes), naive_bytes (every intermediate and workspace alive at once,
each in its own aligned slot), alignment (every offset is a multiple of it), buffers (a
PlannedBuffer per kernel output in schedule order, with name, nbytes, start/end kernel indices,
place, offset, inplace_of), offsets, outputs, donated, product, scratch. str(plan) is a readable
table; plan.check() raises if two buffers live at the same time overlap in the arena.
"""
from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass, field

from ..graph import Graph
from ..ops import Op
from ..primitives import REDUCE
from .fusion_rules import matmul_operand, product_stores

ALIGNMENT = 64


def _aligned(n: int) -> int:
    return -(-n // ALIGNMENT) * ALIGNMENT


@dataclass
class PlannedBuffer:
    value: object              # the ir Value (None for a matmul workspace)
    name: str                  # as printed in the optimized IR (%7), or "scratch k4"
    nbytes: int
    start: int                 # index of the kernel that writes it
    end: int                   # index of the last kernel that reads it
    place: str                 # "arena" | "output" | "donated"
    offset: int | None = None  # arena offset (place == "arena")
    inplace_of: str | None = None   # name of the dying input whose storage it takes
    view_of: str | None = None      # name of the buffer (or graph input) it is a view of
    steps: tuple | None = None      # (first, last) position in plan.order it is live over
    readers: tuple = ()             # the kernels (schedule indices) that read it


@dataclass
class MemoryPlan:
    arena_bytes: int
    naive_bytes: int
    buffers: list
    offsets: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)
    donated: dict = field(default_factory=dict)
    scratch: dict = field(default_factory=dict)
    product: dict = field(default_factory=dict)
    views: dict = field(default_factory=dict)      # view of a graph input -> the input's index
    free: set = field(default_factory=set)         # kernels that only make a view: skippable
    order: list = field(default_factory=list)      # execution order of the schedule's kernels
    waves: list = field(default_factory=list)      # per wave its lanes: run at the same time
    alignment: int = ALIGNMENT
    donatable: tuple = ()      # the graph inputs it was allowed to reuse (plan_memory's donated)
    reuse: bool = True         # False: every buffer in a slot of its own (plan_memory disabled)

    @property
    def peak_bytes(self) -> int:
        return self.arena_bytes

    def check(self):
        """Raise AssertionError if two arena buffers live at the same time overlap."""
        placed = sorted((b for b in self.buffers if b.place == "arena" and b.nbytes
                         and b.view_of is None),
                        key=lambda b: b.offset)
        at = {i: p for p, i in enumerate(self.order)}
        spans = [[(at[lane[0]], at[lane[-1]]) for lane in w] for w in self.waves]
        taken = {b.name: b.inplace_of for b in self.buffers if b.inplace_of}
        touched = {id(b): _lanes_touched(*(b.steps or (b.start, b.end)), spans) for b in placed}

        def chain(name):        # buffers written in place of each other are one storage
            while name in taken:
                name = taken[name]
            return name
        for i, a in enumerate(placed):
            for b in placed[i + 1:]:
                if b.offset >= a.offset + a.nbytes:
                    break
                shared = b.inplace_of is not None and b.offset == a.offset
                if a.start <= b.end and b.start <= a.end and not (shared and b.start == a.end):
                    raise AssertionError(f"memory plan: {a.name} [{a.start},{a.end}] and {b.name} "
                                         f"[{b.start},{b.end}] overlap at offset {b.offset}")
                (a0, a1), (b0, b1) = a.steps or (a.start, a.end), b.steps or (b.start, b.end)
                if a0 <= b1 and b0 <= a1 and not (shared and b0 == a1):
                    raise AssertionError(f"memory plan: {a.name} (steps [{a0},{a1}]) and {b.name} "
                                         f"(steps [{b0},{b1}]) overlap at offset {b.offset} "
                                         f"in the execution order")
                if _apart(touched[id(a)], touched[id(b)]) and chain(a.name) != chain(b.name):
                    raise AssertionError(f"memory plan: {a.name} and {b.name} share offset "
                                         f"{b.offset} while live in two lanes of one wave")
        self.check_waves()
        return self

    def check_waves(self):
        """Raise AssertionError if a kernel of a wave writes arena bytes that a kernel of another
        lane of its wave reads or writes, or the order is not a permutation of the schedule."""
        if not self.waves:
            return self
        if sorted(self.order) != list(range(len(self.order))):
            raise AssertionError("memory plan: the execution order is not a permutation")
        writes, reads = {}, {}
        for b in self.buffers:
            if b.place != "arena" or not b.nbytes or b.offset is None:
                continue
            span = (b.offset, b.offset + b.nbytes)
            writes.setdefault(b.start, []).append((span, b.name))
            for r in b.readers:
                reads.setdefault(r, []).append((span, b.name))
        for wave in self.waves:
            for a, lane in enumerate(wave):
                for b, other_lane in enumerate(wave):
                    if a == b:
                        continue
                    for i in lane:
                        for j in other_lane:
                            for (lo, hi), name in writes.get(i, []):
                                for (lo2, hi2), other in writes.get(j, []) + reads.get(j, []):
                                    if lo < hi2 and lo2 < hi:
                                        raise AssertionError(
                                            f"memory plan: kernel {i} writes {name} over {other}, "
                                            f"which kernel {j} of another lane of its wave uses "
                                            f"at the same time")
        return self

    def __str__(self):
        inplace = sum(b.inplace_of is not None for b in self.buffers)
        lines = [f"memory plan: arena {self.arena_bytes} bytes (peak), naive {self.naive_bytes} "
                 f"bytes, {len(self.buffers)} buffers, {inplace} in place, "
                 f"{len(self.outputs)} graph outputs allocated separately",
                 f"  {'buffer':<12}{'bytes':>12}{'offset':>12}  {'live':<12}note"]
        for b in self.buffers:
            off = "-" if b.offset is None else str(b.offset)
            note = {"arena": "", "output": "graph output (separate)",
                    "donated": "in a donated input", "view": ""}[b.place]
            if b.view_of:
                note = f"view of {b.view_of}"
            if b.inplace_of:
                note = (note + "; " if note else "") + f"in place of {b.inplace_of}"
            lines.append(f"  {b.name:<12}{b.nbytes:>12}{off:>12}  "
                         f"{f'[{b.start},{b.end}]':<12}{note}".rstrip())
        if self.waves:
            lines.append("  concurrent: " + "; ".join(
                " | ".join(",".join(f"k{i}" for i in lane) for lane in w) for w in self.waves))
        return "\n".join(lines)


def value_names(graph: Graph) -> dict:
    """Value -> its name in the printed graph (the printer's numbering)."""
    names = dict(zip(graph.inputs, ["%" + n for n in (graph.arg_names or [
        f"a{i}" for i in range(len(graph.inputs))])]))
    counter = 0
    for node in graph.nodes:
        for v in node.outputs:
            names[v] = f"%{counter}"
            counter += 1
    return names


def _matmul_parts(kernel):
    """(outer inputs that are matmul operands, outer outputs that are the raw product or hold
    it transposed (fusion_rules.product_stores), the product's type) of a matmul kernel."""
    body = kernel.params["body"]
    outer = dict(zip(body.inputs, kernel.inputs))
    produced = {v: n for n in body.nodes for v in n.outputs}
    mm = next(n for n in body.nodes if n.op == Op.matmul)
    operands = set()
    for x in mm.inputs:
        operands.add(outer[matmul_operand(produced, x)[0]])
    stores = product_stores(body.nodes, mm.output)
    raw = [o for b, o in zip(body.outputs, kernel.outputs) if b is mm.output or b in stores]
    return operands, raw, mm.output.type


def inplace_candidates(kernel):
    """(inputs whose storage an output may take, outputs that may take one) for this kernel."""
    kind = kernel.params["kind"]
    if kind == "elementwise":
        return list(kernel.inputs), list(kernel.outputs)
    if kind == "reduce":    # the epilogue reads an input at the point it writes an output
        body = kernel.params["body"]
        post, users = set(), body.consumers()
        for n in body.nodes:
            if n.op in REDUCE or any(x in post for x in n.inputs):
                post.update(n.outputs)
        ins = [o for b, o in zip(body.inputs, kernel.inputs)
               if users.get(b) and all(u.output in post for u in users[b])]
        return ins, [o for b, o in zip(body.outputs, kernel.outputs) if b in post]
    if kind == "matmul":
        operands, raw, _ = _matmul_parts(kernel)
        return ([v for v in kernel.inputs if v not in operands],
                [o for o in kernel.outputs if o not in raw])
    return [], []


def is_view(kernel) -> bool:
    """A kernel that only reshapes: its output is its input's bytes."""
    body = kernel.params["body"]
    return (kernel.params.get("kind") == "opaque" and len(body.nodes) == 1
            and body.nodes[0].op == Op.reshape and body.nodes[0].inputs[0] in body.inputs)


def _view_groups(kernels, last, out_index, viewable):
    """{view value: the value whose storage it is}, for reshape kernels whose input is
    `viewable` (an arena buffer or a graph input) and whose output is not a graph output; `last`
    updated so every member of a group lives until the group's last read."""
    root = {}
    for k in kernels:
        if is_view(k) and k.outputs[0] not in out_index:
            x = k.inputs[0]
            r = root.get(x, x)
            if viewable(r):
                root[k.outputs[0]] = r
    end = {}
    for v, r in root.items():
        end[r] = max(end.get(r, last.get(r, -1)), last.get(v, -1))
    for v, r in root.items():
        last[v] = last[r] = end[r]
    return root


def _best_fit(slots, lanes=()):
    """Assign offsets: largest first, each into the smallest fitting gap among the slots already
    placed whose lifetimes overlap: in schedule order, in execution order, or in two lanes of
    one wave. slots: list of [size, start, end, offset, first step, last step]; lanes: per
    wave, its lanes' (first step, last step)."""
    touch = {id(s): _lanes_touched(s[4], s[5], lanes) for s in slots}
    placed = []
    for s in sorted(slots, key=lambda s: (-s[0], s[1])):
        ts = touch[id(s)]
        busy = sorted((p[3], p[3] + p[0]) for p in placed
                      if (p[1] <= s[2] and s[1] <= p[2]) or (p[4] <= s[5] and s[4] <= p[5])
                      or _apart(ts, touch[id(p)]))
        best, cursor = None, 0
        for lo, hi in busy:
            gap = lo - cursor
            if gap >= s[0] and (best is None or gap < best[0]):
                best = (gap, cursor)
            cursor = max(cursor, hi)
        s[3] = best[1] if best is not None else cursor
        placed.append(s)


def _lanes_touched(first, last, lanes):
    """{wave: the lanes a buffer live over execution steps [first, last] is live in}."""
    out = {}
    for w, spans in enumerate(lanes):
        hit = {n for n, (a, b) in enumerate(spans) if a <= last and first <= b}
        if hit:
            out[w] = hit
    return out


def _apart(ta, tb):
    """Whether two buffers are live in different lanes of one wave (at the same time)."""
    for w, la in ta.items():
        lb = tb.get(w)
        if lb and (len(la | lb) > 1):
            return True
    return False


BEST_FIT_LIMIT = 1024      # slots; past it, best-fit's pairwise overlap scan costs seconds


def _in_time_order(slots):
    """Assign offsets in schedule order: a buffer takes the smallest free gap that holds it
    (gaps of buffers that died before it starts, merged with their free neighbours) or the top.
    Linear in the slots times the free gaps: for schedules too long for `_best_fit`."""
    active = []             # heap of (end, n, slot)
    free = []               # sorted [offset, size] gaps below `top`
    top = 0
    for n, s in enumerate(sorted(slots, key=lambda s: (s[1], -s[0]))):
        while active and active[0][0] < s[1]:
            _, _, d = heapq.heappop(active)
            k = bisect.bisect(free, [d[3], d[0]])
            free.insert(k, [d[3], d[0]])
            if k + 1 < len(free) and free[k][0] + free[k][1] == free[k + 1][0]:
                free[k][1] += free.pop(k + 1)[1]
            if k and free[k - 1][0] + free[k - 1][1] == free[k][0]:
                free[k - 1][1] += free.pop(k)[1]
                k -= 1
            if free[k][0] + free[k][1] == top:
                top = free.pop(k)[0]
        fits = [g for g in free if g[1] >= s[0]]
        if fits:
            g = min(fits, key=lambda g: g[1])
            s[3] = g[0]
            g[0] += s[0]
            g[1] -= s[0]
            if not g[1]:
                free.remove(g)
        else:
            s[3] = top
            top += s[0]
        heapq.heappush(active, (s[2], n, s))


def plan_memory(schedule: Graph, donated=(), reuse=True, waves=None) -> MemoryPlan:
    """The memory plan of a graph of kernel nodes (its nodes are the schedule). `donated`:
    indices of graph inputs whose storage may be reused; reuse=False gives every buffer its own
    slot (the plan with plan_memory disabled). `waves`: (execution order, waves) when kernels
    run at the same time (the CPU pool's: codegen/cpu/waves.py); default: the schedule's order."""
    kernels = schedule.nodes
    order, waves = waves or (list(range(len(kernels))), [])
    live = _Liveness(schedule, order, waves, donated, reuse)
    slots, buffers = [], []
    plan = MemoryPlan(0, 0, buffers, donatable=tuple(donated), reuse=reuse)
    for i, k in enumerate(kernels):
        if k.outputs and k.outputs[0] in live.root:
            _place_view(live, plan, slots, i, k)
        else:
            _place_outputs(live, plan, slots, i, k)
    plan.naive_bytes = sum(_aligned(b.nbytes) for b in buffers
                           if b.place == "arena" and b.view_of is None)
    _assign_offsets(live, plan, slots)
    plan.order, plan.waves = order, waves
    return plan


class _Liveness:
    """What placing a schedule's buffers reads: each value's last reader (schedule index and
    execution step), its readers, the kernels of other lanes of each kernel's wave, the view
    groups, graph outputs, donors and inputs; slot_of: value (or ("scratch", i)) -> its slot
    [nbytes, first kernel, last kernel, offset, first step, last step]."""

    def __init__(self, schedule, order, waves, donated, reuse):
        kernels = schedule.nodes
        self.names, self.reuse = value_names(schedule), reuse
        self.step = step = [0] * len(kernels)       # execution step: the position in `order`
        for p, i in enumerate(order):
            step[i] = p
        self.others = {}                # kernel -> the kernels of its wave's other lanes
        self.spans = []                 # per wave, its lanes' (first step, last step)
        for w in waves:
            members = {i for lane in w for i in lane}
            self.spans.append([(step[lane[0]], step[lane[-1]]) for lane in w])
            for lane in w:
                for i in lane:
                    self.others[i] = members - set(lane)
        self.last, self.xlast, self.readers = last, xlast, readers = {}, {}, {}
        for i, k in enumerate(kernels):
            for v in k.inputs:
                last[v] = i
                xlast[v] = max(xlast.get(v, -1), step[i])
                readers.setdefault(v, set()).add(i)
        self.out_index = {}
        for i, v in enumerate(schedule.outputs):
            self.out_index.setdefault(v, i)
        self.donor = {schedule.inputs[i]: i for i in donated} if reuse else {}
        self.inputs = {v: i for i, v in enumerate(schedule.inputs)}
        outputs_of = {v for k in kernels for v in k.outputs}
        self.root = root = _view_groups(
            kernels, last, self.out_index,
            lambda r: r in self.inputs or (r in outputs_of and r not in self.out_index)) \
            if reuse else {}
        xend = {}
        for v, r in root.items():
            xend[r] = max(xend.get(r, xlast.get(r, -1)), xlast.get(v, -1))
        for v, r in root.items():
            xlast[v] = xlast[r] = xend[r]
        self.group = {}
        for v, r in root.items():
            self.group.setdefault(r, {r}).add(v)
        self.slot_of = {}

    def new_slot(self, slots, key, nbytes, i, end, xe):
        self.slot_of[key] = [_aligned(nbytes), i, end, 0, self.step[i], xe]
        slots.append(self.slot_of[key])

    def share_slot(self, v, src, b, i):
        """v takes the slot of `src` (its view root, or the input it is written in place of)."""
        slot = self.slot_of[v] = self.slot_of[src]
        slot[2] = max(slot[2], b.end)
        slot[5] = max(slot[5], self.xlast.get(v, self.step[i]))


def _place_view(live, plan, slots, i, k):
    """Kernel i only makes a view of its root: the root's slot, the input itself, or (a donated
    input, or a root placed elsewhere) a copy of its own."""
    v, r = k.outputs[0], live.root[k.outputs[0]]
    b = PlannedBuffer(v, live.names[v], v.type.nbytes, i, live.last.get(v, i), "arena",
                      view_of=live.names[r])
    if r in live.slot_of:
        live.share_slot(v, r, b, i)
        plan.free.add(i)
    elif r in live.inputs and r not in live.donor:
        b.place, plan.views[v] = "view", live.inputs[r]
        plan.free.add(i)
    else:
        b.view_of = None
        live.new_slot(slots, v, b.nbytes, i, b.end, live.xlast.get(v, live.step[i]))
    plan.buffers.append(b)


def _place_outputs(live, plan, slots, i, k):
    """Kernel i's outputs: in place of a dying input, a graph output, or a slot of their own;
    a matmul's product in an output or a scratch slot."""
    takers_in, takers_out = inplace_candidates(k) if live.reuse else ([], [])
    # a view group's storage is taken in place only by a kernel that reads one member
    reads = [live.root.get(v, v) for v in k.inputs]
    # ... and, in a wave, only by a kernel that is its last reader in the concurrent order
    # too, with no kernel of another lane of its wave reading it
    free = [v for v in takers_in if live.last.get(v) == i and v not in live.out_index
            and (v in live.slot_of or v in live.donor)
            and live.xlast.get(v) == live.step[i]
            and not live.readers[v] & live.others.get(i, set())
            and (live.root.get(v, v) not in live.group or reads.count(live.root.get(v, v)) == 1)]
    buffers, donor = plan.buffers, live.donor
    for v in k.outputs:
        b = PlannedBuffer(v, live.names[v], v.type.nbytes, i, live.last.get(v, i), "arena")
        src = next((x for x in free if x.type == v.type
                    and (x in donor or v not in live.out_index)), None) \
            if v in takers_out else None
        if src is not None:
            free.remove(src)
            b.inplace_of = live.names[src]
            if src in donor:
                b.place, donor[v] = "donated", donor[src]
                plan.donated[v] = donor[src]
            else:
                live.share_slot(v, src, b, i)
        elif v in live.out_index:
            b.place = "output"
            plan.outputs[v] = live.out_index[v]
        else:
            live.new_slot(slots, v, b.nbytes, i, b.end, live.xlast.get(v, live.step[i]))
        buffers.append(b)
    if k.params["kind"] == "matmul":
        _, raw, product = _matmul_parts(k)
        fresh = [b.value for b in buffers[-len(k.outputs):] if b.inplace_of is None]
        host = raw or [o for o in fresh if o.type == product]
        if host:
            plan.product[i] = host[0]
        else:
            live.new_slot(slots, ("scratch", i), product.nbytes, i, i, live.step[i])
            buffers.append(PlannedBuffer(None, f"scratch k{i}", product.nbytes, i, i, "arena"))


def _assign_offsets(live, plan, slots):
    """Lay the slots out in the arena (best fit, or in time order past BEST_FIT_LIMIT; one slot
    each without reuse) and give every buffer its offset, steps and readers."""
    if live.reuse:
        if len(slots) <= BEST_FIT_LIMIT:
            _best_fit(slots, live.spans)
        else:
            _in_time_order(slots)
    else:
        offset = 0
        for s in slots:
            s[3], offset = offset, offset + s[0]
    step, xlast = live.step, live.xlast
    for b in plan.buffers:
        key = b.value if b.value is not None else ("scratch", b.start)
        b.steps = (step[b.start], xlast.get(b.value, step[b.start]))
        b.readers = tuple(sorted(live.readers.get(b.value, ())))
        if b.place == "arena":
            b.offset = live.slot_of[key][3]
            if b.value is None:
                plan.scratch[b.start] = (b.offset, b.nbytes)
            else:
                plan.offsets[b.value] = b.offset
    plan.arena_bytes = max((s[3] + s[0] for s in slots), default=0)
