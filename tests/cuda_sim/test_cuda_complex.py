"""Complex numbers on a cuda device (under the simulator): the kernels have no complex
arithmetic, so eager ops and jit on complex values are a clear error, never a wrong number.
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

MSG = r"complex numbers and the fft run on the CPU only \(move the arrays with .to\('cpu'\)\)"


def test_complex_ops_and_fft_on_cuda_are_clear_errors():
    z = jnp.asarray(np.array([1 + 2j, 3 - 1j])).to("cuda")
    x = jnp.asarray(np.array([1.0, 2.0, 3.0, 4.0])).to("cuda")
    with pytest.raises(NotImplementedError, match="exp on cuda: " + MSG):
        jnp.exp(z)
    with pytest.raises(NotImplementedError, match="fft on cuda: " + MSG):
        jnp.fft.rfft(x)
    with pytest.raises(NotImplementedError, match=r"jit on cuda.*: fft has complex values.*" + MSG):
        jg.jit(lambda a: jnp.abs(jnp.fft.rfft(a)))(x)
    np.testing.assert_allclose(np.asarray(jnp.fft.rfft(x.to("cpu"))), np.fft.rfft([1.0, 2, 3, 4]))
