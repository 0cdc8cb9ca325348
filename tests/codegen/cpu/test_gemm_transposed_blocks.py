"""A product whose right operand is stored transposed (`x @ W.T`) runs in packed row blocks,
not in OpenBLAS's small-matrix kernel (2-4x slower for that layout): the split, and values."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen.cpu.kernels.matmul import gemm_blocks


def test_split():
    assert gemm_blocks(512, 512, 128, 1) == ("n", 35)                 # small-kernel blocks
    assert gemm_blocks(512, 512, 128, 1, small=False) == ("n", 4)     # 4 packed blocks of 128
    assert gemm_blocks(16, 512, 128, 1, small=False) == ("m", 4)     # too few rows: columns
    assert gemm_blocks(128, 512, 512, 1, small=False) == ("m", 4)    # a weight gradient


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


@pytest.mark.parametrize("shape", [(128, 512, 512), (200, 96, 784), (16, 64, 512)])
def test_packed_column_blocks_values(shape, monkeypatch):
    """Products with too few rows for two row blocks run in packed column blocks (BLAS forced
    for every layout, as on a CPU without OpenBLAS's small-matrix kernel)."""
    from jitgrad.codegen.cpu import llvm_small_gemm
    from jitgrad.codegen.cpu.kernels import matmul
    # another CPU, simulated: no option picks the kernels' GEMM (these public policy functions do)
    monkeypatch.setattr(llvm_small_gemm, "use_for", lambda *a, **kw: None)
    monkeypatch.setattr(matmul, "blas_small_kernel", lambda: False)
    m, k, n = shape
    assert gemm_blocks(m, n, k, 1, small=False)[0] == "m"
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(
        np.float32)
    want = a.astype(np.float64) @ b
    for f, args in ((lambda a, b: a @ b, (a, b)), (lambda at, b: at.T @ b, (a.T.copy(), b)),
                    (lambda a, bt: a @ bt.T, (a, b.T.copy())),
                    (lambda at, bt: at.T @ bt.T, (a.T.copy(), b.T.copy()))):
        np.testing.assert_allclose(np.asarray(jg.jit(f)(*args)), want, rtol=1e-4, atol=1e-3)
