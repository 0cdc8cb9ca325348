"""torch's creation functions take the shape as size= too (torch.empty(size=(2, 3)), as
pytorch/examples gat does for its nn.Parameter(torch.empty(size=...)))."""
import numpy as np
import pytest

import jitgrad as jg


@pytest.mark.parametrize("name", ["empty", "zeros", "ones", "rand", "randn"])
def test_size_keyword(name):
    fn = getattr(jg, name)
    assert fn(size=(2, 3)).shape == (2, 3) == fn(2, 3).shape == fn((2, 3)).shape
    assert fn(size=[4]).shape == (4,) and fn(size=()).shape == ()
    assert fn(size=(2,), dtype=jg.float64).dtype == np.float64
    with pytest.raises(TypeError, match=r"both positionally \(2,\) and as size=\(3,\)"):
        fn(2, size=(3,))


def test_values():
    np.testing.assert_array_equal(jg.ones(size=(2,)).numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(jg.zeros(size=(1, 2)).numpy(), [[0.0, 0.0]])
    jg.manual_seed(5)
    a = jg.randn(size=(3,)).numpy()
    jg.manual_seed(5)
    np.testing.assert_array_equal(a, jg.randn(3).numpy())
