"""Array API 2023.12: from_dlpack(x, device=, copy=), __array_namespace_info__().capabilities(),
cumulative_sum(x, axis=, dtype=, include_initial=)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp


# ------------------------------------------------------------------------------ from_dlpack

@pytest.mark.parametrize("from_dlpack", [jg.from_dlpack, jnp.from_dlpack], ids=["jg", "jnp"])
def test_from_dlpack_shares_unless_asked_to_copy(from_dlpack):
    a = np.arange(3.0)
    shared, shared_too = from_dlpack(a), from_dlpack(a, copy=False)
    own = from_dlpack(a, copy=True)
    a[0] = 7.0
    assert shared.tolist() == shared_too.tolist() == [7.0, 1.0, 2.0]
    assert own.tolist() == [0.0, 1.0, 2.0]
    t = jg.tensor([1.0, 2.0])
    copied = from_dlpack(t, copy=True)
    t.copy_(np.array([2.0, 3.0]))
    assert copied.tolist() == [1.0, 2.0] and from_dlpack(t).tolist() == [2.0, 3.0]


def test_from_dlpack_device():
    a = np.arange(4, dtype=np.int32).reshape(2, 2).T        # strided: a view, still shared
    same = jnp.from_dlpack(a, device="cpu", copy=False)
    assert same.device == jg.device("cpu") and np.shares_memory(np.asarray(same), a)
    moved = jnp.from_dlpack(a, device="meta")
    assert moved.device == jg.device("meta") and moved.shape == (2, 2) and moved.dtype == a.dtype
    with pytest.raises(BufferError, match=r"from_dlpack\(copy=False\): the data is on cpu, "
                                          r"moving it to meta needs a copy"):
        jg.from_dlpack(a, device="meta", copy=False)


def test_from_dlpack_errors():
    with pytest.raises(TypeError, match="expected an object with __dlpack__ or "
                                        "__cuda_array_interface__, got list"):
        jnp.from_dlpack([1.0, 2.0])


# ---------------------------------------------------------------------------- capabilities

def test_capabilities_is_the_2023_12_dict():
    assert jnp.__array_api_version__ == "2023.12"
    caps = jnp.__array_namespace_info__().capabilities()
    assert caps == {"boolean indexing": True, "data-dependent shapes": True}


# -------------------------------------------------------------------------- cumulative_sum

@pytest.mark.parametrize("shape,axis", [((5,), None), ((2, 3), 1), ((2, 3), -2), ((2, 0), 1),
                                        ((0,), 0)])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum_matches_numpy(shape, axis, include_initial):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) - 2
    want = np.cumulative_sum(x, axis=axis, include_initial=include_initial)
    f = lambda a: jnp.cumulative_sum(a, axis=axis, include_initial=include_initial)  # noqa: E731
    for got in (f(x), jg.jit(f)(x)):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("dtype,want", [(np.int8, np.int64), (np.int64, np.int64),
                                        (np.uint16, np.uint64), (np.bool_, np.int64),
                                        (np.float32, np.float32), (np.complex64, np.complex64)])
def test_cumulative_sum_dtype_rule(dtype, want):
    """Integers narrower than the default integer (int64) accumulate in it; unsigned ones in
    the unsigned integer of its width (the standard's rule, and NumPy's)."""
    out = jnp.cumulative_sum(np.ones(3, dtype), include_initial=True)
    assert out.dtype == want and out.tolist() == [0, 1, 2, 3]


def test_cumulative_sum_casts_before_summing():
    x = np.array([200, 100, 50], np.uint8)
    out = jnp.cumulative_sum(x, dtype=jnp.float32, include_initial=True)
    assert out.dtype == np.float32 and out.tolist() == [0.0, 200.0, 300.0, 350.0]
    assert jnp.cumulative_sum(x, dtype=np.uint8).tolist() == [200, 44, 94]    # wraps in uint8


def test_cumulative_sum_grad_and_vmap():
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    w = np.array([[1.0, 10.0, 100.0, 1000.0]] * 2)
    f = lambda a: (jnp.cumulative_sum(a, axis=1, include_initial=True) * w).sum()  # noqa: E731
    want = np.array([[1110.0, 1100.0, 1000.0]] * 2)     # d/dx_j: sum of w_k over k > j
    np.testing.assert_array_equal(np.asarray(jg.grad(f)(x)), want)
    np.testing.assert_array_equal(np.asarray(jg.jit(jg.grad(f))(x)), want)
    per_row = jg.vmap(lambda r: jnp.cumulative_sum(r, include_initial=True))(x)
    np.testing.assert_array_equal(np.asarray(per_row),
                                  np.cumulative_sum(x, axis=1, include_initial=True))


@pytest.mark.interpreter
def test_cumulative_sum_on_the_interpreter():
    out = jg.jit(lambda a: jnp.cumulative_sum(a, axis=0, include_initial=True))(np.ones((2, 2)))
    np.testing.assert_array_equal(np.asarray(out), [[0, 0], [1, 1], [2, 2]])


def test_cumulative_sum_errors():
    with pytest.raises(ValueError, match="axis is required for an array of dimension 2"):
        jnp.cumulative_sum(np.ones((2, 2)))
    with pytest.raises(ValueError, match="expected an array of one or more dimensions, got a "
                                         "0-d array"):
        jnp.cumulative_sum(np.float32(1.0))
    with pytest.raises(np.exceptions.AxisError, match="axis 1 is out of bounds"):
        jnp.cumulative_sum(np.ones(3), axis=1)
