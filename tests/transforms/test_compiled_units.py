"""The public view of what was compiled: `jg.jit(f).lower(*args).compile().units`
(jitgrad/transforms/compiled_units.py): one read-only record per step of the schedule, with its
canonical name, kind, target, ops, shapes and generated source, for plain functions, a grad step,
loops, host steps, the interpreter, both CPU unit generators and the CUDA simulator."""
import os
import subprocess
import sys

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.transforms.compiled_units import CompiledUnit, CompiledUnits

X = np.linspace(-1, 1, 8 * 16, dtype=np.float32).reshape(8, 16)
W = np.full((16, 4), 0.1, np.float32)


def mlp(x, w):
    h = jnp.tanh(x @ w + 1.0)
    return jnp.sum(h * h, axis=-1)


def test_a_small_function_lists_its_units():
    f = jg.jit(mlp)
    f(X, W)
    units = f.lower(X, W).compile().units
    assert isinstance(units, CompiledUnits) and all(isinstance(u, CompiledUnit) for u in units)
    assert [u.kind for u in units] == ["matmul", "reduce"]        # epilogue fused into the GEMM
    assert [u.target for u in units] == ["cpu-llvm", "cpu-llvm"]
    assert all(u.name.startswith("jg_llvm_") and len(u.name) == 8 + 24 for u in units)
    assert units[0].ops == ("matmul", "add", "tanh", "mul") and units[1].ops == ("reduce_sum",)
    assert units[0].shapes == "[8,16]x[16,4]" and units[1].shapes == "[8,4]"
    assert units[0].where.startswith("test_compiled_units.py:")
    for u in units:         # LLVM IR of a function named by the unit, its kernel as a comment
        assert f'define i64 @"{u.name}"' in u.source and f"; {u.kind} kernel" in u.source
        assert u.files and not u.units
        assert u.name in u.assembly()                      # its machine code, named alike


def test_records_are_read_only_and_print_as_a_table():
    units = jg.jit(mlp).lower(X, W).compile().units
    with pytest.raises(AttributeError):
        units[0].name = "other"
    table = repr(units).splitlines()
    assert table[0].split() == ["#", "name", "kind", "target", "ops", "shapes", "where"]
    assert len(table) == 3 and table[1].split()[:4] == ["0", units[0].name, "matmul", "cpu-llvm"]
    assert "matmul+add+tanh+mul" in table[1] and "kind='reduce'" in repr(units[1])


def test_after_a_call_lower_gives_the_calls_executable():
    """No retrace and no compile: the units the calls run, which the profiler names alike."""
    f = jg.jit(mlp)
    f(X, W)
    with jg.profiler.profile() as prof:
        f(X, W)
        units = f.lower(X, W).compile().units
    assert f.trace_count == 1 and not [e for e in prof.events if e.cat == "compile"]
    assert [e.name for e in prof.events if e.cat == "kernel"] == [u.label for u in units]
    fresh = jg.jit(mlp).lower(X, W).compile().units      # never called: compiled here
    assert [u.name for u in fresh] == [u.name for u in units]   # identical kernels, one unit


def test_a_grad_step():
    def loss(w, x):
        return jnp.mean(mlp(x, w))
    step = jg.jit(jg.value_and_grad(loss))
    value, grad = step(W, X)
    units = step.lower(W, X).compile().units
    assert [u.kind for u in units].count("matmul") == 2      # forward GEMM, weight gradient
    assert all(u.target == "cpu-llvm" and u.source.strip() for u in units)
    (dw,) = [u for u in units if u.kind == "matmul" and "transpose" in u.ops]   # x.T @ dh
    assert dw.shapes == "[8,16]x[8,4]"
    np.testing.assert_allclose(float(value), float(loss(jnp.asarray(W), jnp.asarray(X))),
                               rtol=1e-6)


