"""jg.random keys and key handling (jax.random.key, split, fold_in, permutation of arrays)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

R = jg.random


@pytest.mark.parametrize("seed", [1.5, np.float32(2.0), np.array(3.0)], ids=repr)
def test_float_seeds_raise_type_error(seed):
    # was: key(1.5) silently equal to key(1)
    with pytest.raises(TypeError, match="seed must be an integer, got float"):
        R.key(seed)


def test_array_seeds_raise_type_error():
    with pytest.raises(TypeError, match=r"scalar integer seed, got an array of shape \(2,\)"):
        R.key(jnp.array([1, 2]))


def test_integer_seeds_of_any_integer_type():
    want = R.key(3).tolist()
    assert R.key(np.int32(3)).tolist() == want and R.key(jnp.asarray(3)).tolist() == want


def test_permutation_of_an_array_permutes_axis_0():
    # was: "item() needs a tensor with one element" inside random.py
    x = np.arange(10) * 10
    p = R.permutation(R.key(0), jnp.asarray(x)).numpy()
    assert sorted(p.tolist()) == x.tolist() and p.tolist() != x.tolist()
    m = np.arange(12).reshape(4, 3)
    rows = R.permutation(R.key(1), jnp.asarray(m)).numpy()
    assert sorted(map(tuple, rows.tolist())) == sorted(map(tuple, m.tolist()))


def test_permutation_along_an_axis_and_independent():
    m = np.arange(24).reshape(3, 8)
    cols = R.permutation(R.key(2), jnp.asarray(m), axis=1).numpy()
    order = cols[0] - cols[0].min()
    np.testing.assert_array_equal(cols, m[:, order])          # whole columns move together
    ind = R.permutation(R.key(2), jnp.asarray(m), axis=1, independent=True).numpy()
    assert all(sorted(r.tolist()) == m[i].tolist() for i, r in enumerate(ind))
    assert len({tuple(r - r.min()) for r in ind}) > 1           # each row its own order


def test_permutation_of_a_scalar_array_raises():
    with pytest.raises(TypeError, match="at least one dimension"):
        R.permutation(R.key(0), jnp.asarray(3.0))
