"""@jit on cuda under the simulator: scan, while_loop, cond and switch run their compiled
sub-graphs from a host loop (codegen/cuda/loops.py), equal to the CPU; gradients of a scan too.
Run by tests/codegen/cuda/test_cuda_sim_runner.py."""
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402


def loops(w, xs, k):
    def cell(h, x):
        h = jnp.tanh(x + h * w)
        return h, jnp.sum(h)
    h, ys = jg.scan(cell, jnp.zeros(4, dtype=jnp.float32), xs)
    _, back = jg.scan(lambda c, x: (c + x, c), h, xs, reverse=True)
    n = jg.while_loop(lambda c: jnp.max(c[1]) < 3.0,
                      lambda c: (c[0] + 1, c[1] * 1.5 + 0.1), (jnp.asarray(0), jnp.abs(h)))
    s = jg.cond(jnp.sum(n[1]) > 5.0, lambda v: v * 2.0, lambda v: -v, n[1])
    t = jg.switch(k, [lambda v: v + 1.0, lambda v: jnp.sin(v), lambda v: v], s)
    return t, ys, back, n[0]


@pytest.mark.parametrize("k", [-2, 1, 9])
def test_loops_and_branches_on_cuda_match_the_cpu(k):
    rng = np.random.default_rng(0)
    w, xs = rng.random(4).astype(np.float32), rng.random((3, 4)).astype(np.float32)
    want = [np.asarray(v) for v in jg.jit(loops)(w, xs, np.int32(k))]
    got = jg.jit(loops)(*[jg.tensor(a, device="cuda") for a in (w, xs, np.int32(k))])
    for g, v in zip(got, want):
        assert g.device == jg.device("cuda")
        np.testing.assert_allclose(g.numpy(), v, rtol=1e-5, atol=1e-6)


def test_grad_of_a_scan_on_cuda():
    def f(w, xs):
        _, hs = jg.scan(lambda h, x: (jnp.tanh(x + h * w),) * 2, jnp.zeros(3, jnp.float32), xs)
        return jnp.sum(hs)
    rng = np.random.default_rng(1)
    w, xs = rng.random(3).astype(np.float32), rng.random((4, 3)).astype(np.float32)
    want = np.asarray(jg.jit(jg.grad(f))(w, xs))
    got = jg.jit(jg.grad(f))(jg.tensor(w, device="cuda"), jg.tensor(xs, device="cuda"))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
