"""fold_transposes: (A B)^T = B^T A^T, the transposes read by BLAS as trans flags instead of a
copy kernel; values against NumPy on the compiled and interpreter paths, gradients, the cases
left alone, and the kill switch."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir.interpreter import interpret
from jitgrad.ir.ops import Op
from jitgrad.ir.passes.cse import cse
from jitgrad.ir.passes.dce import dce
from jitgrad.ir.passes.fold_transposes import fold_transposes

rng = np.random.default_rng(0)


def _rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _copies(f, *args):
    """The standalone transpose kernels of f's compiled schedule."""
    return [n for n in f.lower(*args).schedule if n.params["kind"] == "opaque"
            and n.params["body"].nodes[0].op == Op.transpose]


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 1e-5), (np.float64, 1e-12)])
def test_transposed_product_is_one_gemm(dtype, rtol):
    f = jg.jit(lambda x, dy: (x.T @ dy).T)
    x, dy = _rand(6, 4, dtype=dtype), _rand(6, 3, dtype=dtype)
    schedule = f.lower(x, dy).schedule
    assert [n.params["kind"] for n in schedule] == ["matmul"]
    np.testing.assert_allclose(np.asarray(f(x, dy)), (x.T @ dy).T, rtol=rtol)


def test_pass_on_the_graph_keeps_values():
    def f(a, b):
        return jnp.swapaxes(a @ b, -1, -2) * 2.0
    a, b = _rand(3, 4, 5), _rand(5, 6)
    g = jg.make_graph(f)(a, b)
    folded = dce(fold_transposes(g))
    ops = [n.op for n in folded.nodes]
    assert ops.count(Op.matmul) == 1
    mm = next(n for n in folded.nodes if n.op == Op.matmul)
    assert mm.output.type.shape == (3, 6, 4)
    # the operands are transposes (fused into the GEMM as trans flags), the product is not
    assert not [n for n in folded.nodes if n.op == Op.transpose and mm.output in n.inputs]
    np.testing.assert_allclose(interpret(folded, [a, b])[0], interpret(g, [a, b])[0], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jg.jit(f)(a, b)),
                               np.swapaxes(a @ b, -1, -2) * 2, rtol=1e-5)
    assert not _copies(jg.jit(f), a, b)


def test_left_alone_when_the_product_has_other_uses_or_other_perms():
    a, b = _rand(4, 5), _rand(5, 6)
    both = jg.jit(lambda a, b: ((a @ b).T, a @ b))
    t, p = both(a, b)
    np.testing.assert_allclose(np.asarray(t), (a @ b).T, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(p), a @ b, rtol=1e-5)
    g = cse(jg.make_graph(lambda a, b: ((a @ b).T, a @ b))(a, b))     # one product, two uses
    assert [n.op for n in fold_transposes(g).nodes] == [n.op for n in g.nodes]
    a3, b3 = _rand(2, 4, 5), _rand(2, 5, 3)
    other = jg.jit(lambda a, b: jnp.transpose(a @ b, (1, 0, 2)))
    np.testing.assert_allclose(np.asarray(other(a3, b3)), np.transpose(a3 @ b3, (1, 0, 2)),
                               rtol=1e-5)
    g = jg.make_graph(lambda a, b: jnp.transpose(a @ b, (1, 0, 2)))(a3, b3)
    assert [n.op for n in fold_transposes(g).nodes] == [n.op for n in g.nodes]


def _mlp_loss(params, x, y):
    h = jnp.maximum(x @ params["w0"].T + params["b0"], 0.0)
    logits = h @ params["w1"].T
    return jg.nn.functional.cross_entropy(logits, y)


def _numpy_grads(p, x, y):
    z = x @ p["w0"].T + p["b0"]
    h = np.maximum(z, 0)
    logits = h @ p["w1"].T
    e = np.exp(logits - logits.max(1, keepdims=True))
    dl = (e / e.sum(1, keepdims=True) - np.eye(logits.shape[1])[y]) / len(y)
    dh = dl @ p["w1"] * (z > 0)
    return {"w0": dh.T @ x, "b0": dh.sum(0), "w1": dl.T @ h}


def test_weight_gradients_without_transpose_kernels():
    p = {"w0": _rand(16, 12) * 0.3, "b0": _rand(16) * 0.1, "w1": _rand(5, 16) * 0.3}
    x, y = _rand(8, 12), rng.integers(0, 5, 8)
    g = jg.jit(jg.grad(_mlp_loss))
    got = g(p, x, y)
    want = _numpy_grads({k: v.astype(np.float64) for k, v in p.items()}, x.astype(np.float64), y)
    for k in want:
        np.testing.assert_allclose(np.asarray(got[k]), want[k], rtol=1e-4, atol=1e-6)
    assert not _copies(g, p, x, y)


def test_kill_switch_and_interpreter(monkeypatch):
    f = jg.jit(lambda x, dy: (x.T @ dy).T)
    x, dy = _rand(5, 4), _rand(5, 3)
    monkeypatch.setenv("JITGRAD_DISABLE", "fold_transposes")
    assert len(_copies(f, x, dy)) == 1
    monkeypatch.delenv("JITGRAD_DISABLE")
    monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    np.testing.assert_allclose(np.asarray(jg.jit(lambda x, dy: (x.T @ dy).T)(x, dy)),
                               (x.T @ dy).T, rtol=1e-5)


def test_inside_a_loop_body():
    def f(w, xs):
        def body(c, x):
            return c + (x.T @ w).T, None
        return jg.scan(body, jnp.zeros((3, 4)), xs)[0]
    w, xs = _rand(6, 3), _rand(5, 6, 4)
    want = sum((x.T @ w).T for x in xs)
    np.testing.assert_allclose(np.asarray(jg.jit(f)(w, xs)), want, rtol=1e-5, atol=1e-6)


