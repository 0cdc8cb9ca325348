"""jnp.median of an empty axis is nan with a RuntimeWarning, as NumPy's."""
import warnings

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp


@pytest.mark.parametrize("shape,axis,keepdims", [((0,), None, False), ((2, 0), None, True),
                                                 ((0, 3), 0, False), ((0, 3), 0, True),
                                                 ((3, 0), 0, False), ((3, 0), 1, False),
                                                 ((2, 3), None, True)])
def test_median_of_empty_matches_numpy(shape, axis, keepdims):
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.median(a, axis=axis, keepdims=keepdims)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = jnp.median(a, axis=axis, keepdims=keepdims)
        jitted = jg.jit(lambda x: jnp.median(x, axis=axis, keepdims=keepdims))(a)
    for out in (got, jitted):
        assert out.shape == want.shape and out.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(out), want)


def test_median_of_empty_warns_as_numpy():
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(jnp.median(np.zeros(0, np.float32)).item())


def test_median_of_empty_keeps_the_median_dtype_and_differentiates():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for dtype in (np.int32, np.float32, np.bool_):
            a = np.zeros(4, dtype)
            assert jnp.median(a[:0]).dtype == jnp.median(a).dtype
        g = jg.grad(jnp.median)(np.zeros(0, np.float32))
    assert g.shape == (0,)
