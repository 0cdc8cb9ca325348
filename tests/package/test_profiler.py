"""jg.profiler: kernels by source line and call count, the Chrome trace, and no work when off."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.eager.dispatch import EAGER_BACKENDS
from jitgrad.runtime import profiling
from jitgrad.runtime.sequencer import Program

HERE = os.path.basename(__file__)


def _lines(fn, *markers):
    """The 'test_profiler.py:N' of the lines of fn's source holding each marker."""
    import inspect
    src, first = inspect.getsourcelines(fn)
    return [f"{HERE}:{first + next(i for i, s in enumerate(src) if m in s)}" for m in markers]


def mlp(w, x):
    h = jnp.tanh(x @ w)                     # MATMUL_LINE
    return jnp.sum(h * h, axis=1)           # SUM_LINE


def _args():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((16, 8)).astype(np.float32),
            rng.standard_normal((4, 16)).astype(np.float32))


def _reference(w, x):
    h = np.tanh(x @ w)
    return (h * h).sum(axis=1)


def test_jitted_kernels_appear_with_source_lines_and_call_counts():
    f = jg.jit(mlp)
    w, x = _args()
    n_kernels = len(f.lower(w, x).schedule)
    f(w, x)                                   # compiled before the profile
    with jg.profiler.profile() as prof:
        for _ in range(3):
            out = f(w, x)
    np.testing.assert_allclose(np.asarray(out), _reference(w, x), rtol=1e-5)
    rows = prof.key_averages()
    matmul_line, sum_line = _lines(mlp, "MATMUL_LINE", "SUM_LINE")
    assert sum(r.calls for r in rows) == 3 * n_kernels
    assert all(r.calls == 3 for r in rows)
    matmul = [r for r in rows if r.kind == "matmul"]
    assert matmul and matmul[0].source.startswith(matmul_line)
    assert matmul[0].flops >= 2 * 4 * 8 * 16          # 2*M*N*K, plus any fused epilogue
    assert matmul[0].shapes == "[4,16]x[16,8]" and matmul[0].name.startswith("matmul")
    assert matmul[0].bytes == 4 * (4 * 16 + 16 * 8 + 4 * 8)
    reduce = [r for r in rows if r.kind == "reduce"]
    assert reduce and reduce[0].source == sum_line and reduce[0].name == "reduce_sum"
    assert all(r.total_ms >= 0 and r.bytes > 0 for r in rows)
    text = prof.table(sort_by="total", row_limit=5)
    assert matmul_line in text and "matmul" in text and "Calls" in text
    assert len([ln for ln in text.splitlines() if HERE in ln]) <= 5
    # torch's spelling: key_averages().table(sort_by="self_cpu_time_total")
    assert prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=5) == text
    by_calls = prof.table(sort_by="calls", row_limit=-1)
    assert len([ln for ln in by_calls.splitlines() if HERE in ln]) == len(rows)


