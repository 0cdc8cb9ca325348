"""The CPU pool's concurrent waves (issue 26): which independent chains of small kernels run at
the same time, one lane per thread of the pool (runtime/sequencer.py runs them), and the memory
plan that keeps the lanes' buffers apart. The device-independent pipeline plans memory for the
schedule's order (ir/passes/plan_memory.py); the CPU backend asks `planned` for its plan with
waves, which plan_memory lays out (its `waves` argument), kept only when it does not raise the
peak by more than WAVE_MEMORY and WAVE_MEMORY_SLACK. The result is a WavePlan, which the pipeline
cache stores (codegen/pipeline_cache.py): a warm start lays nothing out again."""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

from ...ir import config
from ...ir.ops import Op
from ...ir.passes.plan_memory import BEST_FIT_LIMIT, MemoryPlan, plan_memory
from ...ir.registry import TRANSCENDENTAL

# Waves (issue 26). A lane is a chain of kernels that run one after another on one thread; a
# wave is a few lanes that do not depend on each other, run at the same time. A kernel may sit
# in a lane when it does not use the pool itself (below codegen/kernel/costs.PARALLEL_MIN
# element-costs, kernels/matmul.GEMM_MIN multiply-adds) nor the host; a wave starts only at
# kernels with enough work, and is kept only when each lane has enough to pay for waking a
# worker (tens of microseconds on a busy machine). Work is in element-costs; a product's
# multiply-add counts half of one (kernels/matmul.GEMM_MIN is twice PARALLEL_MIN).
CONCURRENT_MIN = 1 << 14          # element-costs of a lane's first kernel
WAVE_MIN = 1 << 18                # element-costs of every lane of a wave
CONCURRENT_MAX = 1 << 19          # element-costs
CONCURRENT_GEMM_MAX = 1 << 20     # multiply-adds
WAVE_LOOKAHEAD = 256              # how far down the schedule a lane's kernels may come from
WAVE_PULL = 64                    # kernels a wave may wait for (run just before it)
LANE_MAX = 64                     # kernels per lane
WAVE_MEMORY = 1.1                 # no waves when they raise the peak by more than 10%
WAVE_MEMORY_SLACK = 1 << 19       # ... and more than 512 KiB


def concurrent_work(kernel):
    """The work of a kernel that may run in a lane (element-costs; a product's multiply-adds
    count half), or None: a kind that may use the pool or the host (opaque: control flow,
    gathers), complex values, or too much work (it runs split over the pool)."""
    kind = kernel.params["kind"]
    body = kernel.params["body"]
    if kind == "matmul":
        mm = next((n for n in body.nodes if n.op == Op.matmul), None)
        if mm is None:
            return None
        work = math.prod(mm.output.type.shape) * (mm.inputs[0].type.shape or (1,))[-1]
        return work // 2 if work < CONCURRENT_GEMM_MAX else None
    if kind not in ("elementwise", "reduce", "rowwise"):
        return None
    values = [v for n in body.nodes for v in (*n.inputs, *n.outputs)]
    if any(v.type.dtype.kind == "c" for v in values):
        return None
    size = max([v.type.size for v in values] + [0])
    work = size * (1 + 8 * sum(n.op in TRANSCENDENTAL for n in body.nodes))
    return work if work < CONCURRENT_MAX else None


