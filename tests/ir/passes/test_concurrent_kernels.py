"""Independent kernels run at the same time (issue 26, item 4).

codegen/cpu/waves.py groups chains of small kernels of independent branches into waves of lanes
(plan.waves, plan.order); the sequencer (runtime/sequencer.py) runs a wave's lanes on the thread
pool. Checked here: the plan never lets two lanes of a wave share bytes one of them writes;
random graphs of independent branches give the same bits as the one-thread run over many calls;
four user threads calling one jitted function at once agree; lanes really overlap (kernels that
wait for each other); a failing kernel in a lane stops the run with its position; the profiler's
timed walk reports each kernel's thread; one thread plans no waves and starts no job."""
from __future__ import annotations

import json
import threading

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir.passes.manager import run_pipeline
from jitgrad.codegen.cpu.waves import planned
from jitgrad.ir.passes.plan_memory import plan_memory
from jitgrad.runtime import profiling, thread_pool
from jitgrad.runtime.sequencer import Program, Slot


@pytest.fixture
def threads():
    """Set the pool's size for a test; the default again afterwards."""
    yield thread_pool.set_num_threads
    thread_pool.use_default_size()


# ------------------------------------------------------------------ random graphs of branches

def _step(kind, w):
    if kind == "matmul":
        return lambda a: jnp.tanh(a @ w)
    if kind == "center":
        return lambda a: a - jnp.mean(a, axis=1, keepdims=True)
    if kind == "scale":
        return lambda a: a * (jnp.sum(jnp.abs(a), axis=0) * 0.01)
    if kind == "softmax":
        return lambda a: jnp.exp(a - jnp.max(a, axis=1, keepdims=True))
    return lambda a: jnp.sin(a) * 0.5 + a


KINDS = ("matmul", "center", "scale", "softmax", "sin")


def random_branches(seed):
    """(fn, args): 2-3 independent branches, each a chain of 3-7 random steps over its own
    input, some sharing weights; the outputs are every branch and the sum of two of them."""
    rng = np.random.default_rng(seed)
    rows, cols = int(rng.choice([128, 192])), 64
    n = int(rng.integers(2, 4))
    chains = [[str(k) for k in rng.choice(KINDS, int(rng.integers(3, 8)))] for _ in range(n)]
    ws = (rng.standard_normal((4, cols, cols)) * 0.2).astype(np.float32)
    picks = [[int(rng.integers(0, 4)) for _ in c] for c in chains]

    def fn(xs, w):
        outs = []
        for x, chain, pick in zip(xs, chains, picks):
            a = x
            for kind, p in zip(chain, pick):
                a = _step(kind, w[p])(a)
            outs.append(a)
        return (*outs, outs[0] + outs[1])

    xs = [rng.standard_normal((rows, cols)).astype(np.float32) for _ in range(n)]
    return fn, (xs, ws)


def _arrays(out):
    return [np.asarray(o) for o in (out if isinstance(out, (tuple, list)) else (out,))]


SEEDS = range(12)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_branches_equal_the_sequential_run(seed, threads, monkeypatch):
    if seed % 3 == 2:           # one kernel per op: many more, smaller kernels and waves
        monkeypatch.setenv("JITGRAD_DISABLE", "fuse")
    fn, args = random_branches(seed)
    threads(1)
    want = _arrays(jg.jit(fn)(*args))
    threads(2)
    f = jg.jit(fn)
    for _ in range(40):                 # races would show as differing bits now and then
        got = _arrays(f(*args))
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_random_branches_form_waves(threads):
    threads(2)
    with_waves = 0
    for seed in SEEDS:
        fn, args = random_branches(seed)
        lowered = jg.jit(fn).lower(*args)
        with_waves += bool(lowered.memory_plan.waves)
    assert with_waves >= len(SEEDS) // 3, with_waves


def _schedule(fn, args):
    graph = jg.make_graph(fn)(*args)
    optimized, _, _ = run_pipeline(graph)
    return optimized


