"""cuda_fast_math on the cuda device under the simulator: eager ops and a jitted function run with
the option on (the kernels are jitted with numba's fastmath, which the simulator accepts and
computes exactly) and give the CPU's values, gradients included. The PTX side is tests/codegen/cuda/test_cuda_fast_math_ptx.py. Run by tests/codegen/cuda/test_cuda_sim_runner.py."""
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402


def f(x):
    return jnp.sqrt(jnp.exp(x)) / (x * x + 1.0)


@pytest.fixture
def fast_math():
    jg.config.update("cuda_fast_math", True)
    yield
    jg.config.reset("cuda_fast_math")


def test_eager_and_jit_under_fast_math_match_the_cpu(fast_math):
    x = np.linspace(-3, 3, 37).astype(np.float32)
    want = f(jnp.asarray(x)).numpy()
    xc = jg.tensor(x, device="cuda")
    np.testing.assert_allclose(f(xc).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(jg.jit(f)(xc).numpy(), want, rtol=1e-5)
    g = jg.jit(jg.grad(lambda x: jnp.sum(f(x))))
    np.testing.assert_allclose(g(xc).numpy(), jg.grad(lambda x: jnp.sum(f(x)))(jnp.asarray(x)).numpy(),
                               rtol=1e-5)