def test_batched_weight_gradient_through_reduce_sum():
    """The weight gradient of x @ W.T for x [B, T, D]: sum over the batch of per-batch products,
    then a transpose; folded into the product (no transpose copy), values as NumPy."""
    def loss(w, x):
        return jnp.sum(jnp.tanh(x @ w.T))
    w, x = _rand(5, 4), _rand(2, 3, 4)
    g = jg.make_graph(jg.grad(loss))(w, x)
    folded = dce(fold_transposes(g))
    red = [n for n in folded.nodes if n.op == Op.reduce_sum and n.output in folded.outputs]
    assert red and red[0].output.type.shape == (5, 4)
    assert not [n for n in folded.nodes if n.op == Op.transpose and n.output in folded.outputs]
    dy = 1 - np.tanh(x @ w.T) ** 2
    want = np.einsum("btj,bti->ji", dy, x)
    np.testing.assert_allclose(interpret(folded, [w, x])[0], want, rtol=1e-5)
    f = jg.jit(jg.grad(loss))
    np.testing.assert_allclose(np.asarray(f(w, x)), want, rtol=1e-5)
    assert not _copies(f, w, x)
    # a reduction over a matrix axis is not a batch sum: left alone
    h = jg.make_graph(lambda a, b: jnp.sum(a @ b, axis=-1, keepdims=False)[None].T)(
        _rand(3, 4), _rand(4, 5))
    assert [n.op for n in fold_transposes(h).nodes] == [n.op for n in h.nodes]


def _gathers(f, *args):
    """The standalone transposes of f's schedule that move the last axis (element gathers)."""
    return [n for n in _copies(f, *args)
            if n.params["body"].nodes[0].params["perm"][-1] != len(n.outputs[0].type.shape) - 1]


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 1e-5), (np.float64, 1e-12)])
def test_head_transposes_of_either_operand_are_read_in_place(dtype, rtol):
    """k.transpose(0, 2, 3, 1) and k.transpose(0, 2, 1, 3) of k in [b, t, h, d] layout, as
    either operand: strided views the products read in place (ir/passes/matmul_views.py: batch
    strides t*h*d and d, leading dimension h*d, transposed where d is the rows): no copy."""
    def f(q, k):
        kh = k.transpose(0, 2, 1, 3)
        return k.transpose(0, 2, 3, 1) @ q.transpose(0, 2, 1, 3), kh @ q.transpose(0, 2, 3, 1)
    q, k = _rand(2, 8, 3, 4, dtype=dtype), _rand(2, 8, 3, 4, dtype=dtype)
    jf = jg.jit(f)
    assert _copies(jf, q, k) == []
    qt, kt = q.transpose(0, 2, 1, 3), k.transpose(0, 2, 1, 3)
    got = jf(q, k)
    np.testing.assert_allclose(np.asarray(got[0]), kt.swapaxes(-1, -2) @ qt, rtol=rtol,
                               atol=rtol)
    np.testing.assert_allclose(np.asarray(got[1]), kt @ qt.swapaxes(-1, -2), rtol=rtol,
                               atol=rtol)


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 1e-5), (np.float64, 1e-12)])
def test_product_transposed_with_its_rows_last_is_folded(dtype, rtol):
    """transpose(a @ b, (0, 3, 1, 2)) puts the product's row axis last: the product is computed
    transposed (b^T a^T) and copied with (0, 2, 1, 3), contiguous runs."""
    f = jg.jit(lambda a, b: jnp.transpose(a @ b, (0, 3, 1, 2)) * 2.0)
    a, b = _rand(2, 3, 5, 4, dtype=dtype), _rand(2, 3, 4, 6, dtype=dtype)
    assert _gathers(f, a, b) == []
    np.testing.assert_allclose(np.asarray(f(a, b)), np.transpose(a @ b, (0, 3, 1, 2)) * 2,
                               rtol=rtol, atol=rtol)


def test_attention_gradients_with_head_transposes(monkeypatch):
    """The GPT block's attention (split heads, q k^T, softmax, @ v, merge heads): none of its
    four gather transposes left (fold_transposes, and the products reading the heads in place as
    strided views; without the pass one is), gradients equal eager mode's."""
    def loss(x, w):
        b, t, d, h = 2, 8, 12, 3
        q, k, v = jnp.split(x @ w, 3, axis=-1)
        q, k, v = (z.reshape(b, t, h, d // h).transpose(0, 2, 1, 3) for z in (q, k, v))
        att = jg.nn.functional.softmax(q @ k.transpose(0, 1, 3, 2), axis=-1)
        return jnp.sum(jnp.tanh((att @ v).transpose(0, 2, 1, 3).reshape(b, t, d)))
    x, w = _rand(2, 8, 12), _rand(12, 36) * 0.3
    g = jg.jit(jg.grad(loss, argnums=(0, 1)))
    assert _gathers(g, x, w) == []
    monkeypatch.setenv("JITGRAD_DISABLE", "fold_transposes")
    assert len(_gathers(jg.jit(jg.grad(loss, argnums=(0, 1))), x, w)) == 1
    monkeypatch.delenv("JITGRAD_DISABLE")
    want = jg.grad(loss, argnums=(0, 1))(jnp.asarray(x), jnp.asarray(w))     # eager
    for got, w_ in zip(g(x, w), want):
        # atol: gradients reach 4; an element near 0.02 comes from cancellation (float32 sums in
        # another order differ there by 2e-6)
        np.testing.assert_allclose(np.asarray(got), np.asarray(w_), rtol=2e-5, atol=5e-6)