def _check_plan(schedule, plan):
    """Independently of plan.check: the order is a topological permutation, a wave's lanes are
    consecutive in it and independent, and no kernel of a lane writes bytes (arena bytes, a
    donated input) that a kernel of another lane of its wave reads or writes."""
    kernels = schedule.nodes
    assert sorted(plan.order) == list(range(len(kernels)))
    producer = {v: i for i, k in enumerate(kernels) for v in k.outputs}
    at = {i: p for p, i in enumerate(plan.order)}
    for i, k in enumerate(kernels):
        for v in k.inputs:
            if v in producer:
                assert at[producer[v]] < at[i], f"kernel {i} runs before its input's kernel"
    inputs = {v: j for j, v in enumerate(schedule.inputs)}

    def where(v):
        """The storage a value occupies: ("arena", lo, hi), ("input", index), or None."""
        if v in plan.offsets:
            return ("arena", plan.offsets[v], plan.offsets[v] + v.type.nbytes)
        if v in plan.donated:
            return ("input", plan.donated[v])
        if v in plan.views:
            return ("input", plan.views[v])
        if v in inputs:
            return ("input", inputs[v])
        return None

    def clash(a, b):
        if a is None or b is None or a[0] != b[0]:
            return False
        if a[0] == "input":
            return a[1] == b[1]
        return a[1] < b[2] and b[1] < a[2] and a[1] != a[2] and b[1] != b[2]

    def writes(i):
        w = [where(v) for v in kernels[i].outputs]
        if i in plan.scratch:
            off, nbytes = plan.scratch[i]
            w.append(("arena", off, off + nbytes))
        return w

    def uses(i):
        return writes(i) + [where(v) for v in kernels[i].inputs]

    for wave in plan.waves:
        assert len(wave) >= 2
        flat = [i for lane in wave for i in lane]
        start = at[flat[0]]
        assert [at[i] for i in flat] == list(range(start, start + len(flat))), \
            "a wave's lanes are not consecutive in the order"
        lane_of = {i: n for n, lane in enumerate(wave) for i in lane}
        for i in flat:
            for v in kernels[i].inputs:
                d = producer.get(v)
                assert d not in lane_of or lane_of[d] == lane_of[i], \
                    f"kernel {i} reads kernel {d} of another lane of its wave"
        for i in flat:
            for j in flat:
                if lane_of[i] == lane_of[j]:
                    continue
                for w in writes(i):
                    for u in uses(j):
                        assert not clash(w, u), (
                            f"kernels {i} and {j} of one wave: {i} writes {w}, {j} uses {u}")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("width", [2, 3])
@pytest.mark.parametrize("fuse", [True, False])
def test_plan_keeps_lanes_apart(seed, width, fuse, monkeypatch):
    if not fuse:                # one kernel per op: many more, smaller kernels and waves
        monkeypatch.setenv("JITGRAD_DISABLE", "fuse")
    fn, args = random_branches(seed)
    schedule = _schedule(fn, args)
    for donated in ((), (0, 1)):
        plan = planned(schedule, plan_memory(schedule, donated=donated), width=width)
        plan.check()
        _check_plan(schedule, plan)
        assert all(len(w) <= width for w in plan.waves)


def test_plan_of_one_thread_is_the_schedule_order():
    fn, args = random_branches(0)
    schedule = _schedule(fn, args)
    plan = planned(schedule, plan_memory(schedule), width=1)
    assert plan.waves == [] and plan.order == list(range(len(schedule.nodes)))


def test_qkv_projections_share_a_wave():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((192, 64)).astype(np.float32)
    wq, wk, wv = ((rng.standard_normal((64, 64)) * 0.1).astype(np.float32) for _ in range(3))

    def qkv(x, wq, wk, wv):
        return jnp.tanh(x @ wq), jnp.tanh(x @ wk), jnp.tanh(x @ wv)

    schedule = _schedule(qkv, (x, wq, wk, wv))
    plan = planned(schedule, plan_memory(schedule), width=2)
    assert plan.waves and len(plan.waves[0]) == 2, str(plan)
    _check_plan(schedule, plan)


def test_user_threads_call_a_function_with_branches(threads):
    threads(2)
    fn, args = random_branches(6)
    want = _arrays(jg.jit(fn)(*args))
    f = jg.jit(fn)
    f(*args)
    assert f.lower(*args).memory_plan.waves
    errors, results = [], []

    def worker():
        try:
            for _ in range(25):
                results.append(_arrays(f(*args)))
        except Exception as e:          # noqa: BLE001 - reported below
            errors.append(e)

    ts = [threading.Thread(target=worker) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in ts), "a user thread did not finish"
    assert not errors, errors
    assert len(results) == 100
    for got in results:
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_one_thread_runs_every_kernel_on_the_calling_thread(threads):
    threads(1)
    fn, args = random_branches(4)
    f = jg.jit(fn)
    lowered = f.lower(*args)
    assert lowered.memory_plan.waves == []
    f(*args)
    before = thread_pool.dispatched()
    for _ in range(5):
        f(*args)
    assert thread_pool.dispatched() == before


# --------------------------------------------------- the sequencer's waves, with test kernels

