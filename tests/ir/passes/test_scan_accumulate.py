"""scan_accumulate: a scan carry `acc' = acc + a_t^T b_t` (or + reduce_sum(x_t)) becomes one GEMM
(one reduce_sum) over the stacked per-step operands after the loop. The IR rewrite against the
reference interpreter, the reverse scan of an RNN's gradient losing its per-step weight GEMM,
gradients against finite differences and the unrewritten pipeline, and the cases left alone."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir.interpreter import interpret
from jitgrad.ir.ops import Op
from jitgrad.ir.passes.dce import dce
from jitgrad.ir.passes.scan_accumulate import scan_accumulate

rng = np.random.default_rng(3)


def _rand(*shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def _scans(graph):
    return [n for n in graph.walk_nodes() if n.op == Op.scan]


def _ops(graph):
    return [n.op for n in graph.nodes]


def _check_same(g, args, tol=1e-10):
    new = dce(scan_accumulate(g))
    for got, want in zip(interpret(new, args), interpret(g, args)):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    return new


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("orient", ["at_b", "a_bt", "a_b", "at_bt"])
def test_matmul_accumulator_orientations(reverse, orient):
    """acc += P_t Q_t with P_t / Q_t given transposed or not, both directions, a non-zero
    initial value, per-step operands read from xs and from computed values."""
    prods = {"at_b": lambda a, b: a.T @ b, "a_bt": lambda a, b: a @ b.T,
             "a_b": lambda a, b: a @ b, "at_bt": lambda a, b: a.T @ b.T}
    shapes = {"at_b": ((4, 3), (4, 5)), "a_bt": ((3, 4), (5, 4)), "a_b": ((3, 4), (4, 5)),
              "at_bt": ((4, 3), (5, 4))}
    (sa, sb) = shapes[orient]

    def f(acc0, xa, xb):
        def body(carry, x):
            acc, s = carry
            a, b = x
            acc = acc + prods[orient](jnp.tanh(a) * s, b)
            return (acc, s * 0.9), jnp.sum(b)
        return jg.scan(body, (acc0, jnp.ones(sa)), (xa, xb), reverse=reverse)

    args = [_rand(3, 5), _rand(6, *sa), _rand(6, *sb)]
    g = jg.make_graph(f)(*args)
    new = _check_same(g, args)
    (scan,) = _scans(new)
    assert scan.params["n_carry"] == 1
    assert Op.matmul not in _ops(scan.params["body"])
    assert Op.matmul in _ops(new)


def test_reduce_sum_accumulator_and_zero_init():
    def f(xs):
        def body(acc, x):
            return acc + jnp.sum(x * 2.0, axis=0), x[0]
        return jg.scan(body, jnp.zeros(4, dtype=jnp.float64), xs)

    args = [_rand(7, 3, 4)]
    g = jg.make_graph(f)(*args)
    new = _check_same(g, args)
    (scan,) = _scans(new)
    assert scan.params["n_carry"] == 0
    assert Op.add not in _ops(new)          # zeros initial value: nothing added after the loop


def test_left_alone():
    """acc read elsewhere in the body, a non-linear update, an integer carry: unchanged."""
    def read_twice(acc0, xs):
        return jg.scan(lambda acc, x: (acc + x.T @ x, jnp.sum(acc)), acc0, xs)

    def nonlinear(acc0, xs):
        return jg.scan(lambda acc, x: (jnp.tanh(acc + x.T @ x), 0.0), acc0, xs)

    for f in (read_twice, nonlinear):
        args = [_rand(3, 3), _rand(5, 2, 3)]
        g = jg.make_graph(f)(*args)
        new = _check_same(g, args)
        assert _scans(new)[0].params["n_carry"] == 1
    g = jg.make_graph(lambda xs: jg.scan(lambda a, x: (a + jnp.sum(x), 0), 0, xs))(
        np.arange(6, dtype=np.int32).reshape(3, 2))
    assert _scans(scan_accumulate(g))[0].params["n_carry"] == 1


def _rnn_loss(w, h0, xs):
    def cell(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h
    _, hs = jg.scan(cell, h0, xs)
    return jnp.sum(hs * hs)


def test_rnn_weight_gradient_leaves_the_reverse_loop():
    w, h0, xs = _rand(8, 8) * 0.3, _rand(4, 8), _rand(10, 4, 8)
    g = jg.make_graph(jg.grad(_rnn_loss))(w, h0, xs)
    before = [s for s in _scans(g) if s.params["reverse"]]
    after = [s for s in _scans(dce(scan_accumulate(g))) if s.params["reverse"]]
    assert len(before) == len(after) == 1
    mm = lambda s: sum(n.op == Op.matmul for n in s.params["body"].nodes)   # noqa: E731
    assert mm(before[0]) == 2 and mm(after[0]) == 1        # dW's per-step GEMM is gone; dh stays
    assert after[0].params["n_carry"] == before[0].params["n_carry"] - 1


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-9), (np.float32, 2e-4)])
def test_rnn_gradients_compiled(monkeypatch, dtype, tol):
    """The compiled gradient equals the one without the pass, and (float64) finite differences."""
    w, h0, xs = (_rand(8, 8) * 0.3).astype(dtype), _rand(4, 8, dtype=dtype), \
        _rand(10, 4, 8, dtype=dtype)
    got = np.asarray(jg.jit(jg.grad(_rnn_loss))(w, h0, xs))
    monkeypatch.setenv("JITGRAD_DISABLE", "scan_accumulate")
    want = np.asarray(jg.jit(jg.grad(_rnn_loss))(w, h0, xs))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    if dtype == np.float64:
        eps, fd = 1e-6, np.zeros_like(w)
        for i, j in [(0, 0), (2, 5), (7, 3), (4, 4)]:
            d = np.zeros_like(w)
            d[i, j] = eps
            up, down = float(_rnn_loss(w + d, h0, xs)), float(_rnn_loss(w - d, h0, xs))
            fd[i, j] = (up - down) / (2 * eps)
            np.testing.assert_allclose(got[i, j], fd[i, j], rtol=1e-6, atol=1e-6)


def test_lstm_cell_gradients(monkeypatch):
    """The benchmark's LSTM cell (split gates, two carries, bias): all weight gradients."""
    H, B, T = 8, 3, 5
    params = [_rand(4 * H, H) * 0.3, _rand(4 * H) * 0.1]
    xg = _rand(T, B, 4 * H)

    def loss(w, b, xg):
        def cell(carry, x):
            h, c = carry
            i, f, g, o = jnp.split(x + h @ w.T + b, 4, axis=-1)
            c = jg.nn.functional.sigmoid(f) * c + jg.nn.functional.sigmoid(i) * jnp.tanh(g)
            h = jg.nn.functional.sigmoid(o) * jnp.tanh(c)
            return (h, c), h
        z = jnp.zeros((B, H), dtype=jnp.float64)
        _, hs = jg.scan(cell, (z, z), xg)
        return jnp.sum(hs * hs)

    grad = jg.grad(loss, argnums=(0, 1, 2))
    got = [np.asarray(v) for v in jg.jit(grad)(*params, xg)]
    monkeypatch.setenv("JITGRAD_DISABLE", "scan_accumulate")
    want = [np.asarray(v) for v in jg.jit(grad)(*params, xg)]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("reverse", [False, True])
def test_compiled_operand_is_a_carry(reverse):
    """The stacked operand is a carry entering the step (a new stacked output equal to a body
    input) and another is an xs: compiled, against the interpreter of the unrewritten graph."""
    def f(w, h0, xs):
        def body(carry, x):
            h, acc = carry
            acc = acc + h.T @ x
            return (jnp.tanh(h @ w + x), acc), jnp.sum(h)
        return jg.scan(body, (h0, jnp.zeros((5, 5), dtype=jnp.float64)), xs, reverse=reverse)

    args = [_rand(5, 5) * 0.3, _rand(3, 5), _rand(7, 3, 5)]
    g = jg.make_graph(f)(*args)
    new = _check_same(g, args)
    assert _scans(new)[0].params["n_carry"] == 1
    (h, acc), ys = jg.jit(f)(*args)
    for a, b in zip((h, acc, ys), interpret(g, args)):
        np.testing.assert_allclose(np.asarray(a), b, rtol=1e-10, atol=1e-10)
