"""torch's own spellings that the op database's records (tests/support/opinfo/torch_*_ops.py)
found missing or meaning NumPy's: keywords (transpose(dim0=, dim1=), permute(dims=),
mvlgamma(p=), cross(dim=), tensordot(dims=)), torch's defaults (cross's first dim of length 3),
nanmean keeping float32, nanmedian along a dim, narrow past the end raising, x.new_zeros(size=).
Each eager and under jit; expected values from NumPy / SciPy."""
import numpy as np
import pytest
import scipy.special

import jitgrad as jg


def _both(fn, *args):
    """fn's result eager and jitted (the same)."""
    eager = fn(*[jg.asarray(a) for a in args])
    jitted = jg.jit(fn)(*args)
    for e, j in zip(jg.tree_util.tree_leaves(eager), jg.tree_util.tree_leaves(jitted)):
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-6)
    return eager


X = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)


def test_transpose_takes_torchs_dim0_dim1_keywords():
    got = _both(lambda x: x.transpose(dim0=0, dim1=2), X)
    np.testing.assert_array_equal(got, np.swapaxes(X, 0, 2))
    got = _both(lambda x: jg.transpose(x, dim0=1, dim1=0), X)
    np.testing.assert_array_equal(got, np.swapaxes(X, 0, 1))


def test_permute_takes_dims_keyword():
    got = _both(lambda x: x.permute(dims=(2, 0, 1)), X)
    np.testing.assert_array_equal(got, np.transpose(X, (2, 0, 1)))
    np.testing.assert_array_equal(_both(lambda x: jg.permute(x, dims=(1, 2, 0)), X),
                                  np.transpose(X, (1, 2, 0)))


def test_mvlgamma_takes_p():
    x = np.array([1.5, 2.0, 3.25])
    want = np.array([scipy.special.multigammaln(v, 2) for v in x])
    np.testing.assert_allclose(_both(lambda a: a.mvlgamma(p=2), x), want, rtol=1e-12)
    np.testing.assert_allclose(_both(lambda a: jg.mvlgamma(a, p=2), x), want, rtol=1e-12)
    y = jg.asarray(x)
    assert y.mvlgamma_(2) is y
    np.testing.assert_allclose(y, want, rtol=1e-12)


def test_cross_dim_and_torchs_default_first_dim_of_length_3():
    a = np.arange(12.0).reshape(3, 4)
    b = np.cos(np.arange(12.0)).reshape(3, 4)
    want = np.cross(a, b, axis=0)
    np.testing.assert_allclose(_both(lambda u, v: u.cross(v, dim=0), a, b), want)
    np.testing.assert_allclose(_both(lambda u, v: jg.cross(u, v), a, b), want)   # dim 0: len 3
    np.testing.assert_allclose(_both(lambda u, v: jg.cross(u, v, dim=-1), a.T, b.T),
                               np.cross(a.T, b.T))


def test_tensordot_takes_dims_and_numpys_axes():
    a, b = np.ones((3, 4, 5)), np.arange(40.0).reshape(4, 5, 2)
    np.testing.assert_allclose(_both(lambda u, v: jg.tensordot(u, v, dims=2), a, b),
                               np.tensordot(a, b, 2))
    np.testing.assert_allclose(_both(lambda u, v: jg.tensordot(u, v, dims=([1], [0])), a, b),
                               np.tensordot(a, b, ([1], [0])))
    np.testing.assert_allclose(jg.tensordot(a, b, axes=2), np.tensordot(a, b, 2))


@pytest.mark.parametrize("dim", [None, 1])
def test_nanmean_keeps_float32(dim):
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 2.0]], dtype=np.float32)
    got = _both(lambda a: jg.nanmean(a, dim), x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.nanmean(x, axis=dim), rtol=1e-6)


def test_nanmedian_along_a_dim_gives_lower_middle_and_its_index():
    x = np.array([[4.0, np.nan, 1.0, 3.0, 2.0],          # lower middle of 1 2 3 4: 2 at 4
                  [np.nan, 5.0, 7.0, 6.0, np.nan],       # 5 6 7: 6 at 3
                  [np.nan] * 5])                         # all NaN: torch's middle index 2
    values, indices = _both(lambda a: a.nanmedian(1), x)
    np.testing.assert_array_equal(values, [2.0, 6.0, np.nan])
    np.testing.assert_array_equal(indices, [4, 3, 2])
    kept = jg.nanmedian(jg.asarray(x), 0, keepdim=True)
    assert kept.values.shape == (1, 5) and kept.indices.shape == (1, 5)


def test_narrow_past_the_end_raises_as_torch_does():
    x = jg.asarray(np.zeros((3, 4), np.float32))
    with pytest.raises(IndexError, match=r"start \(3\) \+ length \(2\) exceeds dimension size "
                                         r"\(4\)"):
        x.narrow(1, 3, 2)
    with pytest.raises(IndexError, match="exceeds dimension size"):
        jg.jit(lambda a: jg.narrow(a, 1, 3, 2))(x)
    np.testing.assert_array_equal(x.narrow(1, 2, 2), np.zeros((3, 2)))


@pytest.mark.parametrize("name, fill", [("new_zeros", 0), ("new_ones", 1), ("new_empty", None)])
def test_new_tensors_take_torchs_size_keyword(name, fill):
    x = jg.asarray(np.array(2.0, np.float32))      # a 0-d tensor: size= was silently dropped
    out = getattr(x, name)(size=(2, 3))
    assert out.shape == (2, 3) and out.dtype == np.float32
    if fill is not None:
        np.testing.assert_array_equal(out, np.full((2, 3), fill))
    assert getattr(x, name)(2, 3).shape == getattr(x, name)((2, 3)).shape == (2, 3)
