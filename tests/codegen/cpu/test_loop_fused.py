"""A loop node as one LLVM function (codegen/cpu/loop_fused.py): the same values as the generic
loop kernel (runtime/loop_runner.py jg_loop, the option cpu_loop_fusion False), bit for bit, and
as the reference interpreter; the body's elementwise / matmul / opaque units are called directly
(no table call per iteration), reductions through the table."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.lax import fori_loop
from jitgrad.runtime import loop_runner


def _rng(seed):
    return np.random.default_rng(seed)


def _leaves(out):
    return [np.asarray(v) for v in jg.tree_util.tree_leaves(out)]


def _three_ways(f, args, monkeypatch):
    """(fused, generic jg_loop, interpreter) results of jit(f)(*args), each a fresh compile."""
    fused = _leaves(jg.jit(f)(*args))
    with monkeypatch.context() as m:
        m.setenv("JITGRAD_CPU_LOOP_FUSION", "0")
        generic = _leaves(jg.jit(f)(*args))
    with monkeypatch.context() as m:
        m.setenv("JITGRAD_BACKEND", "interpreter")
        ref = _leaves(jg.jit(f)(*args))
    return fused, generic, ref


def _check(f, args, monkeypatch, rtol=1e-6):
    fused, generic, ref = _three_ways(f, args, monkeypatch)
    assert len(fused) == len(generic) == len(ref)
    for a, b, r in zip(fused, generic, ref):
        np.testing.assert_array_equal(a, b)           # bit for bit: the same kernels
        np.testing.assert_allclose(a, r, rtol=rtol, atol=1e-6)
    return fused


def _loop_plans(compiled):
    return [u for u in compiled.exe.run.units if hasattr(u, "subs")]


@pytest.mark.parametrize("x0", [np.float32(1.0), np.ones(4, np.float32), np.ones(37, np.float32),
                                np.ones(3000, np.float32)])     # above LINK_MAX: by address
def test_while_loop_of_a_tiny_body(x0, monkeypatch):
    def f(x):
        def body(c):
            i, x = c
            return i + 1, x * 0.5 + 1.0
        return jg.while_loop(lambda c: c[0] < 1001, body, (jnp.asarray(0, dtype=jnp.int32), x))
    i, x = _check(f, (x0,), monkeypatch)
    assert int(i) == 1001
    want = np.asarray(x0, np.float32).copy()
    for _ in range(1001):
        want = want * np.float32(0.5) + np.float32(1.0)
    np.testing.assert_array_equal(x, want)


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_while_loop_zero_odd_and_even_trip_counts(n, monkeypatch):
    def f(x):
        return jg.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 1.5 - 0.25),
                             (jnp.asarray(0), x))
    i, x = _check(f, (_rng(1).standard_normal(5),), monkeypatch)
    assert int(i) == n


def test_fori_loop_with_a_matmul_body(monkeypatch):
    w = (_rng(2).standard_normal((32, 32)) * 0.2).astype(np.float32)
    x = _rng(3).standard_normal((8, 32)).astype(np.float32)

    def f(x, w):
        return fori_loop(0, 301, lambda i, x: jnp.tanh(x @ w) * 0.5 + 0.1, x)
    _check(f, (x, w), monkeypatch)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("length", [0, 1, 4, 9])
def test_scan_rnn_forward_and_grad(reverse, length, monkeypatch):
    w = _rng(4).standard_normal((6, 6)) * 0.3
    xs = _rng(5).standard_normal((length, 3, 6))

    def f(w, xs):
        def cell(h, x):
            h = jnp.tanh(x + h @ w)
            return h, h * 2.0
        h, hs = jg.scan(cell, jnp.ones((3, 6), dtype=jnp.float64), xs, reverse=reverse)
        return jnp.sum(h) + jnp.sum(hs * hs)
    _check(f, (w, xs), monkeypatch)
    _check(jg.grad(f, argnums=(0, 1)), (w, xs), monkeypatch)   # reductions in the backward body


def test_scan_passthrough_carry_constants_and_ys_copies(monkeypatch):
    xs = _rng(6).standard_normal((5, 4))

    def f(a, xs):
        def body(c, x):
            s, keep = c
            return (s + x * 2.0, keep), (x, keep, jnp.full(2, 1.5))
        return jg.scan(body, (a, a), xs)
    _check(f, (_rng(7).standard_normal(4), xs), monkeypatch)


def test_nested_loops_and_vmap_of_a_loop(monkeypatch):
    xs = _rng(8).standard_normal((4, 3, 5))

    def inner(c, row):
        return jg.scan(lambda a, x: (a * 0.5 + x, a), c, row)[0]

    def f(xs):
        return jg.scan(lambda c, x: (inner(c, x) + 1.0, jnp.sum(c)), jnp.zeros(5, dtype=jnp.float64), xs)
    _check(f, (xs,), monkeypatch)

    def g(x):
        return jg.while_loop(lambda c: c[0] < 6, lambda c: (c[0] + 1, jnp.sin(c[1]) + c[1]),
                             (jnp.asarray(0), x))[1]
    _check(jg.vmap(g), (_rng(9).standard_normal((3, 4)),), monkeypatch)


def test_bounds_error_inside_a_directly_called_body_kernel():
    table = np.arange(12.0).reshape(4, 3)

    def f(c, idx):
        return jg.scan(lambda c, i: (c + jnp.take(table, i, axis=0), c), c, idx)
    g = jg.jit(f)
    ok = np.array([0, 3, 1], np.int64)
    np.testing.assert_array_equal(np.asarray(g(np.zeros(3), ok)[0]), table[ok].sum(0))
    assert all(p.fused_file for p in _loop_plans(g.lower(np.zeros(3), ok).compile()))
    with pytest.raises(IndexError):
        g(np.zeros(3), np.array([0, 4, 1], np.int64))


def _count_table_calls(c, args, plan):
    """Run c(*args) with every kernel of the loop's body sub-program swapped in its table for a
    counting trampoline: (outputs, calls per kernel)."""
    kernel_t = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p)
    table = plan.subs[0].run.program.fns
    saved = [int(a) for a in table[:-1]]
    calls = [0] * len(saved)
    keep = []
    for k, address in enumerate(saved):
        original = kernel_t(address)

        def counting(argv, k=k, original=original):
            calls[k] += 1
            return original(argv)
        keep.append(kernel_t(counting))
        table[k] = ctypes.cast(keep[-1], ctypes.c_void_p).value
    try:
        out = _leaves(c(*args))
    finally:
        table[:-1] = saved
    return out, calls


def test_a_small_body_makes_no_table_call_per_iteration():
    """Structural: the loop function calls the body's elementwise and matmul units directly
    (LLVM inlines them), so swapping the sub-program's table changes nothing; the generic
    jg_loop calls every kernel through it once per step."""
    w = _rng(10).standard_normal((4, 4)) * 0.3
    xs = _rng(11).standard_normal((37, 4))

    def f(w, xs):
        return jg.scan(lambda h, x: (jnp.tanh(h @ w + x) * 0.5, h), jnp.zeros(4, dtype=jnp.float64), xs)
    c = jg.jit(f).lower(w, xs).compile()
    (plan,) = _loop_plans(c)
    assert plan.address != loop_runner.entry_points()[0] and plan.fused_file
    want = _leaves(c(w, xs))
    got, calls = _count_table_calls(c, (w, xs), plan)
    assert calls and sum(calls) == 0
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_a_reduction_in_the_body_is_called_through_the_table_once_per_step():
    xs = _rng(12).standard_normal((23, 3, 5))

    def f(xs):
        return jg.scan(lambda c, x: (c + jnp.sum(x * c, axis=0), c * 2.0), jnp.ones(5, dtype=jnp.float64), xs)
    c = jg.jit(f).lower(xs).compile()
    (plan,) = _loop_plans(c)
    kinds = [n.params["kind"] for n in plan.subs[0].run.kernel_nodes]
    want = _leaves(c(xs))
    got, calls = _count_table_calls(c, (xs,), plan)
    assert "reduce" in kinds
    for kind, n in zip(kinds, calls):
        assert n == (23 if kind in ("reduce", "rowwise") else 0), (kinds, calls)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
