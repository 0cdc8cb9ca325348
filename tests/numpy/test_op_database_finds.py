"""Regressions of the bugs the op database's generated tests found in jitgrad.numpy (issue 49):
closeness and equality of whole arrays under jit, infinities in isclose, meshgrid's sparse=,
arange's zero step."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

INF = np.array([np.inf, -np.inf, np.inf, 1.0, np.nan, 1.0, 2.0])
OTHER = np.array([np.inf, -np.inf, -np.inf, 1.0, np.nan, np.inf, 2.0 + 1e-6])


def test_isclose_infinities_as_numpy():
    np.testing.assert_array_equal(jnp.isclose(INF, OTHER), np.isclose(INF, OTHER))
    np.testing.assert_array_equal(jnp.isclose(INF, OTHER, equal_nan=True),
                                  np.isclose(INF, OTHER, equal_nan=True))


@pytest.mark.parametrize("path", ["eager", "jit"])
def test_allclose_and_array_equal_are_traceable_bool_arrays(path):
    def f(a, b):
        return [jnp.allclose(a, b), jnp.allclose(a, a), jnp.array_equal(a, a),
                jnp.array_equal(a, b), jnp.array_equal(a, a[:2]),
                jnp.array_equal(a, a, equal_nan=True)]
    a, b = np.array([1.0, np.nan, 3.0]), np.array([1.0, np.nan, 3.5])
    got = (jg.jit(f) if path == "jit" else f)(a, b)
    assert [bool(g) for g in got] == [False, False, False, False, False, True]
    assert all(np.asarray(g).dtype == np.bool_ and np.asarray(g).shape == () for g in got)


def test_meshgrid_sparse_and_indexing():
    x, y = np.arange(3.0), np.arange(2.0)
    for kw in ({"sparse": True}, {"sparse": True, "indexing": "ij"}, {"indexing": "ij"}):
        for g, w in zip(jnp.meshgrid(x, y, **kw), np.meshgrid(x, y, **kw)):
            np.testing.assert_array_equal(g, w)
    with pytest.raises(ValueError, match="indexing must be 'xy' or 'ij', got 'yx'"):
        jnp.meshgrid(x, y, indexing="yx")


def test_arange_zero_step_names_the_step():
    with pytest.raises(ZeroDivisionError, match="step must not be zero"):
        jnp.arange(0, 5, 0)
