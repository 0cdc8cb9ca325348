"""Eager speed, structurally: the backward reads the forward's values instead of recomputing
them, erf/sigmoid run the jit path's compiled kernels (the same bits as jit, any shape), and a
stack-by-matrix matmul is one folded GEMM with np.matmul's values."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.eager import backward as eager_backward
from jitgrad.eager import compiled_ops
from jitgrad.eager.numpy_forms import folded_matmul
from jitgrad.ir import Op
from jitgrad.nn import functional as F

RNG = np.random.default_rng(0)


def _ops(graph):
    return {n.op for n in graph.walk_nodes()}


def test_backward_graph_does_not_recompute_the_forward():
    x = jg.tensor(RNG.standard_normal((5, 4)).astype(np.float32), requires_grad=True)
    w = jg.tensor(RNG.standard_normal((4, 3)).astype(np.float32), requires_grad=True)
    y = jnp.tanh(x @ w)
    loss = jnp.sum(jnp.exp(y) * y)
    loss.backward()
    graph = eager_backward.graphs()[-1]
    ops = _ops(graph)
    assert Op.tanh not in ops and Op.exp not in ops      # read from the saved values
    assert len(graph.outputs) == 2                       # the gradients only
    xs, ws = x.detach().numpy(), w.detach().numpy()

    def f(x, w):
        y = jnp.tanh(x @ w)
        return jnp.sum(jnp.exp(y) * y)
    gx, gw = jg.grad(f, argnums=(0, 1))(jnp.asarray(xs), jnp.asarray(ws))
    np.testing.assert_allclose(x.grad.numpy(), gx.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), gw.numpy(), rtol=1e-5, atol=1e-6)


def test_training_loop_gradients_stay_right_with_saved_values():
    """The cached structure is reused with each step's new saved values (compiled after a few
    steps): every step's gradients match jg.grad's."""
    w0 = RNG.standard_normal((6, 6)).astype(np.float32) * 0.3
    w = jg.tensor(w0, requires_grad=True)
    x = jnp.asarray(RNG.standard_normal((4, 6)).astype(np.float32))

    def f(w, x):
        h = F.gelu(x @ w)
        return jnp.mean(F.softmax(h @ w, axis=-1) * h)
    for _ in range(5):
        w.grad = None
        f(w, x).backward()
        want = jg.grad(f)(jnp.asarray(w.detach().numpy()), x)
        np.testing.assert_allclose(w.grad.numpy(), want.numpy(), rtol=1e-4, atol=1e-6)
        with jg.no_grad():
            w -= 0.1 * w.grad


def test_retain_grad_and_views_with_saved_values():
    x = jg.tensor(RNG.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    h = jnp.sin(x).T           # a view op's result: recomputed in the graph, not fed
    h.retain_grad()
    (h * h).sum().backward()
    np.testing.assert_allclose(h.grad.numpy(), 2 * np.sin(x.detach().numpy()).T, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), np.sin(2 * x.detach().numpy()), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("op", ["erf", "sigmoid"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (256,), (257, 3), (4096 + 5,), (8, 64, 130)])
def test_eager_slow_ops_give_the_jit_bits(op, dtype, shape):
    fn = jnp.erf if op == "erf" else F.sigmoid
    x = jg.tensor(np.asarray(RNG.standard_normal(shape) * 3).astype(dtype))
    first, again = fn(x).numpy(), fn(x).numpy()          # generic path, then the fast path
    jitted = jg.jit(fn)(x).numpy()
    assert first.dtype == dtype and first.shape == shape
    assert np.array_equal(first, again) and np.array_equal(first, jitted)


def test_slow_ops_compile_once_per_op_dtype_and_chunk_length():
    for n in (3, 300, 2000, 5000, 70000, 123457):
        jnp.erf(jg.tensor(RNG.standard_normal(n).astype(np.float32)))
    keys = [k for k in compiled_ops.units() if k[0] == Op.erf and k[1] == np.float32]
    assert sorted(k[2] for k in keys) == sorted(compiled_ops.LENGTHS)


def test_folded_matmul_matches_np_matmul():
    a = RNG.standard_normal((3, 5, 7)).astype(np.float32)
    w = RNG.standard_normal((4, 7)).astype(np.float32)
    np.testing.assert_allclose(folded_matmul(a, w.T), np.matmul(a, w.T), rtol=1e-5, atol=1e-5)
    at = np.swapaxes(a, 0, 1)            # not contiguous: np.matmul as it is
    np.testing.assert_array_equal(folded_matmul(at, w.T), np.matmul(at, w.T))
    got = (jg.tensor(a) @ jg.tensor(w).T).numpy()
    assert got.shape == (3, 5, 4)
    np.testing.assert_allclose(got, a @ w.T, rtol=1e-5, atol=1e-5)


def test_composites_run_as_one_compiled_call_once_hot():
    """F.layer_norm / gelu / softmax / cross_entropy on eager CPU tensors: op by op for the
    first calls of a signature, then one compiled call recorded as one op; values and
    gradients as jg.grad's either way."""
    from jitgrad.transforms import fused_eager
    x0 = RNG.standard_normal((3, 5, 8)).astype(np.float32)
    w0, b0 = RNG.standard_normal(8).astype(np.float32), RNG.standard_normal(8).astype(np.float32)
    t0 = RNG.integers(0, 8, 15).astype(np.int32)

    def f(x, w, b):
        h = F.gelu(F.layer_norm(x, (8,), w, b))
        return F.cross_entropy(F.softmax(h, axis=-1).reshape(-1, 8) * 3.0, jnp.asarray(t0))
    want = jg.value_and_grad(f, argnums=(0, 1, 2))(*(jnp.asarray(a) for a in (x0, w0, b0)))
    for call in range(fused_eager.HOT + 2):
        x, w, b = (jg.tensor(a, requires_grad=True) for a in (x0, w0, b0))
        loss = f(x, w, b)
        fused = loss._ctx.name == "custom_vjp_call"     # cross_entropy as one recorded op
        assert fused == (call >= fused_eager.HOT)
        loss.backward()
        np.testing.assert_allclose(float(loss), float(want[0]), rtol=1e-5)
        for t, g in zip((x, w, b), want[1]):
            np.testing.assert_allclose(t.grad.numpy(), g.numpy(), rtol=1e-4, atol=1e-5)


def test_composites_stay_eager_on_what_they_cannot_compile():
    x = np.ones((2, 3), np.float32)
    for _ in range(4):
        assert isinstance(F.softmax(x, axis=-1), jg.Tensor)          # a NumPy array: eager
    m = jg.tensor(np.ones((2, 3), np.float32), device="meta")
    for _ in range(4):
        assert F.gelu(m).device.type == "meta"
