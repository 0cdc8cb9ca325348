"""jg.random: explicit keys (JAX style) and the global generator behind jg.randn."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

R = jg.random


def test_keys_are_deterministic():
    a, b = R.key(42), R.key(42)
    assert a.shape == (2,) and a.dtype == jg.uint32
    assert np.array_equal(R.normal(a, (5,)).numpy(), R.normal(b, (5,)).numpy())
    assert not np.array_equal(R.normal(R.key(43), (5,)).numpy(), R.normal(a, (5,)).numpy())
    assert np.array_equal(R.split(a).numpy(), R.split(b).numpy())
    assert R.PRNGKey(42).tolist() == a.tolist()
    assert len({tuple(R.key(s).tolist()) for s in (-1, 0, 2**63 - 1, 2**64 - 1)}) == 3
    assert R.key(-1).tolist() == R.key(2**64 - 1).tolist() == [2**32 - 1] * 2   # 64-bit seeds
    with pytest.raises(OverflowError, match="does not fit in 64 bits"):
        R.key(2**64 + 5)


def test_split_gives_independent_keys():
    k = R.key(0)
    k1, k2 = R.split(k)
    ks = R.split(k, 4)
    assert ks.shape == (4, 2) and ks.dtype == jg.uint32
    assert len({tuple(x.tolist()) for x in (k, k1, k2)}) == 3
    assert len({tuple(x.tolist()) for x in ks}) == 4
    draws = np.stack([R.normal(x, (2000,)).numpy() for x in (k, k1, k2)])
    corr = np.corrcoef(draws)
    assert np.all(np.abs(corr[np.triu_indices(3, 1)]) < 0.1)
    # JAX's partitionable threefry: fold_in(k, i) hashes the counter i, as split's i-th key
    assert np.array_equal(R.fold_in(k, 0).numpy(), k1.numpy())
    assert not np.array_equal(R.fold_in(k, 0).numpy(), R.fold_in(k, 1).numpy())


@pytest.mark.parametrize("draw, dtype, shape", [
    (lambda k: R.normal(k, (3, 4)), jg.float32, (3, 4)),
    (lambda k: R.normal(k, (2,), dtype=jg.float64), jg.float64, (2,)),
    (lambda k: R.normal(k), jg.float32, ()),
    (lambda k: R.normal(k, 5), jg.float32, (5,)),
    (lambda k: R.uniform(k, (100,), minval=2.0, maxval=5.0), jg.float32, (100,)),
    (lambda k: R.randint(k, (50,), 3, 7), jg.int64, (50,)),
    (lambda k: R.randint(k, (50,), 0, 4, dtype=jg.int32), jg.int32, (50,)),
    (lambda k: R.bernoulli(k, 0.3, (100,)), jg.bool, (100,)),
    (lambda k: R.permutation(k, 6), jg.int64, (6,)),
], ids=["normal", "normal f64", "scalar", "int shape", "uniform", "randint", "randint i32",
        "bernoulli", "permutation"])
def test_shapes_dtypes_and_ranges(draw, dtype, shape):
    x = draw(R.key(1))
    assert x.shape == shape and x.dtype == dtype
    a = x.numpy()
    if a.dtype.kind == "f" and a.size == 100:
        assert a.min() >= 2.0 and a.max() < 5.0
    if a.dtype.kind == "i" and a.size == 50:
        assert a.min() >= 0 and a.max() < 7 and len(np.unique(a)) > 2
    if a.size == 6:
        assert sorted(a.tolist()) == list(range(6))


def test_distribution_moments():
    x = R.normal(R.key(7), (20000,), dtype=jg.float64).numpy()
    assert abs(x.mean()) < 0.03 and abs(x.std() - 1) < 0.03
    u = R.uniform(R.key(7), (20000,)).numpy()
    assert abs(u.mean() - 0.5) < 0.01 and u.min() >= 0 and u.max() < 1


def test_random_under_jit_matches_eager_and_keys_are_inputs():
    calls = []

    def sample(key):
        calls.append(1)
        k1, k2 = R.split(key)
        return R.normal(k1, (3,)), R.uniform(k2, (2,))
    f = jg.jit(sample)
    for seed in (0, 1):
        key = R.key(seed)
        (a, b), (c, d) = f(key), sample(key)
        assert np.array_equal(a.numpy(), c.numpy()) and np.array_equal(b.numpy(), d.numpy())
    assert len(calls) == 3                 # jit traced once; eager ran twice
    assert "bitwise_xor" in f.lower(R.key(0)).ir        # threefry as uint32 primitives


def test_bad_keys_and_dtypes():
    with pytest.raises(TypeError, match=r"expected a PRNG key .* got float32\[3\]"):
        R.normal(jnp.zeros(3), (2,))
    with pytest.raises(TypeError, match=r"expected a PRNG key .* got int64\[2\]"):
        R.normal(np.array([0, 1]), (2,))
    with pytest.raises(TypeError, match=r"single key, but was given a key array of shape \(3,\)"):
        R.normal(R.split(R.key(0), 3), (2,))
    with pytest.raises(TypeError, match="expected a floating dtype, got int32"):
        R.normal(R.key(0), (2,), dtype=jg.int32)


def test_global_generator():
    jg.manual_seed(0)
    a = jg.randn(3).numpy().copy()
    b = jg.randn(3).numpy()
    jg.manual_seed(0)
    assert np.array_equal(jg.randn(3).numpy(), a) and not np.array_equal(a, b)
