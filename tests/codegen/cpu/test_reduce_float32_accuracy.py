"""Float32 sums over outer axes in compiled CPU kernels (codegen/cpu/kernels/reduce.py) keep
NumPy's pairwise accuracy: a reduction keeping a middle axis (BatchNorm's mean over (0, 2, 3))
adds blocks of WIDE_BLOCK elements in float64, a column sum over axis 0 groups of rows (issue
49); the eager and interpreter paths' NumPy reference (ir/reference.reduce_sum) does the same
with NumPy calls (a float32 trailing run, then float64; groups of rows). The bar: twice the error of NumPy's pairwise sum of the same elements laid out contiguous,
both against a float64 reference; data with a large mean (0.1 * N(0, 1) + 10) makes a long
float32 chain's error show."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.nn.normalization import batch_norm_with_stats
from jitgrad.runtime import thread_pool

CASES = [((64, 32, 32, 32), (0, 2, 3)), ((65536, 32), (0,)), ((64, 32, 32, 32), (0, 2)),
         ((4096, 1024), (0,)), ((64, 32, 1024), (0, 2)), ((4, 16384, 32), (1,)),
         ((4, 8, 512, 16, 8), (2, 3))]


def _data(shape, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 0.1 + 10).astype(np.float32)


def _rel(got, want):
    return np.abs(np.asarray(got, np.float64) - want).max() / np.abs(want).max()


def _pairwise_error(x, axes):
    """The relative error of NumPy's pairwise float32 sum of each output's elements."""
    kept = [d for d in range(x.ndim) if d not in axes]
    rows = np.ascontiguousarray(x.transpose(kept + list(axes))).reshape(
        int(np.prod([x.shape[d] for d in kept])), -1)
    want = x.astype(np.float64).sum(axis=axes)
    return _rel(rows.sum(axis=1).reshape(want.shape), want)


@pytest.mark.parametrize("shape,axes", CASES)
def test_jitted_float32_sum_is_as_accurate_as_numpys_pairwise(shape, axes):
    x = _data(shape)
    want = x.astype(np.float64).sum(axis=axes)
    got = jg.jit(lambda a: jnp.sum(a, axis=axes))(jnp.asarray(x))
    assert got.dtype == jnp.float32
    assert _rel(got, want) <= 2 * _pairwise_error(x, axes)


def test_jitted_mean_of_the_issue_keeps_numpys_accuracy():
    x = _data((64, 32, 32, 32))
    want = x.astype(np.float64).mean(axis=(0, 2, 3))
    got = jg.jit(lambda a: jnp.mean(a, axis=(0, 2, 3)))(jnp.asarray(x))
    assert _rel(got, want) <= 2 * _pairwise_error(x, (0, 2, 3))


@pytest.mark.parametrize("shape,axes", CASES)
def test_eager_float32_sum_is_as_accurate_as_numpys_pairwise(shape, axes):
    """np.sum itself misses this bar along outer axes: (65536, 32) over axis 0 by ~40x."""
    x = _data(shape)
    want = x.astype(np.float64).sum(axis=axes)
    assert _rel(jnp.sum(jnp.asarray(x), axis=axes), want) <= 2 * _pairwise_error(x, axes)


@pytest.mark.interpreter
@pytest.mark.parametrize("shape,axes", [CASES[0], CASES[1], CASES[2]])
def test_interpreted_float32_sum_is_as_accurate_as_numpys_pairwise(shape, axes):
    x = _data(shape)
    want = x.astype(np.float64).sum(axis=axes)
    got = jg.jit(lambda a: jnp.sum(a, axis=axes))(jnp.asarray(x))
    assert _rel(got, want) <= 2 * _pairwise_error(x, axes)


def test_batch_norm_statistics_under_jit_are_accurate():
    x = _data((64, 32, 16, 16))
    c = x.shape[1]

    def stats(a):
        _, mean, var = batch_norm_with_stats(a, jnp.zeros(c), jnp.ones(c), training=True,
                                             momentum=1.0)
        return mean, var
    mean, var = jg.jit(stats)(jnp.asarray(x))
    x64 = x.astype(np.float64)
    assert _rel(mean, x64.mean(axis=(0, 2, 3))) <= 2 * _pairwise_error(x, (0, 2, 3))
    want_var = x64.var(axis=(0, 2, 3), ddof=1)
    np.testing.assert_allclose(np.asarray(var), want_var, rtol=1e-5)


def test_column_sum_of_a_gradient_is_accurate():
    x = _data((65536, 32))
    w = jnp.ones(32)
    got = jg.jit(jg.grad(lambda v: jnp.sum(jnp.asarray(x) * v)))(w)
    assert _rel(got, x.astype(np.float64).sum(axis=0)) <= 2 * _pairwise_error(x, (0,))


def test_vmapped_column_sum_is_accurate():
    x = _data((4, 16384, 32))
    got = jg.jit(jg.vmap(lambda a: jnp.sum(a, axis=0)))(jnp.asarray(x))
    assert _rel(got, x.astype(np.float64).sum(axis=1)) <= 2 * _pairwise_error(x, (1,))


@pytest.mark.parametrize("shape,axes", [((4096, 1024), (0,)), ((64, 32, 32, 32), (0, 2, 3)),
                                        ((4, 16384, 32), (1,))])
def test_grouped_sums_give_the_same_bits_on_one_and_three_threads(shape, axes):
    x = jnp.asarray(_data(shape))
    before = thread_pool.num_threads()
    try:
        got = []
        for n in (1, 3):
            jg.config.update("num_threads", n)
            got.append(np.asarray(jg.jit(lambda a: jnp.sum(a, axis=axes))(x)))
    finally:
        jg.config.update("num_threads", before)
    np.testing.assert_array_equal(got[0], got[1])


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_column_and_outer_sums_stay_exact(dtype):
    x = np.random.default_rng(1).integers(-1000, 1000, (4096, 8, 64)).astype(dtype)
    for axes in [(0,), (0, 2)]:
        got = jg.jit(lambda a: jnp.sum(a, axis=axes))(jnp.asarray(x))
        np.testing.assert_array_equal(np.asarray(got), x.sum(axis=axes))