_KERNELS_IR = r"""
; argv[0]: my flag, argv[1]: the other lane's flag. Raise mine, wait for the other: both
; return 0 only when they ran at the same time (1 after about a second without the other).
define i64 @meet(i64* %argv) {
entry:
  %pa = load i64, i64* %argv
  %p1 = getelementptr i64, i64* %argv, i64 1
  %pb = load i64, i64* %p1
  %mine = inttoptr i64 %pa to i64*
  %other = inttoptr i64 %pb to i64*
  store atomic i64 1, i64* %mine release, align 8
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %v = load atomic i64, i64* %other acquire, align 8
  %i1 = add i64 %i, 1
  %seen = icmp ne i64 %v, 0
  %give = icmp sgt i64 %i1, 2000000000
  %stop = or i1 %seen, %give
  br i1 %stop, label %out, label %loop
out:
  %r = select i1 %seen, i64 0, i64 1
  ret i64 %r
}

; argv[0]: a counter, incremented
define i64 @count(i64* %argv) {
  %pa = load i64, i64* %argv
  %p = inttoptr i64 %pa to i64*
  %old = atomicrmw add i64* %p, i64 1 seq_cst
  ret i64 0
}

define i64 @fail(i64* %argv) {
  ret i64 1
}
"""

_ENGINE = []


def _kernel(name):
    if not _ENGINE:
        import llvmlite.binding as llvm
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        mod = llvm.parse_assembly(_KERNELS_IR)
        tm = llvm.Target.from_default_triple().create_target_machine()
        engine = llvm.create_mcjit_compiler(mod, tm)
        engine.finalize_object()
        _ENGINE.append(engine)
    return _ENGINE[0].get_function_address(name)


def test_lanes_of_a_wave_run_at_the_same_time(threads):
    threads(2)
    flags = np.zeros(2, np.int64)
    meet = _kernel("meet")
    # lane 0: meet(flag0, flag1); lane 1: meet(flag1, flag0): each waits for the other
    program = Program([(meet, [Slot(0, 0), Slot(0, 8)]), (meet, [Slot(0, 8), Slot(0, 0)])],
                      0, [flags], waves=[(0, 1, 2)])
    for _ in range(5):
        flags[:] = 0
        assert program.run(0, 2) == 0, "the two lanes did not overlap"
        flags[:] = 0
        st, times = profiling.run_timed(program, 0, 2)
        assert st == 0
        assert len(set(times[:, 2].tolist())) == 2, times   # two threads ran them
        assert threading.get_native_id() in times[:, 2]


def test_a_failed_kernel_in_a_lane_stops_the_run_with_its_position(threads):
    threads(2)
    counts = np.zeros(4, np.int64)
    count, fail = _kernel("count"), _kernel("fail")
    c = [Slot(0, 8 * i) for i in range(4)]
    # 0: count c0 | wave: lane [1: count c1, 2: fail, 3: count c1] lane [4: count c2] | 5: c3
    program = Program([(count, [c[0]]), (count, [c[1]]), (fail, []), (count, [c[1]]),
                       (count, [c[2]]), (count, [c[3]])], 0, [counts], waves=[(1, 4, 5)])
    for _ in range(20):
        counts[:] = 0
        assert program.run(0, 6) == 3           # 1 + the failed kernel's position
        assert counts.tolist() == [1, 1, 1, 0]  # its lane stopped, the other lane ran, not after
    counts[:] = 0
    st, times = profiling.run_timed(program, 0, 6)
    assert st == 3 and counts.tolist() == [1, 1, 1, 0]
    assert times[5].tolist() == [0, 0, 0] and times[3].tolist() == [0, 0, 0]


def test_waves_on_one_thread_run_in_order_on_the_caller(threads):
    threads(1)
    counts = np.zeros(1, np.int64)
    count = _kernel("count")
    program = Program([(count, [Slot(0, 0)])] * 4, 0, [counts], waves=[(0, 2, 4)])
    before = thread_pool.dispatched()
    st, times = profiling.run_timed(program, 0, 4)
    assert st == 0 and counts[0] == 4
    assert set(times[:, 2].tolist()) == {threading.get_native_id()}
    assert (np.diff(times[:, 0]) >= 0).all()
    assert thread_pool.dispatched() == before


def test_bad_waves_are_refused():
    count = _kernel("count")
    counts = np.zeros(1, np.int64)
    with pytest.raises(ValueError):
        Program([(count, [Slot(0, 0)])] * 2, 0, [counts], waves=[(0, 1, 3)])
    with pytest.raises(ValueError):
        Program([(count, [Slot(0, 0)])] * 2, 0, [counts], waves=[(1, 0, 2)])