def test_chrome_trace_has_one_event_per_kernel_call(tmp_path):
    f = jg.jit(mlp)
    w, x = _args()
    n_kernels = len(f.lower(w, x).schedule)
    with jg.profiler.profile() as prof:
        for _ in range(4):
            f(w, x)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    for e in complete:
        assert {"name", "cat", "ts", "dur", "pid", "tid"} <= set(e)
        assert isinstance(e["ts"], (int, float)) and e["dur"] >= 0
    kernels = [e for e in complete if e["cat"] == "kernel"]
    assert len(kernels) == 4 * n_kernels
    assert len([e for e in complete if e["cat"] == "call"]) == 4
    assert len([e for e in complete if e["cat"] == "compile"]) == 1      # the first call
    tids = {e["tid"] for e in complete}
    named = {e["tid"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert tids <= named
    # every kernel lies inside a call on its thread
    calls = [e for e in complete if e["cat"] == "call"]
    for k in kernels:
        assert any(c["tid"] == k["tid"] and c["ts"] <= k["ts"] + 1e-3 and
                   k["ts"] + k["dur"] <= c["ts"] + c["dur"] + 1e-3 for c in calls)


def test_profiling_off_runs_one_native_call_and_no_timed_path(monkeypatch):
    """Structural: with no profile open a call is one Program.call (or its native_call) over
    the whole schedule and never reaches the timed runner; with one open, the timed runner runs
    each stretch."""
    counts = {"call": 0, "run": 0, "timed": 0}
    plain_call, plain_run, timed = Program.call, Program.run, profiling.run_timed

    def count(name, fn):
        def wrapped(*a, **k):
            counts[name] += 1
            return fn(*a, **k)
        return wrapped
    # counting calls is the subject: the Program methods and the timed runner, all public
    monkeypatch.setattr(Program, "call", count("call", plain_call))
    plain_native = Program.native_call      # the jitted call's fast path: the same, native
    monkeypatch.setattr(Program, "native_call", lambda self: count("call", plain_native(self)))
    monkeypatch.setattr(Program, "run", count("run", plain_run))
    monkeypatch.setattr(profiling, "run_timed", count("timed", timed))
    f = jg.jit(mlp)
    w, x = _args()
    f(w, x)
    counts.update(call=0, run=0, timed=0)
    for _ in range(5):
        out = f(w, x)
    assert counts == {"call": 5, "run": 0, "timed": 0}
    assert profiling.active == []
    with jg.profiler.profile():
        out2 = f(w, x)
    assert counts["timed"] == 6 - 5 and counts["call"] == 5
    np.testing.assert_array_equal(np.asarray(out), np.asarray(out2))
    assert profiling.active == []


def test_eager_ops_recorded_and_backends_restored():
    plain = dict(EAGER_BACKENDS)
    x = jnp.asarray(np.linspace(-1, 1, 6, dtype=np.float32))
    with jg.profiler.profile() as prof:
        y = jnp.exp(x) + 1.0                 # EAGER_LINE
    np.testing.assert_allclose(np.asarray(y), np.exp(np.linspace(-1, 1, 6)) + 1, rtol=1e-6)
    assert EAGER_BACKENDS == plain
    rows = {r.name: r for r in prof.key_averages()}
    assert rows["exp"].kind == "eager" and rows["exp"].calls == 1
    line = _lines(test_eager_ops_recorded_and_backends_restored, "EAGER_LINE")[0]
    assert rows["exp"].source == line and rows["add"].source == line


def test_grad_and_vmap_outside_jit_are_interpreted_rows(tmp_path):
    """Outside jit, grad and vmap run their graph through the reference interpreter: each node
    is a row (kind "interpreted", the user's line) and each run a call in the trace; the
    gradient of a jitted function runs compiled (its kernels are rows)."""
    w, x = _args()
    loss = lambda w, x: jnp.sum(mlp(w, x))
    with jg.profiler.profile() as prof:
        g = jg.grad(loss)(w, x)
        g2 = jg.grad(jg.jit(loss))(w, x)
        v = jg.vmap(lambda r: jnp.sum(r * r))(x)
    h = np.tanh(x @ w)
    want = x.T @ (2 * h * (1 - h * h))
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(g2), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(v), (x * x).sum(axis=1), rtol=1e-6)
    rows = [r for r in prof.key_averages() if r.kind == "interpreted"]
    matmul_line, sum_line = _lines(mlp, "MATMUL_LINE", "SUM_LINE")
    by_name = {(r.name, r.source): r for r in rows}
    assert by_name["tanh", matmul_line].calls == 1
    assert any(r.kind == "matmul" and r.source.startswith(matmul_line)
               for r in prof.key_averages())                 # grad(jit(loss)): compiled
    assert by_name["matmul", matmul_line].flops == 2 * 4 * 16 * 8
    assert any(r.source == sum_line for r in rows)
    assert all(r.mean_us > 0 for r in rows)
    prof.export_chrome_trace(tmp_path / "t.json")
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    assert sum(e.get("cat") == "call" for e in events) == 3
    assert sum(e.get("cat") == "interpreted" for e in events) == sum(r.calls for r in rows)


def test_host_steps_are_events():
    @jg.jit
    def noisy(x):       # the FFT runs on the host (random draws are kernels now)
        return x + jnp.real(jnp.fft.fft(x))
    x = np.arange(3, dtype=np.float32)
    with jg.profiler.profile() as prof:
        out = noisy(x)
    host = [r for r in prof.key_averages() if r.kind == "host"]
    assert host and host[0].calls == 1 and "fft" in host[0].name
    np.testing.assert_allclose(np.asarray(out), x + np.fft.fft(x).real, rtol=1e-6, atol=1e-6)


def test_failed_kernel_raises_the_same_error_while_profiling():
    f = jg.jit(lambda x, i: jnp.take(x, i))
    x, bad = np.arange(4, dtype=np.float32), np.array([1, 9])
    with pytest.raises(IndexError) as plain:
        f(x, bad)
    with jg.profiler.profile():
        with pytest.raises(IndexError) as profiled:
            f(x, bad)
    assert str(plain.value) == str(profiled.value)
    np.testing.assert_array_equal(np.asarray(f(x, np.array([3, 0]))), [3.0, 0.0])


def test_table_errors_and_nesting():
    prof = jg.profiler.profile()
    with pytest.raises(ValueError, match="sort_by='speed'.*total, mean, calls"):
        prof.table(sort_by="speed")
    f = jg.jit(mlp)
    w, x = _args()
    f(w, x)
    with jg.profiler.profile() as outer:
        with jg.profiler.profile() as inner:
            f(w, x)
        f(w, x)
    calls = lambda p: len([e for e in p.events if e.cat == "call"])     # noqa: E731
    assert (calls(inner), calls(outer)) == (1, 2)


def test_jitgrad_profile_env_writes_trace_at_exit(tmp_path):
    path = tmp_path / "whole.json"
    script = ("import numpy as np, jitgrad as jg, jitgrad.numpy as jnp\n"
              "f = jg.jit(lambda x: jnp.tanh(x) * 2)\n"
              "for _ in range(3): f(np.ones(5, np.float32))\n")
    env = {**os.environ, "JITGRAD_PROFILE": str(path)}
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    events = json.loads(path.read_text())["traceEvents"]
    assert len([e for e in events if e.get("cat") == "call"]) == 3
    assert len([e for e in events if e.get("cat") == "compile"]) == 1
    assert "profile written to" in proc.stderr and "Calls" in proc.stderr


def test_calls_from_several_threads_are_recorded_on_their_own_tracks():
    import threading
    f = jg.jit(mlp)
    w, x = _args()
    n_kernels = len(f.lower(w, x).schedule)
    f(w, x)
    results, barrier = [], threading.Barrier(3)

    def worker():
        barrier.wait()
        for _ in range(5):
            results.append(np.asarray(f(w, x)))
    threads = [threading.Thread(target=worker) for _ in range(3)]
    with jg.profiler.profile() as prof:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for r in results:
        np.testing.assert_allclose(r, _reference(w, x), rtol=1e-5)
    trace = prof.chrome_trace()["traceEvents"]
    calls = [e for e in trace if e.get("cat") == "call"]
    kernels = [e for e in trace if e.get("cat") == "kernel"]
    assert len(calls) == 15 and len(kernels) == 15 * n_kernels
    assert len({e["tid"] for e in calls}) == 3
    assert {e["tid"] for e in kernels} == {e["tid"] for e in calls}