def test_a_scan_is_one_loop_unit_over_its_bodys_units():
    def f(h, xs):
        return jg.scan(lambda h, x: (jnp.tanh(h * x + 0.5), h), h, xs)
    h, xs = np.ones(16, np.float32), np.full((5, 16), 0.5, np.float32)
    units = jg.jit(f).lower(h, xs).compile().units
    (loop,) = [u for u in units if u.kind == "loop"]
    assert loop.name == "jg_loop" and loop.ops == ("scan",) and loop.target == "cpu-llvm"
    assert loop.units and all(u.target == "cpu-llvm" for u in loop.units)
    assert [u.kind for u in loop.units] == ["elementwise"]
    assert loop.units[0].source in loop.source and "jg_loop over 1 compiled sub-graph" in loop.source
    assert set(loop.units[0].files) <= set(loop.files)
    rows = repr(units).splitlines()
    assert any(r.startswith("0.0") and loop.units[0].name in r for r in rows)


def test_a_cond_is_a_branch_unit():
    f = jg.jit(lambda p, x: jg.cond(p, lambda x: jnp.exp(x), lambda x: x * 2.0, x))
    units = f.lower(np.bool_(True), X).compile().units
    (branch,) = [u for u in units if u.kind == "branch"]
    assert branch.name == "jg_branch" and len(branch.units) == 2


def test_host_steps_have_no_source():
    def f(x):       # the FFT runs on the host (random draws are kernels now)
        return jnp.exp(x) * 2 + jnp.real(jnp.fft.fft(x))
    units = jg.jit(f).lower(np.ones((3, 4), np.float32)).compile().units
    host = [u for u in units if u.target == "host"]
    assert len(host) == 1 and host[0].source is None and host[0].assembly() is None
    assert "fft" in host[0].ops[0] and any(u.target == "cpu-llvm" for u in units)


def test_the_reference_interpreter_runs_everything_on_the_host(monkeypatch):
    monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    units = jg.jit(mlp).lower(X, W).compile().units
    assert [u.target for u in units] == ["host", "host"] and [u.kind for u in units] == [
        "matmul", "reduce"]
    assert all(u.source is None for u in units)


def test_occupied_makes_a_call_take_private_tables():
    def f(key, x):
        return jnp.exp(x) * 2 + jg.random.normal(key, (3, 4))
    key, x = np.asarray(jg.random.key(0)), np.arange(12, dtype=np.float32).reshape(3, 4)
    g = jg.jit(f)
    want = np.asarray(g(key, x))
    with g.lower(key, x).compile().occupied():
        np.testing.assert_array_equal(np.asarray(g(key, x)), want)
    loop = jg.jit(lambda c, xs: jg.scan(lambda c, x: (c + x, c), c, xs)[0])
    with pytest.raises(RuntimeError, match="wait for each other"):
        loop.lower(np.zeros(3), np.ones((4, 3))).compile().occupied()


_CUDA_CHILD = r"""
import numpy as np, jitgrad as jg, jitgrad.numpy as jnp
x = jg.tensor(np.linspace(-1, 1, 64, dtype=np.float32).reshape(4, 16), device="cuda")
f = jg.jit(lambda a: jnp.sum(jnp.tanh(a * 2.0 + 1.0), axis=-1))
f(x)
(u,) = f.lower(x).compile().units
assert (u.kind, u.target, u.ops) == ("reduce", "cuda", ("mul", "add", "tanh", "reduce_sum")), u
assert u.name.startswith("k_") and f"def {u.name}(" in u.source and "cuda." in u.source
s = jg.jit(lambda h, xs: jg.scan(lambda h, x: (jnp.tanh(h * x + 0.5), h), h, xs))
h, xs = (jg.tensor(np.ones(s, np.float32), device="cuda") for s in ((16,), (3, 16)))
(loop,) = s.lower(h, xs).compile().units
assert (loop.kind, loop.target, loop.name) == ("loop", "host", "host_scan"), loop
assert [v.target for v in loop.units] == ["cuda"] and loop.units[0].source
print("ok")
"""


def test_cuda_units_on_the_simulator():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    res = subprocess.run([sys.executable, "-c", _CUDA_CHILD], env=env, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0 and res.stdout.split() == ["ok"], res.stderr[-3000:]