def concurrent_order(kernels, width):
    """(execution order, waves) of a schedule. The order is the schedule's, except for waves:
    at a kernel with enough work (CONCURRENT_MIN), up to width - 1 later ones that do not
    depend on it start lanes of their own; then each lane, the least loaded first, takes the
    next kernel (within WAVE_LOOKAHEAD) whose inputs come from before the wave or from that
    lane. The few kernels a lane's kernel still waits for (at most WAVE_PULL in all, none
    depending on the wave) run just before the wave. A wave whose lightest lane has less than
    WAVE_MIN is not formed. A wave is laid out lane after lane:
    waves holds, per wave, its lanes (tuples of schedule indices)."""
    n = len(kernels)
    producer = {v: i for i, k in enumerate(kernels) for v in k.outputs}
    deps = [sorted({producer[v] for v in k.inputs if v in producer}) for k in kernels]
    work = [concurrent_work(k) if width > 1 else None for k in kernels]
    done = [False] * n
    order, waves = [], []

    def waiting(j, lane_of, lane, budget):
        """The kernels j still waits for outside the wave, or None: j needs another lane's
        kernel (or one of those does), or more than `budget` of them."""
        seen, todo = set(), [j]
        while todo:
            t = todo.pop()
            for d in deps[t]:
                if d in lane_of:
                    if t != j or lane_of[d] != lane:
                        return None
                elif not done[d] and d not in seen:
                    seen.add(d)
                    if len(seen) > budget:
                        return None
                    todo.append(d)
        return seen

    for i in range(n):
        if done[i]:
            continue
        if work[i] is None or work[i] < CONCURRENT_MIN:
            done[i] = True
            order.append(i)
            continue
        lanes, lane_of, pulled, load = [[i]], {i: 0}, set(), [work[i]]
        horizon = min(n, i + 1 + WAVE_LOOKAHEAD)
        for j in range(i + 1, horizon):     # the other lanes' first kernels
            if len(lanes) >= width:
                break
            if done[j] or j in lane_of or j in pulled or (work[j] or 0) < CONCURRENT_MIN:
                continue
            before = waiting(j, lane_of, None, WAVE_PULL - len(pulled))
            if before is None:
                continue
            pulled |= before
            lane_of[j] = len(lanes)
            lanes.append([j])
            load.append(work[j])
        if len(lanes) > 1:
            open_ = set(range(len(lanes)))
            while open_:            # grow the least loaded lane by its next kernel
                L = min(open_, key=lambda x: load[x])
                nxt = None
                if len(lanes[L]) < LANE_MAX:
                    for j in range(lanes[L][-1] + 1, horizon):
                        if done[j] or j in lane_of or j in pulled or work[j] is None:
                            continue
                        if not any(lane_of.get(d) == L for d in deps[j]):
                            continue
                        before = waiting(j, lane_of, L, WAVE_PULL - len(pulled))
                        if before is not None:
                            nxt = j
                            break
                if nxt is None:
                    open_.discard(L)
                    continue
                pulled |= before
                lane_of[nxt] = L
                lanes[L].append(nxt)
                load[L] += work[nxt]
        if len(lanes) < 2 or min(load) < WAVE_MIN:
            done[i] = True          # not worth a wave: the schedule's order
            order.append(i)
            continue
        for d in pulled:
            done[d] = True
        for j in lane_of:
            done[j] = True
        order += sorted(pulled)
        for lane in lanes:
            order += lane
        waves.append(tuple(tuple(lane) for lane in lanes))
    return order, waves


def wave_width() -> int:
    """How many kernels a wave holds: the pool's threads (1: no waves, the schedule's order)."""
    return max(1, min(int(config.read("num_threads")), 8))


@dataclass
class WavePlan(MemoryPlan):
    """A memory plan as the CPU backend runs it (`planned`): laid out for the concurrent waves of
    at most `width` lanes, or the schedule-order plan where waves did not pay."""
    width: int = 1


_COUNTS = {"laid": 0, "kept": 0}


def layout_info() -> dict:
    """{'laid': plans `planned` laid out in this process (the wave planner ran), 'kept': plans it
    was given already laid out for the pool's width (a pipeline-cache hit: nothing planned)}."""
    return dict(_COUNTS)


def planned(schedule, plan, width=None) -> WavePlan:
    """The memory plan the CPU backend runs `schedule` (a graph of kernel nodes) with: `plan`
    (the pipeline's, in schedule order) re-laid for the concurrent waves of `width` lanes
    (default: the pool's threads; 1: none), or `plan` itself when there are none or they raise
    its peak too much. A WavePlan of this width is returned as it is."""
    width = wave_width() if width is None else width
    if isinstance(plan, WavePlan):
        if plan.width == width:
            _COUNTS["kept"] += 1
            return plan
        if plan.waves:          # laid out for another width: the schedule-order plan again
            plan = plan_memory(schedule, plan.donatable, plan.reuse)
    _COUNTS["laid"] += 1
    laid = _with_waves(schedule, plan, width)
    return WavePlan(**{f.name: getattr(laid, f.name) for f in fields(MemoryPlan)}, width=width)


def _with_waves(schedule, plan, width):
    """`plan` re-laid for the waves of `width` lanes, or `plan` where there are none worth it."""
    kernels = schedule.nodes
    if sum(len(k.outputs) + (k.params["kind"] == "matmul") for k in kernels) > BEST_FIT_LIMIT:
        width = 1               # plan_memory's in-time-order layout knows the schedule's order only
    if width < 2:
        return plan
    order, waves = concurrent_order(kernels, width)
    if not waves:
        return plan
    waved = plan_memory(schedule, plan.donatable, plan.reuse, (order, waves))
    if plan.reuse and waved.peak_bytes > max(plan.peak_bytes * WAVE_MEMORY,
                                             plan.peak_bytes + WAVE_MEMORY_SLACK):
        return plan             # waves cost memory (lanes' buffers apart, kernels moved up)
    return waved
