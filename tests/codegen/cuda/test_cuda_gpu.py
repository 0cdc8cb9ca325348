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


def test_fused_layouts_at_benchmark_sizes(rng):
    """Each kernel layout at a size where it engages on hardware: a full reduction split over
    1024 blocks (twice, so the ticket reset is checked), coalesced column sums, rows cached in
    shared memory and rows too long for it, register-tiled matmul with its epilogue."""
    import jitgrad.nn.functional as F
    v = rng.standard_normal(10_000_000, dtype=np.float32)
    sum_sq = jg.jit(lambda x: jnp.sum(x * x))
    vd = jg.tensor(v, device="cuda")
    for _ in range(2):
        np.testing.assert_allclose(sum_sq(vd).numpy(), np.sum(v.astype(np.float64) ** 2),
                                   rtol=1e-4)
    m = rng.standard_normal((4096, 1024), dtype=np.float32)
    md = jg.tensor(m, device="cuda")
    np.testing.assert_allclose(jg.jit(lambda x: jnp.sum(x, axis=0))(md).numpy(), m.sum(0),
                               rtol=1e-4, atol=1e-3)
    for shape in ((4096, 1024), (64, 16384)):
        x = rng.standard_normal(shape, dtype=np.float32)
        e = np.exp(x - x.max(-1, keepdims=True))
        got = jg.jit(lambda x: F.softmax(x, axis=-1))(jg.tensor(x, device="cuda")).numpy()
        np.testing.assert_allclose(got, e / e.sum(-1, keepdims=True), rtol=1e-4, atol=1e-7)
    a = rng.standard_normal((1000, 784), dtype=np.float32)
    w = rng.standard_normal((784, 515), dtype=np.float32)
    got = jg.jit(lambda a, w: F.relu(a @ w))(jg.tensor(a, device="cuda"),
                                             jg.tensor(w, device="cuda")).numpy()
    np.testing.assert_allclose(got, np.maximum(a @ w, 0), rtol=1e-3, atol=1e-3)
