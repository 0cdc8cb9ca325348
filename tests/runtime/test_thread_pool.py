"""The runtime's thread pool (runtime/thread_pool.py) and the LLVM units that run on it
(codegen/cpu/llvm_kernels.parallel_form): kernels above the parallel threshold give NumPy's values
and the same bits on any number of threads, from several user threads at once; one thread runs
everything on the calling thread; the size comes from the affinity mask, JITGRAD_NUM_THREADS or
jg.config.update("num_threads", n)."""
from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn.functional as F
import jitgrad.numpy as jnp
from jitgrad.codegen.cpu import units as cpu_units
from jitgrad.runtime import thread_pool

RNG = np.random.default_rng(0)
X = RNG.standard_normal((1024, 600)).astype(np.float32)     # 2**19+ element-costs with a few ops
V = RNG.standard_normal((1 << 20) + 3).astype(np.float32)   # a full sum in runs of SUM_BLOCK
I = RNG.integers(-1000, 1000, 1 << 20).astype(np.int32)
W = RNG.standard_normal((600, 256)).astype(np.float32)
XN = X.copy()
XN[::7, ::13] = np.nan


def _softmax(a):
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _gelu(a):
    import scipy.special
    return 0.5 * a * (1 + scipy.special.erf(a / np.sqrt(2)))


# name: (function, NumPy reference, its inputs, rtol)
CASES = {
    "elementwise": (lambda a: jnp.tanh(a) * 2.0 + jnp.sin(a), lambda a: np.tanh(a) * 2 + np.sin(a),
                    (X,), 1e-5),
    "row sums": (lambda a: jnp.sum(jnp.exp(a), axis=1), lambda a: np.exp(a).sum(1), (X,), 1e-5),
    "column sums and argmax": (lambda a: (jnp.sum(a * a, axis=0), jnp.argmax(a, axis=0)),
                               lambda a: ((a * a).sum(0), np.argmax(a, axis=0)), (X,), 1e-5),
    "sums over the middle axis": (lambda a: jnp.sum(jnp.exp(a.reshape(64, 16, 600)), axis=1),
                                  lambda a: np.exp(a.reshape(64, 16, 600)).sum(1), (X,), 1e-5),
    "sums over the last axis of 3-d": (lambda a: jnp.sum(a.reshape(64, 600, 16) * 2.0, axis=2),
                                       lambda a: (a.reshape(64, 600, 16) * 2).sum(2), (X,), 1e-5),
    "full sum 1-d": (lambda a: jnp.sum(a * a), lambda a: np.sum(a.astype(np.float64) ** 2), (V,), 1e-5),
    "full sum 2-d": (lambda a: jnp.sum(jnp.abs(a)), lambda a: np.abs(a.astype(np.float64)).sum(),
                     (X,), 1e-5),
    "max and argmax": (lambda a: (jnp.max(a * 2.0), jnp.argmax(a * 2.0)),
                       lambda a: (np.max(a * 2), np.argmax(a * 2)), (V,), 0),
    "int sum": (lambda a: jnp.sum(a * 3), lambda a: np.sum(a.astype(np.int64) * 3), (I,), 0),
    "softmax": (lambda a: F.softmax(a, axis=-1), _softmax, (X,), 1e-5),
    "row max and min with NaN": (lambda a: (jnp.max(a * 2.0, axis=1), jnp.min(a * 2.0, axis=1)),
                                 lambda a: (np.max(a * 2, axis=1), np.min(a * 2, axis=1)),
                                 (XN,), 0),
    "matmul and its epilogue": (lambda a, w: F.gelu(a @ w, approximate="none") + 1.0,
                                lambda a, w: _gelu(a @ w) + 1, (X, W), 1e-4),
}


@pytest.fixture(autouse=True)
def two_threads():
    before = thread_pool.num_threads()
    jg.config.update("num_threads", 2)
    cpu_units.forget()
    yield
    jg.config.update("num_threads", before)


def _values(out):
    return [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("name", CASES)
def test_parallel_kernels_give_numpys_values_on_the_pool(name):
    f, ref, args, rtol = CASES[name]
    jf = jg.jit(f)
    start = thread_pool.dispatched()
    got = _values(jf(*args))
    assert thread_pool.dispatched() > start, "the kernel did not go to the pool"
    units = jf.lower(*args).compile().units
    assert all(u.target == "cpu-llvm" for u in units), units
    for g, w in zip(got, _values(ref(*args))):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-4 if rtol else 0)


@pytest.mark.parametrize("name", CASES)
def test_the_same_bits_on_one_two_and_three_threads(name):
    f, _, args, _ = CASES[name]
    results = []
    for n in (1, 2, 3):
        jg.config.update("num_threads", n)
        start = thread_pool.dispatched()
        results.append(_values(jg.jit(f)(*args)))
        assert (thread_pool.dispatched() > start) == (n > 1)
    for other in results[1:]:
        for a, b in zip(results[0], other):
            np.testing.assert_array_equal(a, b)


