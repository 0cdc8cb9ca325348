"""Eager float products split over the runtime's pool (jitgrad/eager/pool_gemm.py): the same
values as NumPy for every operand layout BLAS reads in place (C-ordered, transposed views, row
slices), by rows and by columns, in float32 and float64; the same bits on any pool size; the
same values and gradients through eager Tensors; np.matmul where the path does not apply."""
import threading

import numpy as np
import pytest

import jitgrad as jg
from jitgrad.eager import pool_gemm
from jitgrad.ir import config
from jitgrad.ir.errors import ShapeError


@pytest.fixture
def two_threads(monkeypatch):
    saved = config.chosen()
    jg.config.update("num_threads", 2)
    monkeypatch.setattr(pool_gemm, "PARALLEL_MACS", 1)     # small test shapes take the pool
    if pool_gemm.pool_matmul(np.ones((256, 2), np.float32), np.ones((2, 2), np.float32)) is None:
        config.restore(saved)
        pytest.skip("no LLVM or BLAS for the pool GEMM here")
    yield
    config.restore(saved)


def _operands(rng, dtype, m, k, n, layout):
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    if layout == "a transposed":
        a = np.ascontiguousarray(a.T).T
    elif layout == "b transposed":          # x @ W.T
        b = np.ascontiguousarray(b.T).T
    elif layout == "row slices":            # columns cut out of wider arrays: lda, ldb > k, n
        a = np.pad(a, ((0, 0), (3, 5)))[:, 3:3 + k]
        b = np.pad(b, ((0, 0), (2, 1)))[:, 2:2 + n]
    return a, b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["c", "a transposed", "b transposed", "row slices"])
@pytest.mark.parametrize("mkn", [(300, 17, 40), (20, 33, 300)], ids=["rows", "columns"])
def test_pool_product_matches_numpy(two_threads, dtype, layout, mkn):
    a, b = _operands(np.random.default_rng(0), dtype, *mkn, layout)
    got = pool_gemm.pool_matmul(a, b)
    assert got is not None and got.dtype == dtype and got.shape == (mkn[0], mkn[2])
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.astype(np.float64),
                               rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


def test_the_bits_do_not_depend_on_the_pool_size(two_threads):
    a, b = _operands(np.random.default_rng(1), np.float32, 1000, 64, 48, "b transposed")
    outs = []
    for n in (2, 3, 2):
        jg.config.update("num_threads", n)
        outs.append(pool_gemm.pool_matmul(a, b))
    assert all(np.array_equal(outs[0], o) for o in outs[1:])


@pytest.mark.parametrize("why, a, b", [
    ("an integer product", np.ones((300, 4), np.int64), np.ones((4, 300), np.int64)),
    ("mixed dtypes", np.ones((300, 4), np.float32), np.ones((4, 300), np.float64)),
    ("a strided operand", np.ones((300, 8), np.float32)[:, ::2], np.ones((4, 300), np.float32)),
    ("too small to split", np.ones((20, 4), np.float32), np.ones((4, 20), np.float32)),
])
def test_other_products_are_left_to_numpy(two_threads, why, a, b):
    assert pool_gemm.pool_matmul(a, b) is None, why


def test_one_thread_or_a_small_product_takes_numpy(monkeypatch):
    saved = config.chosen()
    try:
        jg.config.update("num_threads", 1)
        big = np.ones((512, 256), np.float32)
        assert pool_gemm.pool_matmul(big, big.T) is None
        jg.config.update("num_threads", 2)
        monkeypatch.setattr(pool_gemm, "PARALLEL_MACS", 512 * 512 * 256 + 1)
        assert pool_gemm.pool_matmul(big, big.T) is None
    finally:
        config.restore(saved)


