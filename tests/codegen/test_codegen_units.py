"""Kernels as compilation units and a sequencer that scales: identical kernels compile once,
the number of distinct units does not grow with depth, a 4,000-op chain goes through jit, grad
and the printer/parser without recursion, and a second process reuses units on disk for another
graph that shares kernels with the first."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import ir


def _resmlp(depth, seed=0):
    rng = np.random.default_rng(seed)
    ws = [rng.standard_normal((16, 16)).astype(np.float32) * 0.1 for _ in range(depth)]
    x = rng.standard_normal((8, 16)).astype(np.float32)

    def loss(ws, x):
        for w in ws:
            x = x + jnp.tanh(x @ w)
        return jnp.sum(x * x)
    return loss, ws, x


def _units(f, *args):
    f(*args)
    return f.lower(*args).compile().units       # the units the call ran


@pytest.mark.parametrize("depth", [4, 16, 120])
def test_distinct_units_do_not_grow_with_depth(depth):
    """The same units at every depth (fusion's bounded cycle search must not group deep layers
    differently from shallow ones)."""
    loss, ws, x = _resmlp(depth)
    step = jg.jit(jg.value_and_grad(loss))
    units = _units(step, ws, x)
    small = _units(jg.jit(jg.value_and_grad(_resmlp(3)[0])), *_resmlp(3)[1:])
    assert len(units) >= 3 * depth                      # three kernels per layer and more...
    assert {u.name for u in units} == {u.name for u in small}   # ...the same handful of units
    if depth > 16:        # 120 float32 layers amplify rounding (values ~400): structure only
        return
    got = step(ws, x)
    want = jg.value_and_grad(loss)(ws, x)
    np.testing.assert_allclose(np.asarray(got[0]), np.asarray(want[0]), rtol=2e-5)
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-4, atol=1e-5)


def _chain(n):
    def f(x):
        for _ in range(n):
            x = jnp.sin(x)
        return jnp.sum(x)
    return f


def test_long_op_chain_traces_differentiates_and_round_trips(monkeypatch):
    """No recursion proportional to the graph anywhere: tracing, autodiff, the passes (run by
    jit on the interpreter backend), the printer and the parser, at the default limit (a
    4,000-op chain's gradient is 12,000 nodes, 12 times the default limit of 1,000: a 10,000-op
    chain showed no more and took 52 s of the suite)."""
    assert sys.getrecursionlimit() <= 1000 * 10
    monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    f, x = _chain(4_000), np.linspace(0.1, 1, 8)
    g = jg.make_graph(jg.grad(f))(x)
    assert len(g.nodes) > 12_000
    text = str(g)
    assert str(ir.parse(text)) == text
    np.testing.assert_allclose(np.asarray(jg.jit(jg.grad(f))(x)), np.asarray(jg.grad(f)(x)),
                               rtol=1e-9)


def test_long_chain_compiles_into_a_few_units():
    f, x = _chain(1_000), np.linspace(0.1, 1, 8).astype(np.float32)
    step = jg.jit(jg.grad(f))
    units = _units(step, x)
    assert len(units) >= 1_000 * 3 // 64
    assert len({u.name for u in units}) <= 12
    np.testing.assert_allclose(np.asarray(step(x)), np.asarray(jg.grad(f)(x)), rtol=1e-4)


SCRIPT = textwrap.dedent("""
    import sys, numpy as np, jitgrad as jg, jitgrad.numpy as jnp
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    if sys.argv[1] == "first":
        f = lambda x: jnp.sum(jnp.tanh(x) * 2.0, axis=1)
    else:           # another graph: the same reduce kernel, and one of its own
        f = lambda x: (jnp.sum(jnp.tanh(x) * 2.0, axis=1), jnp.cumsum(x, axis=0))
    jg.jit(f)(x)
    print("ok")
""")


@pytest.mark.parametrize("kernels", ["llvm"])
def test_second_process_reuses_units_of_another_graph(tmp_path, kernels):
    """The reduce kernel both graphs share compiles in the first process and is loaded from disk
    in the second (LLVM object code)."""
    env = dict(os.environ, JITGRAD_CACHE_DIR=str(tmp_path), JITGRAD_DEBUG="1",
               JITGRAD_BACKEND="cpu")

    def run(which):
        p = subprocess.run([sys.executable, "-c", SCRIPT, which], env=env, capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr
        return [line for line in p.stderr.splitlines() if "kernel cache" in line]
    first = run("first")
    assert len(first) == 1 and f"{kernels} compiled" in first[0], first
    shared = first[0].split(": ")[1].split(" ")[0]
    assert shared.startswith("jg_llvm_")
    second = run("second")
    hit = [line for line in second if shared in line]
    assert hit and "llvm hit" in hit[0], second
    assert any(f"{kernels} compiled" in line for line in second), second    # its cumsum: new


@pytest.mark.parametrize("source", ["scipy.libs", "numpy.libs", "cython_blas"])
def test_llvm_matmul_blas_from_a_wheel_or_cython_blas(monkeypatch, source):
    """LLVM matmul units call the OpenBLAS bundled with scipy (32-bit integers) or NumPy (64-bit)
    or, without either, scipy's cython_blas: the unit's IR differs, the results do not."""
    from jitgrad.codegen.cpu import units as cpu_units, llvm_jit
    # a machine with only one of the wheels (or neither), simulated on the public search table
    monkeypatch.setattr(llvm_jit, "BUNDLED_BLAS",
                        tuple(b for b in llvm_jit.BUNDLED_BLAS if b[0] == source))
    cpu_units.forget()          # the units and the BLAS found so far (llvm_jit.forget)
    rng = np.random.default_rng(0)
    # large enough for BLAS (llvm_small_gemm takes products whose swept operand fits 2 MB)
    a, b = rng.standard_normal((2, 400, 400)), rng.standard_normal((400, 3)).astype(np.float64)
    f = jg.jit(lambda a, b: jnp.tanh(a @ b) + 1.0)
    np.testing.assert_allclose(np.asarray(f(a, b)), np.tanh(a @ b) + 1.0, rtol=1e-10, atol=1e-10)
    (unit,) = f.lower(a, b).compile().units
    bits = 64 if source == "numpy.libs" and llvm_jit._bundled_blas("dgemm") else 32
    assert f"@jg_dgemm{bits}" in unit.source.replace('"', "")
    cpu_units.forget()
