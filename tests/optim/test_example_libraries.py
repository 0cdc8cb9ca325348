"""jitgrad.example_libraries (optimizers, stax) against their formulas in NumPy, a JAX
mnist_classifier-style program, lazy loading, and the coverage of jax's names."""
import subprocess
import sys

import numpy as np
import pytest

import jitgrad as jax
import jitgrad.numpy as jnp
from jitgrad.example_libraries import optimizers, stax

X0, G = np.array([1.0, -2.0, 3.0]), np.array([0.5, -1.0, 0.25])


def one_step(opt, steps=2):
    init, update, get = opt
    s = init({"w": X0})
    for i in range(steps):
        s = update(i, {"w": G}, s)
    return np.asarray(get(s)["w"])


def test_each_optimizer_follows_its_formula():
    # two steps with the same gradient, from NumPy's formulas (jax.example_libraries')
    lr = 0.1
    np.testing.assert_allclose(one_step(optimizers.sgd(lr)), X0 - 2 * lr * G)
    v1, v2 = G, 0.9 * G + G
    np.testing.assert_allclose(one_step(optimizers.momentum(lr, 0.9)), X0 - lr * (v1 + v2))
    np.testing.assert_allclose(one_step(optimizers.nesterov(lr, 0.9)),
                               X0 - lr * ((0.9 * v1 + G) + (0.9 * v2 + G)))
    m1, v1 = 0.1 * G, 0.001 * G * G
    m2, v2 = 0.1 * G + 0.9 * m1, 0.001 * G * G + 0.999 * v1
    x = X0 - lr * (m1 / 0.1) / (np.sqrt(v1 / 0.001) + 1e-8)
    x = x - lr * (m2 / (1 - 0.81)) / (np.sqrt(v2 / (1 - 0.999 ** 2)) + 1e-8)
    np.testing.assert_allclose(one_step(optimizers.adam(lr)), x, rtol=1e-6)
    u1, u2 = np.abs(G), np.maximum(0.999 * np.abs(G), np.abs(G))
    x = X0 - lr / 0.1 * m1 / (u1 + 1e-8) - lr / (1 - 0.81) * m2 / (u2 + 1e-8)
    np.testing.assert_allclose(one_step(optimizers.adamax(lr)), x, rtol=1e-6)
    a1, a2 = 0.1 * G * G, 0.9 * 0.1 * G * G + 0.1 * G * G
    np.testing.assert_allclose(one_step(optimizers.rmsprop(lr)),
                               X0 - lr * G / np.sqrt(a1 + 1e-8) - lr * G / np.sqrt(a2 + 1e-8),
                               rtol=1e-6)
    mo1 = lr * G / np.sqrt(a1 + 1e-8)
    mo2 = 0.9 * mo1 + lr * G / np.sqrt(a2 + 1e-8)
    np.testing.assert_allclose(one_step(optimizers.rmsprop_momentum(lr)), X0 - mo1 - mo2,
                               rtol=1e-6)
    s1, s2 = G * G, 2 * G * G
    mg1 = 0.1 * G / np.sqrt(s1)
    mg2 = 0.1 * G / np.sqrt(s2) + 0.9 * mg1
    np.testing.assert_allclose(one_step(optimizers.adagrad(lr)), X0 - lr * (mg1 + mg2),
                               rtol=1e-6)
    # sm3 on a vector: one accumulator per entry, as adagrad
    np.testing.assert_allclose(one_step(optimizers.sm3(lr)), X0 - lr * (mg1 + mg2), rtol=1e-6)


def test_sm3_keeps_one_accumulator_per_axis():
    init, update, get = optimizers.sm3(0.1)
    s = update(0, np.ones((2, 3)), init(np.zeros((2, 3))))
    leaves = jax.tree_util.tree_leaves(s)
    assert (2,) in [tuple(np.shape(x)) for x in leaves] and (3,) in [tuple(np.shape(x))
                                                                    for x in leaves]
    np.testing.assert_allclose(np.asarray(get(s)), -0.1 * 0.1 * np.ones((2, 3)), rtol=1e-6)


def test_schedules_and_utilities():
    assert float(optimizers.exponential_decay(1.0, 10, 0.5)(20)) == pytest.approx(0.25)
    assert float(optimizers.inverse_time_decay(1.0, 10, 1.0, staircase=True)(15)) == 0.5
    assert float(optimizers.polynomial_decay(1.0, 10, 0.1)(5)) == pytest.approx(0.55)
    sched = optimizers.piecewise_constant([2, 5], [1.0, 0.5, 0.1])
    assert [float(sched(i)) for i in (0, 2, 3, 5, 6)] == pytest.approx([1.0, 1.0, 0.5, 0.5, 0.1])
    assert optimizers.make_schedule(0.3)(7) == 0.3
    tree = {"a": np.array([3.0]), "b": np.array([4.0])}
    assert float(optimizers.l2_norm(tree)) == pytest.approx(5.0)
    clipped = optimizers.clip_grads(tree, 1.0)
    assert float(optimizers.l2_norm(clipped)) == pytest.approx(1.0)
    init, update, get = optimizers.adam(0.1)
    s = update(0, tree, init(tree))
    packed = optimizers.pack_optimizer_state(optimizers.unpack_optimizer_state(s))
    assert packed.tree_def == s.tree_def
    np.testing.assert_allclose(np.asarray(get(packed)["a"]), np.asarray(get(s)["a"]))
    with pytest.raises(TypeError, match="make_schedule: expected a scalar step size"):
        optimizers.make_schedule([0.1, 0.2])
    with pytest.raises(TypeError, match="expected gradients with the parameters' tree"):
        update(1, {"a": np.ones(1)}, s)


