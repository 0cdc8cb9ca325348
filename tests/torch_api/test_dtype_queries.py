"""torch's dtype queries in a ported program: x.dtype stays NumPy's np.dtype (JAX's and NumPy's
users rely on it), so torch.dtype's is_floating_point / is_complex / is_signed attributes are
asked of the tensor (x.is_floating_point(), ...) as docs/coming-from-pytorch.md says;
itemsize, torch.finfo / torch.iinfo (of a dtype, a tensor, or the default dtype) work as
torch's. Expected values: IEEE 754 / two's complement constants."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.ir import config

DTYPES = [  # dtype, is_floating_point, is_complex, is_signed, itemsize
    (jg.float32, True, False, True, 4), (jg.float64, True, False, True, 8),
    (jg.float16, True, False, True, 2), (jg.bfloat16, True, False, True, 2),
    (jg.complex64, False, True, True, 8), (jg.int64, False, False, True, 8),
    (jg.int8, False, False, True, 1), (jg.uint8, False, False, False, 1),
    (jg.bool, False, False, False, 1)]


@pytest.mark.parametrize("dtype, floating, complex_, signed, itemsize", DTYPES,
                         ids=[str(np.dtype(d[0])) for d in DTYPES])
def test_the_tensor_answers_torchs_dtype_attributes(dtype, floating, complex_, signed, itemsize):
    x = jg.zeros(2, dtype=dtype)
    assert isinstance(x.dtype, np.dtype)
    assert (x.is_floating_point(), x.is_complex(), x.is_signed()) == (floating, complex_, signed)
    assert (jg.is_floating_point(x), jg.is_complex(x)) == (floating, complex_)
    assert x.dtype.itemsize == x.element_size() == x.itemsize == itemsize


def test_finfo_of_a_dtype_a_tensor_or_the_default():
    assert jg.finfo(jg.float32).eps == 2.0 ** -23
    assert jg.finfo(jg.ones(2, dtype=jg.float64)).eps == 2.0 ** -52
    assert jg.finfo(jg.float16).max == 65504.0 and jg.finfo(jg.bfloat16).eps == 2.0 ** -7
    assert jg.finfo(jg.float32).tiny == jg.finfo(jg.float32).smallest_normal == 2.0 ** -126
    assert jg.finfo().eps == 2.0 ** -23                  # torch.finfo(): the default dtype
    try:
        jg.set_default_dtype(jg.float64)
        assert jg.finfo().bits == 64
    finally:        # unset, not set back to float32: a set default_dtype wins over enable_x64
        config.reset("default_dtype")


def test_iinfo_and_the_wrong_kind():
    assert (jg.iinfo(jg.int8).min, jg.iinfo(jg.int8).max, jg.iinfo(jg.uint8).max) == (-128, 127,
                                                                                   255)
    assert jg.iinfo(jg.tensor([1, 2])).bits == 64
    with pytest.raises(ValueError, match="iinfo: expected an integer dtype, got float32"):
        jg.iinfo(jg.float32)
    with pytest.raises(ValueError, match="finfo: expected a floating or complex dtype, got int32"):
        jg.finfo(jg.int32)
