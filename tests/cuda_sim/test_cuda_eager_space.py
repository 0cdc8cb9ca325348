"""CUDA's eager elementwise and strided-copy kernels walk the jit kernels' Space with runtime
extents and strides (codegen/kernel/space.py): one kernel per op/dtype/rank serves every shape,
broadcast, reversal and offset; each against NumPy. Run by
tests/codegen/cuda/test_cuda_sim_runner.py."""
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
from jitgrad.codegen.cuda import eager as cuda_eager  # noqa: E402


def _host(device_array):
    return device_array.copy_to_host()


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_rank3_broadcast_reads_by_runtime_strides(dtype, rng):
    """(2, 3, 4) * (2, 1, 4): no two axes merge, so the rank-3 kernel runs, reading the
    broadcast operand at stride 0 along the middle axis."""
    x = rng.integers(-9, 9, (2, 3, 4)).astype(dtype)
    y = rng.integers(-9, 9, (2, 1, 4)).astype(dtype)
    shape, _ = cuda_eager.collapse_strided(x.shape, cuda_eager.broadcast_strides(y.shape, x.shape))
    assert len(shape) == 3
    got = (jg.tensor(x, device="cuda") * jg.tensor(y, device="cuda")).numpy()
    np.testing.assert_array_equal(got, x * y)


@pytest.mark.parametrize("out_offset, out_strides, src_offset, src_strides, shape", [
    (0, (3, 1), 0, (1, 4), (4, 3)),          # a transpose
    (0, (5, 1), 14, (-5, 1), (3, 5)),        # rows reversed, from the last one (rev)
    (2, (8, 2), 1, (6, 3), (2, 3)),          # slices with steps on both sides, offsets
    (0, (4, 1), 0, (0, 1), (3, 4)),          # a broadcast: stride 0
    (5, (), 7, (), ()),                      # rank 0: one element, offsets only
])
def test_strided_copy_addresses_what_numpy_reads(out_offset, out_strides, src_offset,
                                                 src_strides, shape):
    src = np.arange(20, dtype=np.float64) + 0.5
    out = cuda_eager.upload(np.zeros(16))
    cuda_eager.strided_copy(out, out_offset, out_strides, cuda_eager.upload(src), src_offset,
                            src_strides, shape)
    want = np.zeros(16)
    for idx in np.ndindex(*shape):
        want[out_offset + np.dot(idx, out_strides).astype(int)] = \
            src[src_offset + np.dot(idx, src_strides).astype(int)]
    np.testing.assert_array_equal(_host(out), want)


def test_flip_slice_and_pad_on_device(rng):
    x = rng.standard_normal((3, 6)).astype(np.float32)
    t = jg.tensor(x, device="cuda")
    np.testing.assert_array_equal(jg.flip(t, (0, 1))[:, 1::2].numpy(), x[::-1, ::-1][:, 1::2])
    np.testing.assert_array_equal(jg.nn.functional.pad(t, (1, 2)).numpy(),
                                  np.pad(x, ((0, 0), (1, 2))))


def test_thread_matmul_unravels_batch_row_column(rng):
    """(2, 3, 4) @ (2, 4, 5): one thread per output, (batch, row, column) unravelled by the Space."""
    a = rng.integers(-3, 4, (2, 3, 4)).astype(np.float64)
    b = rng.integers(-3, 4, (2, 4, 5)).astype(np.float64)
    assert a.shape[1] * b.shape[2] * a.shape[2] < cuda_eager.TILED_MATMUL_WORK
    got = (jg.tensor(a, device="cuda") @ jg.tensor(b, device="cuda")).numpy()
    np.testing.assert_array_equal(got, a @ b)


def test_gather_along_a_middle_axis_and_its_bounds(rng):
    x = rng.standard_normal((2, 5, 3)).astype(np.float32)
    t = jg.tensor(x, device="cuda")
    idx = np.array([4, -1, 0, 2])
    np.testing.assert_array_equal(t[:, jg.tensor(idx, device="cuda")].numpy(), x[:, idx])
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        t[:, jg.tensor(np.array([1, 5]), device="cuda")].numpy()
