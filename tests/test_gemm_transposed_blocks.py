"""A product whose right operand is stored transposed (`x @ W.T`) runs in packed row blocks,
not in OpenBLAS's small-matrix kernel (2-4x slower for that layout): the split, and values."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen.cpu.llvm_kernels import gemm_blocks


def test_split():
    assert gemm_blocks(512, 512, 128, 1) == ("n", 35)                 # small-kernel blocks
    assert gemm_blocks(512, 512, 128, 1, small=False) == ("n", 4)     # 4 packed blocks of 128
    assert gemm_blocks(16, 512, 128, 1, small=False) == ("n", 1)


@pytest.mark.parametrize("shape", [(512, 128, 512), (16, 128, 512), (300, 70, 45), (32, 16, 8)])
def test_values(shape):
    m, k, n = shape
    rng = np.random.default_rng(0)
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    got = np.asarray(jg.jit(lambda x, w, b: x @ w.T + b)(x, w, b))
    np.testing.assert_allclose(got, x.astype(np.float64) @ w.T.astype(np.float64) + b, rtol=1e-4,
                               atol=1e-4)