def test_four_user_threads_calling_at_once_finish_and_agree():
    f = jg.jit(lambda a, b: (jnp.sum(a * b), F.softmax(a * b, axis=-1), jnp.tanh(a) + b))
    ys = [RNG.standard_normal(X.shape).astype(np.float32) for _ in range(4)]
    want = [_values(f(X, y)) for y in ys]
    errors, got = [], {}

    def work(k):
        try:
            for _ in range(5):
                got.setdefault(k, []).append(_values(f(X, ys[k])))
        except Exception as e:      # noqa: BLE001 - reported below with its thread
            errors.append((k, e))
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a user thread never finished"
    assert errors == []
    for k in range(4):
        for run in got[k]:
            for a, b in zip(run, want[k]):
                np.testing.assert_array_equal(a, b)


def test_num_threads_1_from_the_environment_starts_no_worker():
    code = """
import os, numpy as np, jitgrad as jg, jitgrad.numpy as jnp
from jitgrad.runtime import thread_pool
before = len(os.listdir('/proc/self/task'))
x = np.ones((1024, 1024), np.float32)
out = float(jg.jit(lambda a: jnp.sum(jnp.exp(a)))(x))
assert abs(out - np.e * 2**20) < 1e-3 * out, out
print(thread_pool.num_threads(), thread_pool.dispatched(),
      len(os.listdir('/proc/self/task')) - before)
"""
    env = dict(os.environ, JITGRAD_NUM_THREADS="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd="/", timeout=300)
    assert res.returncode == 0, res.stderr
    # one thread, no job handed to a worker; no native worker among the process's threads
    # (numba's or OpenBLAS's own threads would count: none start for this function)
    assert res.stdout.split() == ["1", "0", "0"], res.stdout


def test_default_size_is_the_affinity_mask(monkeypatch):
    jg.config.update("num_threads", 2)
    monkeypatch.delenv("JITGRAD_NUM_THREADS", raising=False)
    thread_pool.use_default_size()
    assert thread_pool.num_threads() == len(os.sched_getaffinity(0))
    monkeypatch.setenv("JITGRAD_NUM_THREADS", "3")
    assert thread_pool.num_threads() == 3 == jg.config.read("num_threads")


@pytest.mark.parametrize("bad", [0, -2, 1.5, "two", None, True])
def test_a_bad_size_names_what_was_expected(bad):
    with pytest.raises(ValueError, match=r"whole number of threads >= 1, got"):
        jg.config.update("num_threads", bad)


def test_a_bad_environment_size_names_the_variable(monkeypatch):
    monkeypatch.setenv("JITGRAD_NUM_THREADS", "many")
    thread_pool.set_num_threads(2)
    with pytest.raises(ValueError, match="JITGRAD_NUM_THREADS expects a whole number"):
        thread_pool.use_default_size()


def test_a_gpt_like_training_step_compiles_without_numba():
    """layernorm, matmul + exact gelu (erf), causal softmax attention and their gradients, at
    sizes whose kernels run on the pool: every kernel is an LLVM unit, numba never loads."""
    code = """
import sys, numpy as np, jitgrad as jg, jitgrad.numpy as jnp
import jitgrad.nn.functional as F
from jitgrad.runtime import thread_pool
rng = np.random.default_rng(0)
B, T, D = 8, 64, 128
x = rng.standard_normal((B, T, D)).astype(np.float32)
w = {k: (rng.standard_normal(s) * 0.05).astype(np.float32) for k, s in
     [("qkv", (D, 3 * D)), ("fc", (D, 4 * D)), ("out", (4 * D, D))]}
mask = np.tril(np.ones((T, T), bool))

def loss(w, x):
    h = F.layer_norm(x, (D,))
    q, k, v = jnp.split(h @ w["qkv"], 3, axis=-1)
    att = F.softmax(jnp.where(mask, q @ k.transpose(0, 2, 1) / np.sqrt(D), -jnp.inf), axis=-1)
    x = x + att @ v
    return jnp.mean((F.gelu(F.layer_norm(x, (D,)) @ w["fc"]) @ w["out"]) ** 2)

step = jg.jit(jg.value_and_grad(loss))
before = thread_pool.dispatched()
value, grads = step(w, x)
assert np.isfinite(float(value)) and all(np.isfinite(np.asarray(g)).all() for g in grads.values())
units = step.lower(w, x).compile().units
print("numba" in sys.modules, thread_pool.dispatched() > before,
      all(u.target == "cpu-llvm" for u in units))
"""
    res = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, JITGRAD_NUM_THREADS="2"),
                         capture_output=True, text=True, cwd="/", timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["False", "True", "True"], res.stdout


def test_a_forked_child_runs_parallel_kernels():
    """The child has none of the parent's workers: the pool starts afresh there
    (os.register_at_fork), and a kernel compiled in the parent runs right in the child."""
    code = """
import os, numpy as np, jitgrad as jg, jitgrad.numpy as jnp
from jitgrad.runtime import thread_pool
x = np.arange(1 << 20, dtype=np.float32) / (1 << 20)
f = jg.jit(lambda a: jnp.sum(jnp.exp(a)))
want = float(f(x))
pid = os.fork()
if pid == 0:
    before = thread_pool.dispatched()
    ok = float(f(x)) == want and thread_pool.dispatched() > before
    os._exit(0 if ok else 1)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status), float(f(x)) == want)
"""
    res = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, JITGRAD_NUM_THREADS="2"),
                         capture_output=True, text=True, cwd="/", timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["0", "True"], res.stdout
