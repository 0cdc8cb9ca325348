"""The toolchain's three test kernels, run by numba-cuda's simulator and compared with NumPy.

Runs only with NUMBA_ENABLE_CUDASIM=1 set before numba.cuda is imported, i.e. in its own process:
tests/codegen/cuda/test_cuda_sim_runner.py starts one. Sizes stay at a few thousand elements because the
simulator runs each CUDA thread as a Python thread.
"""
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled():
    pytest.skip(
        "needs NUMBA_ENABLE_CUDASIM=1 (run by tests/codegen/cuda/test_cuda_sim_runner.py)", allow_module_level=True
    )
if importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("numba-cuda is not installed: pip install 'jitgrad[cuda]'", allow_module_level=True)

from numba import cuda  # noqa: E402  (the simulator, given the variable)

from jitgrad.runtime import cuda_sim  # noqa: E402

from .kernels import BLOCK, TILE, block_sum, elementwise_grid_stride, matmul_tiled  # noqa: E402


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def test_elementwise_grid_stride(rng):
    n = 4000  # 4 blocks x 64 threads: each thread strides over ~16 elements
    x, y = rng.standard_normal((2, n), dtype=np.float32)
    out = np.zeros(n, np.float32)
    cuda.jit(elementwise_grid_stride)[4, 64](x, y, out)
    np.testing.assert_allclose(out, x * y + np.exp(-x * x), rtol=1e-5, atol=1e-6)


def test_block_sum_with_warp_shuffles(rng):
    cuda_sim.install()   # jitgrad's shuffle emulation, which its own kernels get automatically
    n, blocks = 3000, 2  # n is no multiple of the 256 threads, so the tail is masked
    x = rng.standard_normal(n, dtype=np.float32)
    partial = np.zeros(blocks, np.float32)
    cuda.jit(block_sum)[blocks, BLOCK](x, partial)
    # Block b read the b-th BLOCK-wide column of x laid out in rows of blocks*BLOCK.
    expected = np.pad(x, (0, -n % (blocks * BLOCK))).reshape(-1, blocks, BLOCK).sum(axis=(0, 2))
    np.testing.assert_allclose(partial, expected, rtol=1e-5, atol=1e-4)


def test_matmul_tiled(rng):
    m, k, n = 33, 20, 37  # none a multiple of TILE: edge tiles load zeros
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c = np.zeros((m, n), np.float32)
    grid = (-(-n // TILE), -(-m // TILE))
    cuda.jit(matmul_tiled)[grid, (TILE, TILE)](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def _half_warp_shuffle(x, out):
    i = cuda.threadIdx.x
    out[i] = cuda.shfl_down_sync(0xFFFF, x[i], 1)


def test_partial_warp_shuffle_is_refused_with_the_mask():
    cuda_sim.install()
    x = np.arange(32, dtype=np.float32)
    with pytest.raises(NotImplementedError, match=r"full warps only \(mask 0xFFFFFFFF\), got mask 0xffff"):
        cuda.jit(_half_warp_shuffle)[1, 32](x, np.zeros(32, np.float32))