def test_eager_linear_values_and_grads_through_the_pool(two_threads):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 80, 24)).astype(np.float32)      # a stack folded into rows
    w = rng.standard_normal((40, 24)).astype(np.float32)
    bias = rng.standard_normal(40).astype(np.float32)
    xt, wt, bt = (jg.tensor(v, requires_grad=True) for v in (x, w, bias))
    y = jg.nn.functional.linear(xt, wt, bt)
    np.testing.assert_allclose(np.asarray(y.detach()), x @ w.T + bias, rtol=1e-5, atol=1e-5)
    g = rng.standard_normal(y.shape).astype(np.float32)
    (y * jg.tensor(g)).sum().backward()
    np.testing.assert_allclose(np.asarray(xt.grad), g @ w, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(wt.grad),
                               g.reshape(-1, 40).T @ x.reshape(-1, 24), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(np.asarray(bt.grad), g.sum((0, 1)), rtol=1e-4, atol=1e-4)


def test_concurrent_products_from_two_threads(two_threads):
    """A second caller finds the pool busy and runs its blocks on its own thread: both products
    right, the same bits as alone."""
    rng = np.random.default_rng(3)
    pairs = [_operands(rng, np.float32, 512, 32, 40, "b transposed") for _ in range(2)]
    alone = [pool_gemm.pool_matmul(a, b) for a, b in pairs]
    got = [[], []]

    def run(i):
        for _ in range(20):
            got[i].append(pool_gemm.pool_matmul(*pairs[i]))
    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(o, alone[i]) for i in range(2) for o in got[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["c", "b transposed", "row slices"])
@pytest.mark.parametrize("mkn", [(300, 17, 40), (20, 33, 300)], ids=["rows", "columns"])
def test_pool_product_with_a_bias_matches_numpy(two_threads, dtype, layout, mkn):
    """addmm's one pass: each block starts from the bias rows (its columns, by columns)."""
    rng = np.random.default_rng(4)
    a, b = _operands(rng, dtype, *mkn, layout)
    bias = rng.standard_normal(mkn[2]).astype(dtype)
    got = pool_gemm.pool_matmul(a, b, bias)
    assert got is not None and got.dtype == dtype and got.shape == (mkn[0], mkn[2])
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.astype(np.float64) + bias,
                               rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


def test_bias_bits_do_not_depend_on_the_pool_size(two_threads):
    rng = np.random.default_rng(5)
    a, b = _operands(rng, np.float32, 1000, 64, 48, "b transposed")
    bias = rng.standard_normal(48).astype(np.float32)
    outs = []
    for n in (2, 3, 2):
        jg.config.update("num_threads", n)
        outs.append(pool_gemm.pool_matmul(a, b, bias))
    assert all(np.array_equal(outs[0], o) for o in outs[1:])


@pytest.mark.parametrize("why, bias", [
    ("another dtype", np.ones(300, np.float64)),
    ("a broadcast bias", np.ones(1, np.float32)),
    ("a strided bias", np.ones(600, np.float32)[::2]),
])
def test_other_biases_are_left_to_the_plain_add(two_threads, why, bias):
    a, b = np.ones((300, 4), np.float32), np.ones((4, 300), np.float32)
    assert pool_gemm.pool_matmul(a, b, bias) is None, why


@pytest.mark.parametrize("needs_grad", ["x", "w", "b", "none"])
def test_eager_linear_with_the_bias_in_the_gemm_records_matmul_then_add(two_threads, needs_grad):
    """F.linear's fused form keeps the graph of matmul + add: the same values and grads as the
    plain form (np.matmul, then a separate add), whichever inputs require grad."""
    rng = np.random.default_rng(6)
    arrays = {"x": rng.standard_normal((3, 100, 16)), "w": rng.standard_normal((30, 16)),
              "b": rng.standard_normal(30)}
    ts = {k: jg.tensor(v, requires_grad=k == needs_grad) for k, v in arrays.items()}
    y = jg.nn.functional.linear(ts["x"], ts["w"], ts["b"])
    x, w, b = arrays["x"], arrays["w"], arrays["b"]
    np.testing.assert_allclose(y.detach().numpy(), x @ w.T + b, rtol=1e-12, atol=1e-12)
    assert y.requires_grad == (needs_grad != "none")
    if needs_grad == "none":
        return
    g = rng.standard_normal(y.shape)
    y.backward(jg.tensor(g))
    want = {"x": g @ w, "w": g.reshape(-1, 30).T @ x.reshape(-1, 16), "b": g.sum((0, 1))}
    np.testing.assert_allclose(ts[needs_grad].grad.numpy(), want[needs_grad], rtol=1e-12,
                               atol=1e-12)


def test_eager_linear_fallbacks_keep_their_values_and_errors(two_threads):
    """A strided input, a 1-D input and mismatched features take the plain path (its error)."""
    rng = np.random.default_rng(7)
    w, b = rng.standard_normal((30, 16)), rng.standard_normal(30)
    x = rng.standard_normal((100, 3, 16)).transpose(1, 0, 2)       # not C-ordered
    y = jg.nn.functional.linear(jg.tensor(x), jg.tensor(w), jg.tensor(b))
    np.testing.assert_allclose(y.numpy(), x @ w.T + b, rtol=1e-12, atol=1e-12)
    v = jg.nn.functional.linear(jg.tensor(x[0, 0]), jg.tensor(w), jg.tensor(b))
    np.testing.assert_allclose(v.numpy(), x[0, 0] @ w.T + b, rtol=1e-12, atol=1e-12)
    with pytest.raises(ShapeError, match=r"inner dimensions differ.*\(at test_eager_pool_gemm"):
        jg.nn.functional.linear(jg.tensor(x[..., :8]), jg.tensor(w), jg.tensor(b))


def _linear_everywhere():
    rng = np.random.default_rng(8)
    x, w, b = rng.standard_normal((3, 100, 16)), rng.standard_normal((30, 16)), \
        rng.standard_normal(30)
    linear = jg.nn.functional.linear
    want = x @ w.T + b
    xt, wt, bt = jg.tensor(x), jg.tensor(w), jg.tensor(b)
    np.testing.assert_allclose(np.asarray(linear(xt, wt, bt)), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(jg.jit(linear)(xt, wt, bt)), want, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(np.asarray(jg.vmap(lambda r: linear(r, wt, bt))(xt)), want,
                               rtol=1e-12, atol=1e-12)
    gw = jg.grad(lambda v: (linear(xt, v, bt) ** 2).sum())(wt)
    np.testing.assert_allclose(np.asarray(gw), 2 * want.reshape(-1, 30).T @ x.reshape(-1, 16),
                               rtol=1e-10, atol=1e-10)


def test_linear_under_jit_vmap_and_grad_with_the_pool_on(two_threads):
    """Traced calls take the plain matmul + add (the eager form needs eager tensors)."""
    _linear_everywhere()


@pytest.mark.interpreter
def test_linear_on_the_interpreter_takes_numpy(monkeypatch):
    """The interpreter-only setting keeps eager products off the pool: np.matmul, same values."""
    saved = config.chosen()
    try:
        jg.config.update("num_threads", 2)
        monkeypatch.setattr(pool_gemm, "PARALLEL_MACS", 1)
        a = np.ones((256, 4), np.float32)
        assert pool_gemm.pool_matmul(a, a.T, np.ones(256, np.float32)) is None
        _linear_everywhere()
    finally:
        config.restore(saved)



@pytest.mark.parametrize("pool", [True, False], ids=["pool", "one thread"])
def test_eager_products_reuse_the_storage_of_dead_results(pool):
    # a fresh 1 MiB result page-faults 256 times: products take their storage from the
    # caching allocator (runtime/allocator.py), so a dropped result's block is used again
    from jitgrad.runtime.allocator import ALLOCATOR
    saved = config.chosen()
    jg.config.update("num_threads", 2 if pool else 1)
    try:
        rng = np.random.default_rng(3)
        x = jg.tensor(rng.standard_normal((8, 64, 128)).astype(np.float32))
        w = jg.tensor(rng.standard_normal((512, 128)).astype(np.float32))
        first = x @ w.T
        want = first.numpy().copy()
        del first
        misses, hits = ALLOCATOR.misses, ALLOCATOR.hits
        again = x @ w.T
        assert (ALLOCATOR.misses, ALLOCATOR.hits) == (misses, hits + 1)
        np.testing.assert_array_equal(again.numpy(), want)
        kept = x @ w.T                      # a live result's block is not handed out again
        assert not np.shares_memory(kept.numpy(), again.numpy())
        np.testing.assert_array_equal(again.numpy(), want)
    finally:
        config.restore(saved)
