"""jnp.pad's edge / reflect / symmetric / wrap modes with pads wider than the axis: NumPy
reflects (or wraps) again, on every path (the differential fuzzer found reflect raising)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

X = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("mode", ["edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("width", [1, 3, ((4, 0), (1, 7))])
def test_wide_pad_matches_numpy_eager_and_jit(mode, width):
    want = np.pad(X, width, mode=mode)
    np.testing.assert_array_equal(np.asarray(jnp.pad(X, width, mode=mode)), want)
    np.testing.assert_array_equal(np.asarray(jg.jit(lambda x: jnp.pad(x, width, mode=mode))(X)),
                                  want)


@pytest.mark.interpreter
def test_wide_reflect_pad_gradient_counts_every_copy():
    # d/dx sum(w * pad(x)) adds w over every padded copy of x's element: NumPy's index map
    w = np.random.default_rng(0).standard_normal(np.pad(X, 3, mode="reflect").shape)
    idx = np.pad(np.arange(X.size).reshape(X.shape), 3, mode="reflect")
    want = np.bincount(idx.ravel(), weights=w.ravel(), minlength=X.size).reshape(X.shape)
    f = lambda x: jnp.sum(jnp.pad(x, 3, mode="reflect") * w)     # noqa: E731
    np.testing.assert_allclose(np.asarray(jg.grad(f)(X)), want, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(jg.jit(jg.grad(f))(X)), want, rtol=1e-12)


def test_nonconstant_pad_of_an_empty_axis_raises_numpys_error():
    with pytest.raises(ValueError, match="can't extend empty axis"):
        jnp.pad(np.zeros((0, 2)), 1, mode="reflect")
