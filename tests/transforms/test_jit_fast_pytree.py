"""jit's fast path for plain pytrees of CPU arrays (transforms/fast_args.py): repeated calls with
dicts, lists and tuples of tensors skip the full signature and give the results of the first."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.transforms.fast_args import fast_args


def predict(params, x):
    k = jnp.exp(-(params["a"] - x) ** 2)
    return {"y": jnp.sum(params["b"][0] * k + params["b"][1]), "k": k}


def make(n=4, seed=0):
    rng = np.random.default_rng(seed)
    f = lambda: rng.standard_normal(n).astype(np.float32)     # noqa: E731
    return {"b": [jg.tensor(f()), f()], "a": jg.tensor(f())}, jg.tensor(f())


def test_repeated_pytree_calls_take_the_fast_path_with_equal_results():
    step = jg.jit(predict)
    params, x = make()
    first = step(params, x)
    key = fast_args((params, x))[0]
    assert key in step._fast
    for seed in (1, 2):
        p, x2 = make(seed=seed)
        out = step(p, x2)
        want = predict(p, x2)
        assert set(out) == {"y", "k"}
        np.testing.assert_allclose(np.asarray(out["y"]), np.asarray(want["y"]), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(out["k"]), np.asarray(want["k"]), rtol=1e-6)
    assert step.trace_count == 1 and set(first) == {"y", "k"}
    step(*make(n=5))                                  # new shapes: a new signature
    assert step.trace_count == 2


def test_leaves_come_in_tree_flatten_order():
    params, x = make()
    key, arrays = fast_args((params, x))     # a tensor's storage, an array itself
    assert [a.ctypes.data for a in arrays] == [
        np.asarray(v).ctypes.data for v in jg.tree_util.tree_leaves((params, x))]
    assert fast_args(({"b": 1, 2: 3},)) is None                 # mixed key types
    assert fast_args(({"a": None},)) is None and fast_args((1.0,)) is None
    g = jg.tensor(np.ones(3, np.float32), requires_grad=True)
    assert fast_args(({"w": g},)) is None                        # recorded for autograd


@pytest.mark.parametrize("container", [tuple, list])
def test_sequences_and_ndarrays(container):
    step = jg.jit(lambda xs: xs[0] * 2 + xs[1])
    a, b = np.arange(3, dtype=np.float32), np.ones(3, np.float32)
    for _ in range(3):
        out = step(container([a, jg.tensor(b)]))
        np.testing.assert_allclose(np.asarray(out), a * 2 + b)
    assert step.trace_count == 1


def test_layouts_and_dtypes_of_one_shape_take_their_own_fast_calls():
    step = jg.jit(lambda a, b: a * 2 + b)
    m = np.arange(16, dtype=np.float32).reshape(4, 4)
    cases = [(m, m), (m.T, m), (m, m[:, ::-1]), (m.astype(np.float64), m),
             (jg.tensor(m), np.asfortranarray(m))]
    for _ in range(3):
        for a, b in cases:
            want = np.asarray(a, np.float32) * 2 + np.asarray(b, np.float32)
            np.testing.assert_array_equal(np.asarray(step(a, b)), want)
    assert len(step._fast) == len(cases)


def test_a_failed_check_on_the_fast_path_raises_each_time():
    step = jg.jit(lambda x, i: jnp.take(x, i, mode="raise"))
    x, ok, bad = np.arange(4, dtype=np.float32), np.array([1, 3]), np.array([1, 7])
    np.testing.assert_array_equal(np.asarray(step(x, ok)), [1, 3])
    for _ in range(2):
        with pytest.raises(IndexError):
            step(x, bad)
        np.testing.assert_array_equal(np.asarray(step(x, ok)), [1, 3])