class _Recorder:
    """A profiler stand-in (runtime/profiling.active) that takes each kernel's thread."""

    def __init__(self):
        self.tids = []

    def kernels(self, run, start, times, tids):
        self.tids.append([(start + i, t) for i, t in enumerate(tids) if times[i, 0]])

    def host(self, *a):
        pass

    def call(self, *a):
        pass


def test_profiled_calls_report_the_thread_of_each_kernel(threads):
    threads(2)
    fn, args = random_branches(5)
    f = jg.jit(fn)
    f(*args)
    assert f.lower(*args).memory_plan.waves
    rec = _Recorder()
    profiling.active.append(rec)
    try:
        seen = set()
        for _ in range(300):            # a worker that is slow to wake leaves both to the caller
            f(*args)
            seen |= {t for rows in rec.tids for _, t in rows}
            if len(seen) > 1:
                break
    finally:
        profiling.active.remove(rec)
    assert threading.get_native_id() in seen
    assert len(seen) == 2, seen


def test_loop_body_with_branches_agrees(threads):
    """A loop body with independent branches: its sub-program has waves, which the native loop
    runs in order (codegen/cpu/loops.py); the result is the one-thread result."""
    rng = np.random.default_rng(7)
    x, y = (rng.standard_normal((192, 64)).astype(np.float32) for _ in range(2))
    ws = (rng.standard_normal((4, 64, 64)) * 0.2).astype(np.float32)

    def fn(x, y, ws):
        def body(i, c):
            a, b = c
            for k in range(2):
                a = jnp.tanh(a @ ws[k])
                b = jnp.tanh(b @ ws[k + 2])
            return a, b
        return jg.fori_loop(0, 3, body, (x, y))

    threads(1)
    want = _arrays(jg.jit(fn)(x, y, ws))
    threads(2)
    f = jg.jit(fn)
    for _ in range(10):
        for g, w in zip(_arrays(f(x, y, ws)), want):
            np.testing.assert_array_equal(g, w)


class _PlainRecorder(_Recorder):
    """A profiler stand-in whose `kernels` takes no threads (as jg.profiler's Profile)."""

    def kernels(self, run, start, times):
        self.tids.append([(start + i, threading.get_native_id())
                          for i in range(len(times)) if times[i, 0]])
        self.spans = times.copy()


def test_profiled_calls_run_in_order_for_a_recorder_without_threads(threads):
    """A recorder that puts every kernel on the calling thread gets them run there, in order
    (its events stay true: no two overlap on one thread)."""
    threads(2)
    fn, args = random_branches(5)
    f = jg.jit(fn)
    want = _arrays(f(*args))
    rec = _PlainRecorder()
    before = thread_pool.dispatched()
    profiling.active.append(rec)
    try:
        for _ in range(5):
            for g, w in zip(_arrays(f(*args)), want):
                np.testing.assert_array_equal(g, w)
    finally:
        profiling.active.remove(rec)
    assert thread_pool.dispatched() == before
    ran = rec.spans[rec.spans[:, 0] != 0]
    assert (ran[1:, 0] >= ran[:-1, 1]).all()        # one after another


def test_chrome_trace_shows_the_branches_on_two_threads(threads, tmp_path):
    threads(2)
    fn, args = random_branches(5)
    f = jg.jit(fn)
    f(*args)
    for _ in range(300):                # a worker that is slow to wake leaves both to the caller
        with jg.profiler.profile() as prof:
            f(*args)
        kernels = [e for e in prof.chrome_trace()["traceEvents"] if e.get("cat") == "kernel"]
        if len({e["tid"] for e in kernels}) == 2:
            break
    assert {e["tid"] for e in kernels} >= {threading.get_native_id()}
    assert len({e["tid"] for e in kernels}) == 2
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(path)
    events = json.load(open(path))["traceEvents"]
    assert len({e["tid"] for e in events if e.get("cat") == "kernel"}) == 2


def test_the_python_fill_writes_what_the_compiled_one_does():
    """Where the object-layout check fails (runtime/sequencer._self_test), the addresses of a
    call's arrays are written by a Python loop: the same bases, the same run."""
    count = _kernel("count")
    counters = [np.zeros(1, np.int64) for _ in range(2)]
    program = Program([(count, [Slot(0, 0)]), (count, [Slot(1, 0)])], 2, [])
    assert program.call(*counters) == 0
    compiled = program.bases.copy()
    program._fill = program._call = None
    program.bases[:] = 0
    assert program.call(*counters) == 0
    assert (program.bases == compiled).all()
    assert [int(c[0]) for c in counters] == [2, 2]
