"""Split-K on CUDA (codegen/cuda/fused/matmul.k_split): a product whose output tiles leave an H100's SMs
idle sums K in shares, each block storing a partial tile; the last block of a tile (an atomic
ticket, reset for the next launch) sums the shares in order and applies the epilogue. Checked
against NumPy through the backend, twice per function (the ticket and the bits of a second
launch), with a bias/relu epilogue, a transposed operand, a batch, and a K the shares do not
divide. Run by tests/codegen/cuda/test_cuda_sim_runner.py."""
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import jitgrad as jg  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402
from jitgrad.codegen.cuda.fused import GENERATORS  # noqa: E402
from jitgrad.codegen.cuda.fused.matmul import k_split  # noqa: E402
from jitgrad.ir.kernel import kernel_nodes  # noqa: E402
from jitgrad.ir.passes.manager import run_pipeline  # noqa: E402


def test_the_split_fills_the_sms_and_keeps_whole_k_tiles():
    assert k_split(256, 512, 784, (), "float32") == 9         # 32 tiles of 64x64 -> 288 blocks
    assert k_split(4096, 4096, 4096, (), "float32") == 1      # 4096 tiles: no split
    assert k_split(16, 16, 48, (), "float32") == 1            # 3 K-tiles: too shallow to share
    assert k_split(16, 16, 4096, (), "float32") == 32         # at most MAX_K_SPLIT shares
    assert k_split(16, 16, 4096, (), "int32") == 1            # partials read back by atomics


def _kernel_text(fn, *shapes):
    graph = jg.jit(fn).lower(*[jg.ShapeDtype(s, "float32") for s in shapes]).graph
    (node,) = [n for n in kernel_nodes(*run_pipeline(graph)[:2]) if n.params["kind"] == "matmul"]
    return GENERATORS["matmul"]("k_test", node).source.text


@pytest.mark.parametrize("case", ["bias_relu", "transposed_batched", "uneven_k"])
def test_split_k_products_match_numpy_twice(rng, case):
    if case == "bias_relu":         # [16, 256] @ [256, 16]: one tile, 4 shares of 64
        shapes = [(16, 256), (256, 16), (16,)]
        f, want = (lambda x, w, b: jnp.maximum(x @ w + b, 0.0)), \
            (lambda x, w, b: np.maximum(x @ w + b, 0))
    elif case == "transposed_batched":     # [2, 16, 192] @ W.T: two tiles, 3 shares
        shapes = [(2, 16, 192), (16, 192)]
        f, want = (lambda x, w: jnp.tanh(x @ w.T)), (lambda x, w: np.tanh(x @ w.T))
    else:                           # K = 200: shares of 80, 80 and 40
        shapes = [(16, 200), (200, 16)]
        f, want = (lambda x, w: x @ w * 2.0), (lambda x, w: x @ w * 2)
    assert "K in " in _kernel_text(f, *shapes)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    jf = jg.jit(f)
    first = jf(*[jg.tensor(a, device="cuda") for a in arrays]).numpy()
    second = jf(*[jg.tensor(a, device="cuda") for a in arrays]).numpy()
    np.testing.assert_allclose(first, want(*arrays), rtol=2e-5, atol=2e-5)
    np.testing.assert_array_equal(first, second)
