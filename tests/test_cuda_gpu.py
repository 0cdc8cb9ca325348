"""Tests that need a real GPU: they skip cleanly without one (CI), and run wherever
jg.cuda.is_available() is True outside the simulator."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.runtime.cuda_device import simulator_enabled

pytestmark = pytest.mark.skipif(not jg.cuda.is_available() or simulator_enabled(),
                                reason="needs a real CUDA GPU")


def test_eager_kernels_match_numpy_on_gpu(rng):
    a = rng.standard_normal((300, 2000)).astype(np.float32)
    b = rng.standard_normal((2000, 70)).astype(np.float32)
    x, y = jg.tensor(a, device="cuda"), jg.tensor(b, device="cuda")
    np.testing.assert_allclose((x @ y).numpy(), a @ b, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(jnp.sum(x, axis=1).numpy(), a.sum(1), rtol=1e-4, atol=1e-3)
    np.testing.assert_array_equal(jnp.argmax(x, axis=1).numpy(), a.argmax(1))
    np.testing.assert_allclose(jnp.tanh(x * 2 + 1).numpy(), np.tanh(a * 2 + 1), rtol=1e-5,
                               atol=1e-6)


def test_cuda_array_interface_shares_device_memory():
    from numba import cuda
    x = jg.tensor(np.arange(8, dtype=np.float32), device="cuda")
    view = cuda.as_cuda_array(x)
    assert view.__cuda_array_interface__["data"][0] == x.__cuda_array_interface__["data"][0]
    back = jg.from_dlpack(view)          # objects with only __cuda_array_interface__ work too
    assert back.device.type == "cuda"
    np.testing.assert_array_equal(back.numpy(), np.arange(8, dtype=np.float32))


def test_dlpack_round_trip_on_the_gpu():
    x = jg.tensor(np.arange(6, dtype=np.float64).reshape(2, 3), device="cuda")
    assert x.__dlpack_device__() == (2, 0)
    y = jg.from_dlpack(_Producer(x))
    assert y.__cuda_array_interface__["data"][0] == x.__cuda_array_interface__["data"][0]
    np.testing.assert_array_equal(y.numpy(), x.numpy())


class _Producer:
    """A foreign producer: forces the capsule path instead of the jitgrad-tensor shortcut."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_memory_is_reused_after_free():
    jg.cuda.empty_cache()
    x = jg.zeros(1 << 20, device="cuda")
    reserved = jg.cuda.memory_reserved()
    del x
    y = jg.zeros(1 << 20, device="cuda")
    jg.cuda.synchronize()
    assert jg.cuda.memory_reserved() == reserved
    del y
