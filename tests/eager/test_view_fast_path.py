"""The eager view ops recorded for autograd without the general dispatch (basic slicing,
transpose / swapaxes, reshape): NumPy's values and views, the gradients NumPy's indexing
implies, write-through both ways, the same records, errors and jit results as the general path.

The general path is the one jg.profiler forces (it times every eager op through the backend),
so running a function with and without the profiler compares the two."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

KEYS = [
    (Ellipsis, slice(0, 2)),
    (slice(None), 1),
    (1, slice(None, None, 2), -1),
    slice(1, None),
    (Ellipsis, -1),
    0,
    (slice(-3, None), Ellipsis, slice(1, 5, 3)),
    (slice(2, 1), Ellipsis),            # empty
    (None, Ellipsis, 1),
    (slice(None), None, slice(1, 3)),
    (None, None),                       # all of x, two axes more: a reshape only
    (0, None, 2),
    (Ellipsis, None),
]


def _x():
    return np.arange(60, dtype=np.float32).reshape(3, 4, 5) / 7


def _leaf():
    return jg.tensor(_x(), requires_grad=True)


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_slices_are_numpy_views_with_numpys_gradient(key):
    x = _leaf()
    y = x[key]
    want = _x()[key]
    np.testing.assert_array_equal(y.detach().numpy(), want)
    assert y.requires_grad and np.shares_memory(y._data, x._data) or want.size == 0
    r = np.random.default_rng(0).standard_normal(want.shape).astype(np.float32)
    (y * jg.tensor(r)).sum().backward()
    expected = np.zeros_like(_x())
    expected[key] = r
    np.testing.assert_array_equal(x.grad.numpy(), expected)


VIEWS = {
    "slice": lambda x: x[..., 1:4],
    "slice_int": lambda x: x[:, 2],
    "slice_none": lambda x: x[None, 1:, None, ..., 3],
    "none": lambda x: x[:, None],
    "transpose": lambda x: x.transpose(1, 2),
    "swapaxes": lambda x: jnp.swapaxes(x, -1, 0),
    "permute": lambda x: jnp.transpose(x, (2, 0, 1)),
    "reversed": lambda x: jnp.transpose(x),
    "reshape": lambda x: x.reshape(3, 2, -1),
    "reshape_copy": lambda x: x.transpose(0, 2).reshape(-1),
    "chain": lambda x: x[..., 0:4].reshape(3, 4, 2, 2).swapaxes(1, 2),
}


def _run(fn):
    x = _leaf()
    y = fn(x)
    out = (repr(y.grad_fn), y.detach().numpy().copy(), np.shares_memory(y._data, x._data))
    (y * y).sum().backward()
    return out + (x.grad.numpy(),)


@pytest.mark.parametrize("name", VIEWS)
def test_views_record_what_the_general_path_records(name):
    fast = _run(VIEWS[name])
    with jg.profiler.profile():
        general = _run(VIEWS[name])
    assert fast[0] == general[0] and fast[2] == general[2]
    np.testing.assert_array_equal(fast[1], general[1])
    np.testing.assert_array_equal(fast[3], general[3])


def test_transpose_and_reshape_values_and_gradients_match_numpy():
    x = _leaf()
    y = x.transpose(1, 2).reshape(3, 20)
    np.testing.assert_array_equal(y.detach().numpy(), _x().transpose(0, 2, 1).reshape(3, 20))
    r = np.random.default_rng(1).standard_normal((3, 20)).astype(np.float32)
    (y * jg.tensor(r)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), r.reshape(3, 5, 4).transpose(0, 2, 1))
    assert x.reshape(3, 4, 5) is x and jnp.swapaxes(x, 1, -2) is x


def test_writes_through_a_recorded_view_reach_the_base_both_ways():
    x = _leaf()
    y = x[..., 1:3]
    with jg.no_grad():
        x.add_(1.0)
        np.testing.assert_array_equal(y.detach().numpy(), _x()[..., 1:3] + 1)
        y.mul_(2.0)
    want = _x() + 1
    want[..., 1:3] *= 2
    np.testing.assert_array_equal(x.detach().numpy(), want)


def test_a_base_modified_after_the_view_was_recorded_is_caught_by_backward():
    x = _leaf()
    y = x[:, 1]
    with jg.no_grad():
        x.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation.*'slice'"):
        y.sum().backward()


def test_without_grad_a_slice_shares_the_version_counter():
    x = _leaf()
    with jg.no_grad():
        y = x[..., 1:3]
        assert not y.requires_grad and np.shares_memory(y._data, x._data)
        x.add_(1.0)
    assert y._version[0] == x._version[0] == 1


def test_low_precision_views_take_the_general_path():
    x = jg.tensor(_x().astype(np.float16), requires_grad=True)
    y = x[..., 1:3].swapaxes(0, 1).reshape(-1)
    np.testing.assert_array_equal(y.detach().numpy(),
                                  _x().astype(np.float16)[..., 1:3].swapaxes(0, 1).reshape(-1))
    y.sum().backward()
    want = np.zeros((3, 4, 5), np.float16)
    want[..., 1:3] = 1
    np.testing.assert_array_equal(x.grad.numpy(), want)


@pytest.mark.parametrize("fn, error, match", [
    (lambda x: x[:, 7], IndexError, "out of bounds for axis 1 with size 4"),
    (lambda x: x[0, 0, 0, 0], IndexError, "too many indices"),
    (lambda x: x[..., 1, ...], IndexError, "single ellipsis"),
    (lambda x: jnp.swapaxes(x, 0, 3), np.exceptions.AxisError, "axis 3 is out of bounds"),
    (lambda x: x.reshape(7, -1), ValueError, "cannot reshape array of size 60"),
    (lambda x: jnp.transpose(x, (0, 0, 1)), ValueError, "repeated axis"),
    (lambda x: jnp.transpose(x, (0, 1)), ValueError, "don't match an array of dimension 3"),
])
def test_bad_views_raise_the_general_paths_errors(fn, error, match):
    with pytest.raises(error, match=match):
        fn(_leaf())


def _model(x):
    return (x[..., 1:4].swapaxes(0, 1).reshape(4, -1) * x[:, 2, 1:4].reshape(-1)).sum()


def _check_jit_and_grad():
    x = _leaf()
    eager = _model(x)
    eager.backward()
    np.testing.assert_allclose(np.asarray(jg.jit(_model)(_x())), eager.item(), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jg.grad(_model)(_x())), x.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jg.grad(jg.jit(_model))(_x())), x.grad.numpy(),
                               rtol=1e-6)


def test_eager_views_match_jit_and_grad():
    _check_jit_and_grad()


@pytest.mark.interpreter
def test_eager_views_match_jit_on_the_interpreter():
    _check_jit_and_grad()


def test_vmap_of_views_matches_numpy():
    out = jg.vmap(lambda r: r[1:3].swapaxes(0, 1).reshape(-1))(_x())
    np.testing.assert_array_equal(np.asarray(out), _x()[:, 1:3].swapaxes(1, 2).reshape(3, -1))


def test_the_profiler_still_shows_each_view_op_as_an_eager_row():
    x = _leaf()
    with jg.profiler.profile() as prof:
        x[..., 1:3].transpose(0, 2).reshape(-1)
        x[:, 1]
    calls = {}
    for r in prof.key_averages():         # one row per op and source line
        assert r.kind == "eager"
        calls[r.name] = calls.get(r.name, 0) + r.calls
    assert calls == {"slice": 2, "transpose": 1, "reshape": 2}
