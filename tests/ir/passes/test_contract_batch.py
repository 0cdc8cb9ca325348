"""contract_batch: sum_b a_b^T c_b becomes one GEMM over the flattened rows, reshape(a)^T
reshape(c), the reshapes read in place by the GEMM kernel (fusion_rules.matmul_operand); the IR
rewrite, values against NumPy on the LLVM and interpreter paths, the weight gradient of a
layer on [B, T, D] activations against finite differences, and the cases left alone."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir.interpreter import interpret
from jitgrad.ir.ops import Op
from jitgrad.ir.passes.contract_batch import contract_batch
from jitgrad.ir.passes.dce import dce

rng = np.random.default_rng(1)


def _rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _weight_grad(a, c):
    return jnp.sum(jnp.swapaxes(a, -1, -2) @ c, axis=(0, 1))


def test_ir_rewrite():
    a, c = _rand(2, 3, 5, 4), _rand(2, 3, 5, 6)
    g = jg.make_graph(_weight_grad)(a, c)
    text = str(dce(contract_batch(g)))
    assert "reduce_sum" not in text
    assert "reshape %a shape=(30,4) : f32[30,4]" in text
    assert "reshape %c shape=(30,6) : f32[30,6]" in text
    assert "perm=(1,0) : f32[4,30]" in text
    assert "matmul" in text and ": f32[4,6]" in text
    np.testing.assert_allclose(interpret(dce(contract_batch(g)), [a, c])[0],
                               interpret(g, [a, c])[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-4), (np.float64, 1e-10)])
def test_one_gemm_kernel_and_values(monkeypatch, dtype, tol):
    a, c = _rand(8, 16, 24, dtype=dtype), _rand(8, 16, 12, dtype=dtype)
    f = jg.jit(lambda a, c: jnp.sum(jnp.swapaxes(a, -1, -2) @ c, axis=0) * 0.5)
    schedule = f.lower(a, c).schedule
    assert [k.params["kind"] for k in schedule] == ["matmul"]     # no reshape copy, no reduce
    want = np.einsum("btp,btq->pq", a.astype(np.float64), c) * 0.5
    np.testing.assert_allclose(np.asarray(f(a, c)), want, rtol=tol, atol=tol)


def test_interpreter_path(monkeypatch):
    monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    a, c = _rand(2, 3, 5, 4), _rand(2, 3, 5, 6)
    want = np.einsum("xytp,xytq->pq", a.astype(np.float64), c)
    np.testing.assert_allclose(np.asarray(jg.jit(_weight_grad)(a, c)), want, rtol=1e-4,
                               atol=1e-4)


def test_left_alone():
    a, c = _rand(3, 5, 4), _rand(3, 5, 6)
    cases = [
        lambda a, c: jnp.sum(jnp.swapaxes(a, -1, -2) @ c, axis=1),        # a matrix axis
        lambda a, c: jnp.sum(jnp.swapaxes(a, -1, -2) @ c[0], axis=0),     # c broadcast
        lambda a, c: jnp.sum(jnp.reshape(a, (3, 4, 5)) @ c, axis=0),      # left not a transpose
    ]
    for f in cases:
        g = jg.make_graph(f)(a, c)
        assert [n.op for n in contract_batch(g).nodes] == [n.op for n in g.nodes]
        np.testing.assert_allclose(np.asarray(jg.jit(f)(a, c)), interpret(g, [a, c])[0],
                                   rtol=1e-4, atol=1e-4)
    both = jg.jit(lambda a, c: (jnp.swapaxes(a, -1, -2) @ c,
                                jnp.sum(jnp.swapaxes(a, -1, -2) @ c, axis=0)))
    p, s = both(a, c)                               # the product has another use
    np.testing.assert_allclose(np.asarray(s), np.asarray(p).sum(0), rtol=1e-5, atol=1e-5)


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def test_linear_on_sequences_weight_gradient_against_finite_differences():
    x, w = _rand(3, 4, 5, dtype=np.float64), _rand(6, 5, dtype=np.float64)
    c = _rand(3, 4, 6, dtype=np.float64)

    def loss(w, x):
        return jnp.sum(jnp.tanh(x @ w.T) * c)
    gfun = jg.jit(jg.grad(loss))
    kinds = [k.params["kind"] for k in gfun.lower(w, x).schedule]
    assert "reduce" not in kinds            # dW is one GEMM over the 12 rows, not 3 + a sum
    want = _fd(lambda v: np.sum(np.tanh(x @ v.T) * c), w)
    np.testing.assert_allclose(np.asarray(gfun(w, x)), want, rtol=1e-6, atol=1e-8)


def test_kill_switch(monkeypatch):
    monkeypatch.setenv("JITGRAD_DISABLE", "contract_batch")
    a, c = _rand(3, 5, 4), _rand(3, 5, 6)
    f = jg.jit(lambda a, c: jnp.sum(jnp.swapaxes(a, -1, -2) @ c, axis=0))
    assert "reduce" in [k.params["kind"] for k in f.lower(a, c).schedule]
    np.testing.assert_allclose(np.asarray(f(a, c)), np.einsum("btp,btq->pq", a, c), rtol=1e-4,
                               atol=1e-5)
