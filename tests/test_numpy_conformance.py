"""Behaviour the Array API conformance suite checks that the op records do not: copies and views,
0-d results of integer indexing, the sign bit of NaN, integer bit operations and their errors."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp


def test_asarray_copy_true_never_aliases():
    x = jnp.asarray([1.0, 2.0])
    y = jnp.asarray(x, copy=True)
    y += 1
    assert x.tolist() == [1.0, 2.0] and y.tolist() == [2.0, 3.0]
    a = np.arange(3.0)
    t = jnp.asarray(a, copy=True)
    a[0] = 9
    assert t.tolist() == [0.0, 1.0, 2.0]
    assert jnp.array(x) is not x and jnp.asarray(x) is x


def test_asarray_copy_false_shares_or_raises():
    a = np.arange(3.0)
    t = jnp.asarray(a, copy=False)
    a[0] = 9
    assert t.tolist() == [9.0, 1.0, 2.0]
    with pytest.raises(ValueError, match=r"asarray\(copy=False\): a list can't become a int64 "
                                         r"tensor on cpu without a copy"):
        jnp.asarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="a ndarray of float64 can't become a float32 tensor"):
        jnp.asarray(a, dtype=jnp.float32, copy=False)


def test_integer_index_gives_a_0d_array():
    x = jnp.asarray(np.arange(6.0).reshape(2, 3))
    e = x[0, 1]
    assert e.shape == () and isinstance(e._data, np.ndarray)
    assert np.asarray(e).shape == () and float(np.asarray(e)) == 1.0
    e += 1            # a view, as x[0] is: the write reaches x (PyTorch's semantics)
    assert x[0, 1].item() == 2.0 and e.item() == 2.0
    assert jnp.asarray([True, False])[1].shape == ()


@pytest.mark.parametrize("run", [lambda f, x: f(x), lambda f, x: jg.jit(f)(x)],
                         ids=["eager", "jit"])
def test_signbit_reads_the_sign_bit(run):
    z = np.array([-0.0, 0.0, -np.nan, np.nan, -1.0, np.inf, -np.inf], np.float32)
    assert run(jnp.signbit, z).tolist() == np.signbit(z).tolist()
    ones = np.ones_like(z)
    assert run(lambda b: jnp.copysign(ones, b), z).tolist() == np.copysign(ones, z).tolist()


def test_cross_keeps_the_vector_axis():
    a, b = np.random.rand(2, 3, 4), np.random.rand(2, 3, 4)
    got = jnp.cross(a, b, axis=-2)
    assert got.shape == (2, 3, 4)
    np.testing.assert_allclose(got.numpy(), np.cross(a, b, axis=-2))
    np.testing.assert_allclose(jnp.cross(a, b, axisa=1, axisb=1, axisc=0).numpy(),
                               np.cross(a, b, axisa=1, axisb=1, axisc=0))
    with pytest.raises(ValueError, match=r"cross: the vectors need 3 components on axis -1 "
                                         r"\(and -1\), got shapes \(2, 3, 4\) and \(2, 3, 4\)"):
        jnp.cross(a, b)


def test_cumprod_empty_axis_and_int_dtype():
    assert jnp.cumprod(np.zeros((2, 0), np.int32), axis=1).shape == (2, 0)
    assert jnp.cumprod(np.zeros((2, 0), np.int32), axis=1).dtype == np.int64
    assert jnp.cumprod(np.arange(1, 4, dtype=np.int32)).dtype == np.int64
    assert jnp.cumprod(np.arange(1, 4, dtype=np.int32), dtype=jnp.float32).dtype == np.float32


def test_inplace_bit_operators_write_through():
    x = jnp.asarray(np.arange(5))
    alias = x
    alias <<= 2
    alias |= 1
    alias ^= 3
    alias >>= 1
    alias &= 6
    want = ((((np.arange(5) << 2) | 1) ^ 3) >> 1) & 6
    assert x.tolist() == want.tolist() and alias is x
    y = jnp.asarray(np.arange(1, 6))
    y //= 2
    y %= 2
    y **= 3
    assert y.tolist() == (((np.arange(1, 6) // 2) % 2) ** 3).tolist()


@pytest.mark.parametrize("call, msg", [
    (lambda: jnp.bitwise_and(np.ones(2), np.ones(2, np.int32)),
     "bitwise_and is supported on integer and bool tensors, got float64 and float64"),
    (lambda: jnp.left_shift(np.ones(2, np.float32), 1),
     "left_shift is supported on integer and bool tensors, got float32 and float32"),
    (lambda: ~jnp.ones(2), r"invert \(~\) is supported on integer and bool tensors, got float32"),
    (lambda: jnp.asarray([1.5]) | 1, "bitwise_or is supported on integer and bool tensors"),
])
def test_bit_operations_on_floats_are_errors(call, msg):
    with pytest.raises(TypeError, match=msg):
        call()