def test_layers_match_numpy():
    rng = jax.random.key(0)
    x = np.random.default_rng(0).normal(size=(2, 6, 6, 3)).astype(np.float32)
    shape, (W, b) = stax.Conv(4, (3, 3), strides=(2, 1), padding="SAME")[0](rng, x.shape)
    out = stax.Conv(4, (3, 3), strides=(2, 1), padding="SAME")[1]((W, b), x)
    assert shape == out.shape == (2, 3, 6, 4)
    W, b = np.asarray(W), np.asarray(b)
    xp = np.pad(x, ((0, 0), (0, 1), (1, 1), (0, 0)))    # SAME: stride 2 pads (0, 1), 1 (1, 1)
    want = np.stack([np.stack([np.einsum("nhwc,hwco->no", xp[:, i * 2:i * 2 + 3, j:j + 3], W)
                               for j in range(6)], 1) for i in range(3)], 1) + b
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-4, atol=1e-5)
    pooled = stax.MaxPool((2, 2), (2, 2))[1]((), x)
    np.testing.assert_allclose(np.asarray(pooled), x.reshape(2, 3, 2, 3, 2, 3).max((2, 4)))
    avg = stax.AvgPool((2, 2), (2, 2))[1]((), x)
    np.testing.assert_allclose(np.asarray(avg), x.reshape(2, 3, 2, 3, 2, 3).mean((2, 4)),
                               rtol=1e-6)
    assert stax.AvgPool((3, 3), padding="SAME")[0](rng, x.shape)[0] == x.shape
    _, (beta, gamma) = stax.BatchNorm()[0](rng, x.shape)
    bn = np.asarray(stax.BatchNorm()[1]((beta, gamma), x))
    want = (x - x.mean((0, 1, 2))) / np.sqrt(x.var((0, 1, 2)) + 1e-5)
    np.testing.assert_allclose(bn, want, rtol=1e-4, atol=1e-5)
    assert stax.Flatten[0](rng, (-1, 6, 6, 3))[0] == (-1, 108)
    y = stax.Selu[1]((), np.array([-1.0, 2.0]))
    np.testing.assert_allclose(np.asarray(y), 1.0507009873554805 * np.array(
        [1.6732632423543772 * np.expm1(-1.0), 2.0]), rtol=1e-6)
    init, apply = stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(3), stax.Identity),
                              stax.FanInConcat())
    out_shape, params = init(rng, (-1, 5))
    assert out_shape == (-1, 8)
    assert apply(params, np.ones((4, 5), np.float32)).shape == (4, 8)
    dropped = np.asarray(stax.Dropout(0.5)[1]((), np.ones((100,)), rng=rng))
    assert set(np.unique(dropped)) <= {0.0, 2.0}
    np.testing.assert_array_equal(np.asarray(stax.Dropout(0.5, mode="test")[1](
        (), np.ones(3), rng=rng)), np.ones(3))
    with pytest.raises(ValueError, match="Dropout: apply_fun needs a PRNG key"):
        stax.Dropout(0.5)[1]((), np.ones(3))


def mnist_style(jax, jnp, optimizers, stax, params=None, steps=3):
    """JAX's examples/mnist_classifier.py, shrunk: stax MLP + optimizers.adam under jit."""
    init_random_params, predict = stax.serial(stax.Dense(16), stax.Relu, stax.Dense(10),
                                              stax.LogSoftmax)

    def loss(params, batch):
        inputs, targets = batch
        return -jnp.mean(jnp.sum(predict(params, inputs) * targets, axis=1))

    opt_init, opt_update, get_params = optimizers.adam(0.01)

    @jax.jit
    def update(i, opt_state, batch):
        return opt_update(i, jax.grad(loss)(get_params(opt_state), batch), opt_state)

    if params is None:
        _, params = init_random_params(jax.random.PRNGKey(0), (-1, 12))
    data = np.random.default_rng(3)
    batch = (data.normal(size=(8, 12)).astype(np.float32),
             np.eye(10, dtype=np.float32)[data.integers(0, 10, 8)])
    opt_state = opt_init(params)
    losses = []
    for i in range(steps):
        opt_state = update(i, opt_state, batch)
        losses.append(float(loss(get_params(opt_state), batch)))
    return params, losses


def test_mnist_style_program_trains():
    _, losses = mnist_style(jax, jnp, optimizers, stax)
    assert losses[-1] < losses[0]


def test_mnist_style_program_agrees_with_jax():
    real = pytest.importorskip("jax")
    from jax.example_libraries import optimizers as jopt, stax as jstax
    params, ours = mnist_style(jax, jnp, optimizers, stax)
    same = [tuple(np.asarray(p) for p in layer) for layer in params]
    _, theirs = mnist_style(real, real.numpy, jopt, jstax, params=same)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)


def test_namespaces_load_lazily():
    code = ("import sys, jitgrad as jg; assert 'jitgrad.scipy' not in sys.modules; "
            "assert 'jitgrad.example_libraries' not in sys.modules; assert 'scipy' not in "
            "sys.modules; f = jg.scipy.special.logsumexp; "
            "import jitgrad.example_libraries.stax; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
