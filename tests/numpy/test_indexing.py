"""Indexing with NumPy's rules, three ways: eager (NumPy storage), traced under jit, and the
decomposed path eager autograd uses (slice/rev/reshape/take primitives)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from tests.support.op_records import run_traced

X = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
I0 = np.array([2, 0, -1])
KEYS = {
    "int": 1, "neg int": -1, "int tuple": (1, 2), "all ints": (2, -1, 0),
    "slice": slice(1, 3), "step": (slice(None), slice(None, None, 2)),
    "neg step": slice(None, None, -1), "neg step bounds": (slice(2, 0, -1), slice(-1, 0, -2)),
    "empty slice": slice(2, 1), "out of range slice": slice(-10, 10),
    "None": None, "None middle": (slice(None), None, 1), "Ellipsis": Ellipsis,
    "Ellipsis last": (Ellipsis, -2), "Ellipsis middle": (0, Ellipsis, 1),
    "int array": I0, "list": [0, 0], "list of lists": [[0, 1], [2, 2]],
    "two arrays": (np.array([0, 2]), np.array([1, 3])),
    "broadcast arrays": (np.array([[0], [2]]), np.array([1, 3, 0])),
    "array after slice": (slice(None), [3, 0]),
    "separated arrays": ([0, 1], slice(None), [4, 0]),
    "array and int": (1, slice(None), I0),
    "array 0-d": np.array(1), "array with None": (None, [1, 2]),
    "array with ellipsis": (Ellipsis, [4, -5]),
}


@pytest.mark.parametrize("key", list(KEYS.values()), ids=list(KEYS))
def test_getitem_eager(key):
    got = jg.tensor(X)[key]
    want = X[key]
    assert isinstance(got, jg.Tensor) and got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)


def test_getitem_traced_and_decomposed():
    """All keys in one jitted call, and again on a requires_grad tensor (decomposed eagerly)."""
    keys = list(KEYS.values())
    with_grad = jg.tensor(X, requires_grad=True)
    every_key = lambda x: [x[k] for k in keys]  # noqa: E731
    for outs in (run_traced(every_key, X), jg.jit(every_key)(X), [with_grad[k] for k in keys]):
        for k, got in zip(keys, outs):
            want = X[k]
            assert got.shape == want.shape, k
            np.testing.assert_array_equal(np.asarray(got.detach()), want, err_msg=repr(k))


def test_tensor_indices_traced():
    """Indices that are themselves traced values: the cross-entropy pattern."""
    def pick(logp, labels):
        n = logp.shape[0]
        return logp[jnp.arange(n), labels], logp[:, labels[0]], logp[labels]
    logp = np.log(np.random.default_rng(0).dirichlet(np.ones(4), 5)).astype(np.float32)
    labels = np.array([3, 0, -1, 2, 1])
    for a, b, c in (pick(jg.tensor(logp), jg.tensor(labels)), run_traced(pick, logp, labels),
                    jg.jit(pick)(logp, labels)):
        np.testing.assert_array_equal(a.numpy(), logp[np.arange(5), labels])
        np.testing.assert_array_equal(b.numpy(), logp[:, 3])
        np.testing.assert_array_equal(c.numpy(), logp[labels])


def test_duplicate_gather():
    x = jg.tensor([1.0, 2.0, 3.0])
    assert x[[0, 0]].tolist() == [1.0, 1.0]
    assert jg.jit(lambda x: x[[0, 0, -1]])(x).tolist() == [1.0, 1.0, 3.0]


def test_boolean_masks_eager():
    x = jg.tensor(X)
    m = X > 30
    np.testing.assert_array_equal(x[jg.tensor(m)].numpy(), X[m])
    np.testing.assert_array_equal(x[m].numpy(), X[m])
    np.testing.assert_array_equal(x[x > 30].numpy(), X[X > 30])
    row = np.array([True, False, True])
    np.testing.assert_array_equal(x[row, 1].numpy(), X[row, 1])
    np.testing.assert_array_equal(x[:, [True, False, False, True]].numpy(),
                                  X[:, [True, False, False, True]])
    g = jg.tensor(X, requires_grad=True)           # the decomposed path
    np.testing.assert_array_equal(g[jg.tensor(m)].detach().numpy(), X[m])


def test_boolean_mask_under_jit_is_an_error():
    f = jg.jit(lambda x: x[x > 0])
    with pytest.raises(jg.ConcretizationError, match=r"data.*jnp.where\(mask, x, other\)"):
        f(jg.tensor([1.0, -1.0]))


def test_index_errors():
    x = jg.tensor(X)
    with pytest.raises(IndexError, match="out of bounds"):
        x[3]
    with pytest.raises(IndexError, match="out of bounds"):
        x[:, [0, 4]]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0, 0]
    with pytest.raises(IndexError):
        x[1.5]
    f = jg.jit(lambda x: x[:, 7])
    with pytest.raises(IndexError, match=r"index 7 is out of bounds for axis 1 with size 4 "
                                         r"\(at test_indexing.py:\d+\)"):
        f(x)
    with pytest.raises(IndexError, match="too many indices"):
        jg.jit(lambda x: x[0, 0, 0, 0])(x)
    with pytest.raises(IndexError, match="integer"):
        jg.jit(lambda x: x[np.array([0.5])])(x)


def test_index_with_tensor_scalar():
    x = jg.tensor(X)
    i = jg.tensor(2)
    np.testing.assert_array_equal(x[i].numpy(), X[2])
    np.testing.assert_array_equal(jg.jit(lambda x, i: x[i])(x, i).numpy(), X[2])


def test_at_functional_updates():
    x = jnp.zeros(5)
    assert x.at[1].set(3.0).tolist() == [0, 3, 0, 0, 0]
    assert x.at[[1, 1, 2]].add(1.0).tolist() == [0, 2, 1, 0, 0]
    assert x.tolist() == [0, 0, 0, 0, 0]
    f = jg.jit(lambda x, i: x.at[i].set(7.0))
    assert f(jg.tensor([1.0, 2.0, 3.0]), jg.tensor([0, 2])).tolist() == [7, 2, 7]


def test_setitem_under_jit_points_to_at():
    def f(x):
        x[0] = 1.0
        return x
    with pytest.raises(TypeError, match=r"x.at\[idx\].set\(v\)"):
        jg.jit(f)(jg.zeros(3))


def test_take_and_take_along_axis_modes():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(jnp.take(x, [[0, -1]], axis=1).numpy(),
                                  np.take(x, [[0, -1]], axis=1))
    idx = np.argsort(x, axis=1)[:, ::-1]
    np.testing.assert_array_equal(jnp.take_along_axis(x, idx, axis=1).numpy(),
                                  np.take_along_axis(x, idx, axis=1))
