"""Eager forms that write into storage they own: a Linear's bias added into its product's storage
(jitgrad/eager/add_into.py) and `select` on the operands' bits (numpy_forms.bit_select). Same values
and gradients as the plain forms; everything they do not fit takes the plain form."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.eager.add_into import add_into
from jitgrad.eager.numpy_forms import bit_select
from jitgrad.nn import functional as F

RNG = np.random.default_rng(0)


def _arr(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def _linear_plain(x, w, b):
    return jnp.add(jnp.matmul(x, jnp.transpose(w)), b)


@pytest.mark.parametrize("shape", [(5, 4), (2, 3, 4)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linear_values_and_gradients_equal_the_plain_add(shape, dtype):
    x, w, b = _arr(*shape, dtype=dtype), _arr(6, 4, dtype=dtype), _arr(6, dtype=dtype)
    got, want = [], []
    for fn, sink in ((F.linear, got), (_linear_plain, want)):
        ts = [jg.tensor(a, requires_grad=True) for a in (x, w, b)]
        for _ in range(4):                  # past the backward's and fast path's warm-up
            for t in ts:
                t.grad = None
            y = fn(*ts)
            jnp.sum(jnp.tanh(y) * y).backward()
        sink.extend([y.detach().numpy()] + [t.grad.numpy() for t in ts])
    for g, w_ in zip(got, want):
        np.testing.assert_array_equal(g, w_)


def test_the_sum_takes_the_products_storage():
    a = jg.tensor(_arr(3, 4)) * 2.0          # a result this test made
    b = jg.tensor(_arr(4))
    want = a.numpy() + b.numpy()
    out = add_into(a, b)
    np.testing.assert_array_equal(out.numpy(), want)
    assert np.shares_memory(out.numpy(), a.numpy())


def test_records_an_add_for_backward():
    x = jg.tensor(_arr(3, 4), requires_grad=True)
    b = jg.tensor(_arr(4), requires_grad=True)
    out = add_into(x * 3.0, b)
    jnp.sum(out * out).backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * out.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), 2 * out.detach().numpy().sum(0), rtol=1e-6)


def test_no_grad_linear_equals_the_plain_add():
    x, w, b = (jg.tensor(a, requires_grad=True) for a in (_arr(2, 3, 4), _arr(6, 4), _arr(6)))
    with jg.no_grad():
        got = F.linear(x, w, b)
        assert not got.requires_grad
    np.testing.assert_array_equal(got.numpy(), _linear_plain(x, w, b).detach().numpy())


@pytest.mark.parametrize("case", ["broadcasts_a", "promotes", "ints", "shares_memory", "view",
                                  "numpy"])
def test_what_does_not_fit_is_left_to_the_caller(case):
    a = jg.tensor(_arr(3, 4)) * 1.0
    b = jg.tensor(_arr(4))
    if case == "broadcasts_a":
        a, b = jg.tensor(_arr(4)) * 1.0, jg.tensor(_arr(3, 4))
    elif case == "promotes":
        b = jg.tensor(_arr(4, dtype=np.float64))
    elif case == "ints":
        a, b = jg.tensor(np.arange(4)) * 1, jg.tensor(np.arange(4))
    elif case == "shares_memory":
        b = a
    elif case == "view":
        _ = a[0]                            # a has a view: writing into a would change it
    elif case == "numpy":
        b = _arr(4)
    before = a.numpy().copy()
    assert add_into(a, b) is None
    np.testing.assert_array_equal(a.numpy(), before)


def test_linear_under_jit_and_grad_is_unchanged():
    x, w, b = _arr(2, 3, 4), _arr(6, 4), _arr(6)
    np.testing.assert_allclose(np.asarray(jg.jit(F.linear)(x, w, b)), x @ w.T + b, rtol=1e-5,
                               atol=1e-6)
    gw = jg.grad(lambda w: jnp.sum(F.linear(x, w, b) ** 2))(w)
    gw_plain = jg.grad(lambda w: jnp.sum(_linear_plain(x, w, b) ** 2))(w)
    np.testing.assert_allclose(np.asarray(gw), np.asarray(gw_plain), rtol=1e-6)


# ----------------------------------------------------------------------------- select

@pytest.mark.parametrize("pred_shape,t_shape,f_shape", [
    ((4, 4), (2, 3, 4, 4), ()),             # a causal mask on scores
    ((1, 4), (3, 4), (3, 4)),
    ((3, 4), (4,), ()),                     # on_true smaller than the result: np.where
    ((3, 4), (3, 4), (3, 1)),
])
def test_bit_select_equals_np_where(pred_shape, t_shape, f_shape):
    pred = RNG.random(pred_shape) < 0.5
    t = _arr(*t_shape)
    t.reshape(-1)[:2] = [np.nan, np.inf]
    f = np.full(f_shape, -np.inf, np.float32)
    got, want = bit_select(pred, t, f), np.where(pred, t, f)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int64", "uint16",
                                   "bool", "complex64", "complex128"])
@pytest.mark.parametrize("zero", ["on_true", "on_false", "neither"])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((1, 4), (3, 1)), ((2, 1, 4), (4,)),
                                    ((), ())], ids=["same", "broadcast", "pred larger", "0-d"])
def test_bit_select_has_the_bits_of_np_where(dtype, zero, shapes):
    """ReLU's where(x <= 0, 0, x), a masked fill of zeros and the general case, every dtype:
    bit for bit np.where's result (-0.0 and NaN payloads kept, a 0-d zero skipped)."""
    pred_shape, x_shape = shapes
    pred = np.asarray(RNG.random(pred_shape) < 0.5)     # eager arrays: 0-d ones too
    x = np.asarray(RNG.standard_normal(x_shape) * 9).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x.reshape(-1)[:3] = [-0.0, np.nan, -np.inf][:x.size]
    other = np.zeros((), dtype) if zero != "neither" else \
        np.asarray(np.flip(x) + 1).astype(dtype)
    t, f = (other, x) if zero == "on_true" else (x, other)
    got, want = bit_select(pred, t, f), np.where(pred, t, f)
    assert type(got) is np.ndarray and got.shape == want.shape and got.dtype == want.dtype
    assert got.flags.c_contiguous and got.tobytes() == want.tobytes()


def test_bit_select_leaves_other_dtypes_to_np_where():
    pred = np.array([True, False])
    ints = np.array([1, 2], np.int32)
    np.testing.assert_array_equal(bit_select(pred, ints, np.array([3.5, 4.5])), [1.0, 4.5])
    objs = np.array([None, "a"], object)
    assert list(bit_select(pred, objs, objs[::-1])) == [None, None]


def test_eager_where_with_a_mask_gives_values_and_gradients_of_the_reference():
    mask = np.tril(np.ones((4, 4), bool))
    s = _arr(2, 4, 4)
    x = jg.tensor(s, requires_grad=True)
    for _ in range(3):
        x.grad = None
        y = jnp.where(mask, x, -jnp.inf)
        jnp.sum(jnp.where(mask, y, 0.0) * 2.0).backward()
    np.testing.assert_array_equal(y.detach().numpy(), np.where(mask, s, -np.inf))
    np.testing.assert_array_equal(x.grad.numpy(), np.broadcast_to(2.0 * mask, s.shape))
