"""In-place operators cast their result into the tensor's dtype when torch's rule allows it (the
result's kind is not above the tensor's: bool < int < float < complex). The JAX docs'
convolutions notebook writes `kernel += int_array` into a float32 kernel."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp


@pytest.mark.parametrize("dtype, other, want", [
    (jg.float32, np.array([1, -2, 3]), [1.0, -2.0, 3.0]),               # int64 into float32
    (jg.float32, np.array([0.5, 1.0, 2.0**-30]), [0.5, 1.0, np.float32(2.0**-30)]),  # float64
    (jg.int32, np.array([1, 2, 3], np.int64), [1, 2, 3]),
    (jg.int64, np.array([True, False, True]), [1, 0, 1]),
])
def test_a_result_of_the_same_or_a_lower_kind_lands_in_the_tensors_dtype(dtype, other, want):
    x = jg.zeros(3, dtype=dtype)
    alias = x
    x += jnp.asarray(other)
    assert x is alias and x.dtype == dtype
    np.testing.assert_array_equal(np.asarray(x), np.asarray(want, dtype=np.asarray(x).dtype))


def test_the_cast_is_recorded_for_autograd():
    w = jg.zeros(3, requires_grad=True)
    v = w * 2
    v += jg.ones(3, dtype=jg.float64)
    assert v.dtype == jg.float32
    v.sum().backward()
    np.testing.assert_array_equal(np.asarray(w.grad), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("dtype, other, came", [(jg.int64, 0.5, "float(32|64)"),
                                                (jg.float32, 1j, "complex64")])
def test_a_result_of_a_higher_kind_still_raises(dtype, other, came):
    x = jg.zeros(3, dtype=dtype)
    with pytest.raises(TypeError, match=f"result dtype {came} can't be cast to {x.dtype.name}"):
        x += jg.ones(3) * other
