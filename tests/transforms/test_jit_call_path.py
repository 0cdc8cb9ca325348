"""The jitted call's fast path (transforms/jit.py, runtime/executable.py's fast_runner,
runtime/sequencer.py's builtin call and table lock): results that users hold are never written
again, dropped ones are reused, a call while the tables are held runs on private ones (or waits,
for programs with loops), and a change of the float mode is seen by the next call."""
import threading
import time

import numpy as np
import pytest

import jitgrad as jg
from jitgrad.ir import config


def _entry(f):
    (entry,) = f._cache.values()
    return entry


def affine(x):
    return x * 2 + 1


BACKENDS = pytest.mark.parametrize("backend", [
    "compiled", pytest.param("interpreter", marks=pytest.mark.interpreter)])


@BACKENDS
def test_results_held_are_never_overwritten(backend):
    f = jg.jit(affine)
    xs = [np.full(5, float(i), np.float32) for i in range(6)]
    held = [f(jg.tensor(x)) for x in xs]              # all alive at once
    view = held[0][1:]                                # a view keeps its base alive
    arr = np.asarray(f(jg.tensor(xs[1])))             # so does the bare array
    for _ in range(4):
        f(jg.tensor(xs[5]))
    for x, y in zip(xs, held):
        np.testing.assert_array_equal(np.asarray(y), x * 2 + 1)
    np.testing.assert_array_equal(np.asarray(view), xs[0][1:] * 2 + 1)
    np.testing.assert_array_equal(arr, xs[1] * 2 + 1)


def test_a_loop_carrying_its_result_allocates_nothing_and_stays_right():
    f = jg.jit(affine)
    y = jg.tensor(np.zeros(4, np.float32))
    want = np.zeros(4, np.float32)
    addresses = set()
    for _ in range(6):
        y = f(y)                          # the previous result is alive while f runs
        want = want * 2 + 1
        addresses.add(np.asarray(y).ctypes.data)
    np.testing.assert_array_equal(np.asarray(y), want)
    assert len(addresses) <= 3            # the first result, then the two spares in turn


def test_a_call_while_the_tables_are_held_runs_on_private_ones():
    f = jg.jit(affine)
    x = np.arange(4, dtype=np.float32)
    f(x)
    with f.lower(x).compile().occupied():             # as if another thread were in a call
        y = f(jg.tensor(x))                           # the fast path
        z = f(x=jg.tensor(x))                         # the full path
    np.testing.assert_array_equal(np.asarray(y), x * 2 + 1)
    np.testing.assert_array_equal(np.asarray(z), x * 2 + 1)


def test_a_program_with_loops_waits_for_held_tables():
    f = jg.jit(lambda x: jg.fori_loop(0, 3, lambda i, c: c * 2 + 1, x))
    x = jg.tensor(np.ones(4, np.float32))
    f(x)
    lock = _entry(f).exe.run.occupied()
    results = []
    assert lock.acquire()
    t = threading.Thread(target=lambda: results.append(f(x)))
    t.start()
    time.sleep(0.05)
    waited = t.is_alive() and not results
    lock.release()
    t.join()
    assert waited
    np.testing.assert_array_equal(np.asarray(results[0]), np.full(4, 15, np.float32))


def test_threads_calling_one_function_get_their_own_results():
    f = jg.jit(affine)
    f(np.zeros(64, np.float32))
    errors = []

    def worker(k):
        x = np.full(64, float(k), np.float32)
        for _ in range(200):
            y = np.asarray(f(jg.tensor(x)))
            if not (y == 2 * k + 1).all():
                errors.append((k, y))

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []


def test_the_table_lock_acquires_and_releases_as_threading_lock():
    f = jg.jit(affine)
    f(np.zeros(3, np.float32))
    lock = _entry(f).exe.run.occupied()
    assert not lock.locked()
    assert lock.acquire(False) and lock.locked()
    assert not lock.acquire(False)
    lock.release()
    with lock:
        assert lock.locked()
    assert not lock.locked()


@BACKENDS
def test_a_float_mode_change_reaches_the_fast_path(backend):
    f = jg.jit(lambda x: x + 0.5)
    x = jg.tensor(np.arange(3, dtype=np.int32))
    assert f(x).dtype == np.float32 and f(x).dtype == np.float32
    try:
        config.update("enable_x64", True)
        assert f(x).dtype == np.float64 and f(x).dtype == np.float64
    finally:
        config.reset("enable_x64")
    assert f(x).dtype == np.float32 and f.trace_count == 2


def test_a_failed_bounds_check_on_the_fast_path_leaves_the_tables_free():
    f = jg.jit(lambda x, i: x[i])
    x = jg.tensor(np.arange(4, dtype=np.float32))
    i = jg.tensor(np.array([1], np.int32))
    bad = jg.tensor(np.array([7], np.int32))
    assert float(f(x, i)[0]) == 1.0
    for _ in range(2):
        with pytest.raises(IndexError, match="7"):
            f(x, bad)
    assert not _entry(f).exe.run.occupied().locked()
    assert float(f(x, i)[0]) == 1.0


@pytest.mark.parametrize("make", [
    lambda a, b: {"sum": a + b, "diff": a - b},
    lambda a, b: (a + b, a - b),
    lambda a, b: [a + b, a - b],
    lambda a, b: {"z": [a + b], "a": (a - b, {"p": a * b})},
    lambda a, b: {"only": a + b},
])
def test_fast_path_results_keep_their_structure(make):
    f = jg.jit(make)
    a = np.arange(3, dtype=np.float32)
    b = np.ones(3, np.float32)
    want = jg.tree_util.tree_map(np.asarray, make(jg.tensor(a), jg.tensor(b)))
    for _ in range(3):                            # the first call, then the fast path
        got = f(jg.tensor(a), b)
        assert jg.tree_util.tree_structure(got) == jg.tree_util.tree_structure(want)
        for g, w in zip(jg.tree_util.tree_leaves(got), jg.tree_util.tree_leaves(want)):
            np.testing.assert_array_equal(np.asarray(g), w)
    assert len(f._fast) == 1


def test_without_the_builtin_call_the_python_path_runs(monkeypatch):
    """Where CPython's C API is out of reach (or there is no GIL), a Program fills and runs from
    Python under a threading.Lock: the same results, the same lock protocol."""
    from jitgrad.runtime import native_builtin
    # a Python without the C API or without a GIL, simulated: what api_addresses() reports there
    monkeypatch.setattr(native_builtin, "api_addresses", lambda: None)
    f = jg.jit(affine)
    x = np.arange(5, dtype=np.float32)
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(f(jg.tensor(x))), x * 2 + 1)
    program = _entry(f).exe.run.program
    assert program.native_call() is None and isinstance(program.lock, type(threading.Lock()))
    with program.lock:
        assert program.call(x, x, x) == -1            # held: nothing ran
        np.testing.assert_array_equal(np.asarray(f(jg.tensor(x))), x * 2 + 1)
