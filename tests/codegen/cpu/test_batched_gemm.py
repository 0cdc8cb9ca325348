"""Batched products lowered as few BLAS calls: x[..., m, k] @ w[k, n] with a broadcast 2-D right
operand is one GEMM over prod(batch)*m rows (codegen/kernel/nest.MatmulNest.rows_merge); values
against NumPy on the compiled and interpreter paths, gradients against finite differences
(float64), and the cases that keep one call per batch element."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen.cpu.kernels.matmul import gemm_calls

rng = np.random.default_rng(0)


def _rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _gemm_kernels(f, *args):
    return [n for n in f.lower(*args).schedule if n.params["kind"] == "matmul"]


def _fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


# (x shape, w shape): big ones run as row blocks on the thread pool, small ones serially
SHAPES = [((8, 64, 128), (128, 96)), ((2, 16, 256), (256, 520)), ((2, 3, 5, 4), (4, 6)),
          ((3, 1, 7), (7, 2))]


@pytest.mark.parametrize("xs,ws", SHAPES)
@pytest.mark.parametrize("dtype,rtol", [(np.float32, 1e-5), (np.float64, 1e-12)])
def test_broadcast_weight_is_one_gemm(xs, ws, dtype, rtol):
    x, w, bias = _rand(*xs, dtype=dtype), _rand(*ws, dtype=dtype), _rand(ws[1], dtype=dtype)
    f = jg.jit(lambda x, w, b: x @ w + b)
    (k,) = _gemm_kernels(f, x, w, bias)
    assert gemm_calls(k) == 1
    want = x.astype(np.float64) @ w + bias
    np.testing.assert_allclose(np.asarray(f(x, w, bias)), want, rtol=rtol, atol=rtol)


def test_transposed_weight_and_batch_of_one_leading_dims():
    x, w = _rand(4, 2, 6, 8), _rand(5, 8)        # nn.Linear: x @ W.T
    f = jg.jit(lambda x, w: jnp.tanh(x @ w.T))
    (k,) = _gemm_kernels(f, x, w)
    assert gemm_calls(k) == 1
    np.testing.assert_allclose(np.asarray(f(x, w)), np.tanh(x @ w.T), rtol=1e-5, atol=1e-6)


def test_cases_that_stay_per_batch():
    x, w = _rand(3, 6, 4), _rand(6, 5)
    t = jg.jit(lambda x, w: jnp.swapaxes(x, -1, -2) @ w)        # left operand read transposed
    (k,) = _gemm_kernels(t, x, w)
    assert gemm_calls(k) == 3
    np.testing.assert_allclose(np.asarray(t(x, w)), np.swapaxes(x, -1, -2) @ w, rtol=1e-5)
    a, b = _rand(3, 6, 4), _rand(3, 4, 5)                       # a real batch on both sides
    bb = jg.jit(lambda a, b: a @ b)
    (k,) = _gemm_kernels(bb, a, b)
    assert gemm_calls(k) == 3
    np.testing.assert_allclose(np.asarray(bb(a, b)), a @ b, rtol=1e-5)
    m, v = _rand(6, 4), _rand(3, 4, 5)                          # the left operand broadcast
    lb = jg.jit(lambda m, v: m @ v)
    (k,) = _gemm_kernels(lb, m, v)
    assert gemm_calls(k) == 3
    np.testing.assert_allclose(np.asarray(lb(m, v)), m @ v, rtol=1e-5)


def test_interpreter_agrees(monkeypatch):
    x, w = _rand(2, 5, 3), _rand(3, 4)
    monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    np.testing.assert_allclose(np.asarray(jg.jit(lambda x, w: x @ w)(x, w)), x @ w, rtol=1e-5)


def test_gradients_against_finite_differences():
    x, w = _rand(2, 3, 4, dtype=np.float64), _rand(4, 5, dtype=np.float64)
    c = _rand(2, 3, 5, dtype=np.float64)

    def loss(x, w):
        return jnp.sum(jnp.tanh(x @ w) * c)
    gx, gw = jg.jit(jg.grad(loss, argnums=(0, 1)))(x, w)
    np_loss = lambda x, w: np.sum(np.tanh(x @ w) * c)       # noqa: E731
    np.testing.assert_allclose(np.asarray(gx), _fd_grad(lambda v: np_loss(v, w), x), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(np.asarray(gw), _fd_grad(lambda v: np_loss(x, v), w), rtol=1e-6,
                               atol=1e-8)


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 1e-4), (np.float64, 1e-12)])
def test_large_products_in_row_blocks(dtype, rtol):
    """Products big enough for the thread pool, split in row blocks; every operand layout
    (transposed or not) against NumPy."""
    a, b = _rand(96, 300, dtype=dtype), _rand(300, 700, dtype=dtype)
    at, bt = np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)
    want = a.astype(np.float64) @ b
    for f, args in ((lambda a, b: a @ b, (a, b)), (lambda at, b: at.T @ b, (at, b)),
                    (lambda a, bt: a @ bt.T, (a, bt)), (lambda at, bt: at.T @ bt.T, (at, bt))):
        np.testing.assert_allclose(np.asarray(jg.jit(f)(*args)), want, rtol=rtol, atol=rtol)
        np.testing.assert_allclose(np.asarray(jg.jit(lambda x, y: f(x, y).T)(*args)), want.T,
                                   rtol=rtol, atol=rtol)


def test_pool_blocks_follow_the_shapes():
    """gemm_blocks: thin blocks for OpenBLAS's unpacked small kernel along the side that needs
    fewer (rows of a forward GEMM, columns of a weight gradient), a whole small product per
    batch element (attention), few row blocks (of 128 rows at least) for products too wide for thin blocks. The test
    above runs the column (96x300x700) and row (512-row) forms against NumPy."""
    from jitgrad.codegen.cpu.kernels.matmul import gemm_blocks
    assert gemm_blocks(512, 128, 512, 1) == ("n", 35)
    assert gemm_blocks(128, 512, 512, 1) == ("m", 35)
    assert gemm_blocks(96, 700, 300, 1)[0] == "m"
    assert gemm_blocks(64, 64, 32, 32) == ("n", 1)
    assert gemm_blocks(256, 512, 784, 1) == ("n", 2)      # blocks of 128 rows at least: each
    assert gemm_blocks(784, 512, 256, 1) == ("n", 6)      # block re-packs the other operand
    assert gemm_blocks(4096, 512, 784, 1) == ("n", 16)    # and 16 blocks at most
    assert gemm_blocks(200, 512, 784, 1) == ("m", 4)      # one row block: columns instead
    assert gemm_blocks(128, 128, 512, 1, small=False) == ("n", 1)    # neither side makes two
    # a convolution's per-image GEMM: 3 small column blocks per image, no packing
    assert gemm_blocks(16, 1088, 144, 32) == ("m", 3)


def test_thin_blocks_only_where_openblas_has_its_small_kernel():
    """gemm_blocks' thin blocks are for OpenBLAS's unpacked small-matrix kernel, which only its
    AVX-512 cores have; on the others (Haswell's kernels on an AVX2 CPU) each thin block packs,
    so matmul kernels ask for packed row blocks there."""
    from jitgrad.codegen.cpu.kernels import matmul
    from jitgrad.codegen.cpu.llvm_jit import blas_core
    assert blas_core() == "" or blas_core().isalnum()        # OpenBLAS's name for the core
    for core, small in (("SkylakeX", True), ("Haswell", False), ("Zen", False), ("", False)):
        assert matmul.blas_small_kernel(core) is small
    assert matmul.blas_small_kernel() is matmul.blas_small_kernel(blas_core())
