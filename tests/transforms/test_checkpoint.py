"""jg.checkpoint / jg.remat (jitgrad/checkpoint.py, ir/remat.py): the same values and gradients
as the plain function on every path, and a backward pass that recomputes the forward."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.test_util import check_grads


def _f64(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def block(x, w):
    return jnp.sin(jnp.tanh(x @ w) @ w)


def _loss(f):
    return lambda x, w: jnp.sum(f(x, w) ** 2)


X, W = _f64(4, 5, seed=1), _f64(5, 5, seed=2) * 0.5


def _numpy_grads(x, w):
    a = x @ w
    h = np.tanh(a)
    b = h @ w
    y = np.sin(b)
    gb = 2 * y * np.cos(b)
    gh = gb @ w.T
    ga = gh * (1 - h * h)
    return ga @ w.T, x.T @ ga + h.T @ gb


@pytest.mark.parametrize("path", ["eager", "jit", "jit_of_grad"])
def test_same_gradients_as_the_plain_function(path):
    g = jg.grad(_loss(jg.checkpoint(block)), argnums=(0, 1))
    g = {"eager": g, "jit": jg.grad(jg.jit(_loss(jg.checkpoint(block))), argnums=(0, 1)),
         "jit_of_grad": jg.jit(g)}[path]
    got = g(X, W)
    for a, b in zip(got, _numpy_grads(X, W)):
        np.testing.assert_allclose(np.asarray(a), b, rtol=1e-9, atol=1e-12)


def test_values_vjp_jvp_vmap_and_finite_differences():
    f = jg.checkpoint(block)
    np.testing.assert_allclose(np.asarray(jg.jit(f)(X, W)), np.sin(np.tanh(X @ W) @ W),
                               rtol=1e-12)
    check_grads(jg.jit(f), (X, W), order=2, modes=("fwd", "rev"))
    out, vjp_fn = jg.vjp(f, X, W)
    ct = _f64(4, 5, seed=3)
    _, ref_vjp = jg.vjp(block, X, W)
    for a, b in zip(vjp_fn(ct), ref_vjp(ct)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10)
    t = _f64(4, 5, seed=4)
    _, tan = jg.jvp(jg.jit(lambda x: f(x, W)), (X,), (t,))
    _, ref = jg.jvp(lambda x: block(x, W), (X,), (t,))
    np.testing.assert_allclose(np.asarray(tan), np.asarray(ref), rtol=1e-10)
    xb = _f64(3, 4, 5, seed=5)
    gb = jg.jit(jg.vmap(jg.grad(_loss(f)), in_axes=(0, None)))(xb, W)
    for k in range(3):
        np.testing.assert_allclose(np.asarray(gb)[k], _numpy_grads(xb[k], W)[0], rtol=1e-9)


def test_the_backward_recomputes_instead_of_saving():
    g = jg.jit(jg.grad(_loss(jg.checkpoint(block)), argnums=(0, 1))).lower(X, W)
    graph = g.graph
    remats = [n for n in graph.nodes if n.op == jg.ir.Op.remat]
    assert len(remats) == 2
    fwd, bwd = remats
    # the forward keeps no residuals: its only outputs are the function's, and the backward
    # reads nothing the forward computed inside, only the inputs and the output cotangent
    assert len(fwd.outputs) == 1
    assert set(bwd.inputs[:2]) == set(graph.inputs)
    assert not set(bwd.inputs) & set(fwd.outputs)

    def count(lowered, op):
        return sum(n.op == op for k in lowered.schedule for n in k.params["body"].nodes)
    plain = jg.jit(jg.grad(_loss(block), argnums=(0, 1))).lower(X, W)
    assert count(plain, jg.ir.Op.tanh) == 1
    assert count(g, jg.ir.Op.tanh) == 2              # computed, then recomputed
    assert count(g, jg.ir.Op.matmul) == count(plain, jg.ir.Op.matmul) + 2


def test_static_argnums_and_decorator_form():
    @jg.checkpoint(static_argnums=(2,))
    def layers(x, w, n):
        for _ in range(n):          # n is a Python int: static
            x = jnp.tanh(x @ w)
        return x

    def plain(x, w, n):
        for _ in range(n):
            x = jnp.tanh(x @ w)
        return x
    for n in (1, 3):
        got = jg.jit(jg.grad(lambda x, w: jnp.sum(layers(x, w, n)), argnums=1))(X, W)
        want = jg.grad(lambda x, w: jnp.sum(plain(x, w, n)), argnums=1)(X, W)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10)
    assert jg.remat is jg.checkpoint


def test_policies_and_errors():
    f = jg.checkpoint(block, policy=jg.checkpoint_policies.everything_saveable)
    g = jg.jit(jg.grad(_loss(f))).lower(X, W)
    assert not [n for n in g.graph.nodes if n.op == jg.ir.Op.remat]   # nothing recomputed
    np.testing.assert_allclose(np.asarray(jg.grad(_loss(f))(X, W)), _numpy_grads(X, W)[0],
                               rtol=1e-9)
    with pytest.raises(ValueError, match="unsupported policy"):
        jg.checkpoint(block, policy="dots")
    with pytest.raises(TypeError, match="expected a function"):
        jg.checkpoint(3)
    with pytest.raises(ValueError, match="static_argnums \\[5\\] out of range"):
        jg.jit(jg.checkpoint(block, static_argnums=5))(X, W)


def test_closures_and_inside_a_scan_body():
    def f(w, xs):
        scale = jnp.sum(w) * 0.1                       # closed over by the checkpointed cell

        @jg.checkpoint
        def cell(h, x):
            return jnp.tanh(h @ w + x) * scale

        def step(h, x):
            h = cell(h, x)
            return h, jnp.sum(h)
        h, ys = jg.scan(step, jnp.zeros(5, dtype=jnp.float64), xs)
        return jnp.sum(ys) + jnp.sum(h)

    def plain(w, xs):
        scale = jnp.sum(w) * 0.1
        h, ys = jg.scan(lambda h, x: (jnp.tanh(h @ w + x) * scale,) * 2, jnp.zeros(5, dtype=jnp.float64), xs)
        return jnp.sum(ys) + jnp.sum(h)
    xs = _f64(6, 5, seed=6)
    got = jg.jit(jg.grad(f))(W, xs)
    np.testing.assert_allclose(np.asarray(got), np.asarray(jg.grad(plain)(W, xs)), rtol=1e-9)
    check_grads(jg.jit(f), (W, xs), order=1, modes=("fwd", "rev"))
