"""torch.nn.init's orthogonal_, trunc_normal_, eye_, dirac_, sparse_ and the deprecated spellings
without the underscore (pytorch/examples super_resolution calls init.orthogonal)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn as nn
from jitgrad.nn import init


@pytest.mark.parametrize("shape", [(4, 6), (6, 2, 3), (3, 3)])
def test_orthogonal_rows_or_columns_are_orthonormal_times_gain(shape):
    jg.manual_seed(0)
    w = np.asarray(init.orthogonal_(jg.empty(*shape), gain=2.0), np.float64)
    m = w.reshape(shape[0], -1)
    small = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(small, 4.0 * np.eye(len(small)), atol=1e-5)


def test_orthogonal_of_a_vector_raises():
    with pytest.raises(ValueError, match="orthogonal_: only tensors with 2 or more dimensions"):
        init.orthogonal_(jg.empty(5))


def test_trunc_normal_stays_in_bounds():
    jg.manual_seed(0)
    w = np.asarray(init.trunc_normal_(jg.empty(2000), mean=0.5, std=1.0, a=0.0, b=1.0))
    assert w.min() >= 0.0 and w.max() <= 1.0 and 0.4 < w.mean() < 0.6


def test_eye_and_dirac():
    np.testing.assert_array_equal(np.asarray(init.eye_(jg.empty(2, 3))), np.eye(2, 3))
    w = np.asarray(init.dirac_(jg.empty(4, 2, 3, 3), groups=2))
    want = np.zeros((4, 2, 3, 3))
    for o, i in ((0, 0), (1, 1), (2, 0), (3, 1)):       # torch.nn.init.dirac_(groups=2)
        want[o, i, 1, 1] = 1.0
    np.testing.assert_array_equal(w, want)
    with pytest.raises(ValueError, match="eye_: only 2-D tensors"):
        init.eye_(jg.empty(2, 2, 2))


def test_sparse_zeros_a_share_of_each_column():
    jg.manual_seed(0)
    w = np.asarray(init.sparse_(jg.empty(5, 4), sparsity=0.4))
    assert ((w == 0).sum(0) == 2).all()


def test_deprecated_spellings_warn_and_fill():
    conv = nn.Conv2d(1, 4, 3)
    with pytest.warns(FutureWarning, match="`nn.init.orthogonal` is now deprecated in favor of "
                                           "`nn.init.orthogonal_`"):
        out = init.orthogonal(conv.weight, init.calculate_gain("relu"))
    assert out is conv.weight
    m = np.asarray(conv.weight.detach(), np.float64).reshape(4, -1)
    np.testing.assert_allclose(m @ m.T, 2.0 * np.eye(4), atol=1e-5)
    with pytest.warns(FutureWarning, match="nn.init.constant"):
        init.constant(conv.bias, 0.5)
    np.testing.assert_array_equal(np.asarray(conv.bias.detach()), np.full(4, 0.5, np.float32))
