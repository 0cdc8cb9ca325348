"""Tensor-core matmuls on CUDA (codegen/cuda/tiles.TensorCoreTiles with codegen/cuda/mma.py's
m16n8k8 TF32 products): every warp layout of the tiling with ragged edges, through the eager
kernel and a jitted product with an epilogue, against float64 NumPy with the error bound of
each float32_matmul_precision ("highest": 3xTF32, float32's bound; "high": TF32's, and not
float32's, so the option is seen to act). The simulator runs the mma as NumPy per lane from the
same shared tiles and TF32 parts. Run by tests/codegen/cuda/test_cuda_sim_runner.py; the PTX (HMMA present,
no spills) is checked in tests/codegen/cuda/test_cuda_kernels_ptx.py and tests/programs/test_cuda_static.py."""
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402
from jitgrad.codegen.cuda import eager as cuda_eager, mma, tiles  # noqa: E402

U = 2.0 ** -24      # float32's unit roundoff


@pytest.fixture
def precision():
    def use(p):
        jg.set_float32_matmul_precision(p)
    yield use
    jg.config.reset("float32_matmul_precision")


def test_tf32_rounds_to_nearest_ties_away_and_keeps_infinities():
    x = np.array([1 + 2 ** -11, -(1 + 2 ** -11), 1 + 2 ** -11 - 2 ** -23, 1 + 3 * 2 ** -11,
                  np.inf, -np.inf, np.finfo(np.float32).max, 2.0 ** -130, 2.0 ** -140], np.float32)
    got = mma._sim_tf32(x)
    want = [1 + 2 ** -10, -(1 + 2 ** -10), 1.0, 1 + 2 ** -9, np.inf, -np.inf, np.inf, 2.0 ** -130,
            0.0]      # tf32 subnormals keep 10 bits too: 2^-140 is below half of 2^-136
    np.testing.assert_array_equal(got, np.array(want, np.float32))
    assert np.isnan(mma._sim_tf32(np.array([np.nan], np.float32))[0])
    low_payload_nan = np.array([0x7F800001], np.uint32).view(np.float32)
    head = mma._sim_tf32(low_payload_nan)      # the head is inf, the tail x - head a NaN
    with np.errstate(invalid="ignore"):
        assert np.isinf(head[0]) and np.isnan(low_payload_nan - head)[0]
    assert not (mma._sim_tf32(np.random.default_rng(0).standard_normal(100).astype(np.float32))
                .view(np.uint32) & 0x1FFF).any()


def _bound(a, b, precision):
    """|error| allowed per output: float32's dot-product bound (K + 8) u |a| |b| for 3xTF32
    (each part product is exact to ~2^-21 relative, the sums are float32's), TF32's 2^-10
    relative per term on top for one TF32 product."""
    k = a.shape[-1]
    per_term = (k + 8) * U + (2.0 ** -10 if precision == "high" else 0.0)
    return per_term * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))


# (m, n, k): which tiles (matmul_regs) and warp layout each takes
LAYOUTS = {"64x64 tiles, 2x4 warps of 2x2": (70, 66, 24), "64x16, 4x2 warps of 1x1": (64, 20, 24),
           "16x64, 1x8 warps of 1x1": (20, 70, 17), "16x16, 2 of 8 warps": (10, 12, 9)}


# every layout at the default precision; TF32 on the cheapest layout with whole and ragged tiles
CASES = [(layout, "highest") for layout in LAYOUTS] + [("64x16, 4x2 warps of 1x1", "high")]


@pytest.mark.parametrize("layout,p", CASES)
def test_eager_tiled_matmul_on_tensor_cores(rng, precision, layout, p):
    precision(p)
    m, n, k = LAYOUTS[layout]
    rm, rn = tiles.matmul_regs(m, n)
    assert isinstance(tiles.tiles_for(np.float32, rm, rn), tiles.TensorCoreTiles)
    a = rng.standard_normal((1, m, k)).astype(np.float32)
    b = rng.standard_normal((1, k, n)).astype(np.float32)
    out = cuda_eager.empty((1, m, n), np.float32)
    da, db = jg.tensor(a, device="cuda")._data, jg.tensor(b, device="cuda")._data
    cuda_eager.matmul_into(out, da, db, 1, m, n, k, "tiled")
    got, want = out.copy_to_host(), a.astype(np.float64) @ b.astype(np.float64)
    err = np.abs(got - want)
    assert (err <= _bound(a, b, p)).all(), err.max()
    if p == "high":     # TF32 really is in use: float32's bound does not hold
        assert (err > _bound(a, b, "highest")).any()


@pytest.mark.parametrize("p", ["high"])     # "highest": tests/cuda_sim/test_cuda_split_k.py
def test_jitted_product_with_epilogue_and_split_k(rng, precision, p):
    precision(p)
    x = rng.standard_normal((16, 200)).astype(np.float32)      # one tile, K in 3 shares
    w = rng.standard_normal((200, 24)).astype(np.float32)
    bias = rng.standard_normal(24).astype(np.float32)

    def f(x, w, bias):
        return jnp.maximum(x @ w + bias, 0.0)
    jf = jg.jit(f)
    args = [jg.tensor(v, device="cuda") for v in (x, w, bias)]
    kernels = jf.lower(*args).kernels
    assert ("tensor cores (3xTF32)" if p == "highest" else "tensor cores (TF32)") in kernels
    assert "K in 3 shares" in kernels
    got = jf(*args).numpy()
    want = np.maximum(x.astype(np.float64) @ w + bias, 0)
    assert (np.abs(got - want) <= _bound(x, w, p) + 4 * U * np.abs(want)).all()
    np.testing.assert_array_equal(jf(*args).numpy(), got)     # the same bits every launch


def test_other_dtypes_and_small_blocks_keep_ffma():
    assert isinstance(tiles.tiles_for(np.float64, 4, 4), tiles.FfmaTiles)
    assert isinstance(tiles.tiles_for(np.int32, 4, 4), tiles.FfmaTiles)
    assert isinstance(tiles.tiles_for(np.float32, 4, 4, threads=4), tiles.FfmaTiles)
