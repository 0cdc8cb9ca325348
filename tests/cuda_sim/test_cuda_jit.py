"""@jit on cuda tensors under the simulator: fused elementwise kernels and the launcher match
NumPy for the benchmark workloads at small sizes. Run by tests/test_cuda_sim_runner.py."""
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda_toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
import jitgrad.nn.functional as F  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def ew_chain(x):
    return jnp.tanh(x * 2.0 + 1.0) * x - jnp.exp(-x * x) * 0.5


def layernorm(x, w, b):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + 1e-5) * w + b


def _check(fn, *arrays, rtol=1e-5, atol=1e-6):
    want = fn(*[jg.tensor(a) for a in arrays])
    got = jg.jit(fn)(*[jg.tensor(a, device="cuda") for a in arrays])
    for g, w in zip(jg.tree_util.tree_leaves(got), jg.tree_util.tree_leaves(want)):
        assert g.device == jg.device("cuda")
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol, atol=atol)


def test_ew_chain_is_one_fused_kernel(rng):
    a = rng.standard_normal((16, 128)).astype(np.float32)
    _check(ew_chain, a, rtol=1e-4)
    lowered = jg.jit(ew_chain).lower(jg.tensor(a, device="cuda"))
    assert len(lowered.schedule) == 1
    assert "while i < 2048:" in lowered.kernels and "math.tanh" in lowered.kernels


def test_softmax(rng):
    _check(lambda x: F.softmax(x, axis=-1), rng.standard_normal((8, 96)).astype(np.float32))


def test_layernorm(rng):
    x = rng.standard_normal((8, 64)).astype(np.float32)
    w = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    _check(layernorm, x, w, b, rtol=1e-4, atol=1e-5)


def test_mlp_training_step(rng):
    def loss(params, x, y):
        w1, b1, w2, b2 = params
        h = F.relu(x @ w1 + b1)
        logits = h @ w2 + b2
        return -jnp.mean(jnp.sum(F.log_softmax(logits, axis=-1) * y, axis=-1))

    def step(params, x, y):
        value, grads = jg.value_and_grad(loss)(params, x, y)
        return value, [p - 0.1 * g for p, g in zip(params, grads)]

    params = [rng.standard_normal(s).astype(np.float32) * 0.3 for s in [(12, 16), (16,),
                                                                        (16, 4), (4,)]]
    x = rng.standard_normal((8, 12)).astype(np.float32)
    y = np.eye(4, dtype=np.float32)[rng.integers(0, 4, 8)]
    want_v, want_p = step([jg.tensor(p) for p in params], jg.tensor(x), jg.tensor(y))
    got_v, got_p = jg.jit(step)([jg.tensor(p, device="cuda") for p in params],
                                jg.tensor(x, device="cuda"), jg.tensor(y, device="cuda"))
    np.testing.assert_allclose(got_v.numpy(), want_v.numpy(), rtol=1e-5)
    for g, w in zip(got_p, want_p):
        assert g.device.type == "cuda"
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-4, atol=1e-6)
