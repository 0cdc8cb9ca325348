"""Python numbers met by traced values (`0.9 * m`): one constant node per (dtype, value) in a
graph, the operands' dtype as the general promotion rules give it, and the same numbers and
errors as eager."""
import warnings

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir import Op

X32 = np.array([1.0, -2.0, 0.5], np.float32)
I32 = np.array([1, 2, -3], np.int32)


def _constants(graph):
    return [n for n in graph.nodes if n.op == Op.constant]


def test_one_constant_per_number_and_dtype():
    g = jg.make_graph(lambda x: 0.9 * x + x * 0.9 - 0.9 + x * 2)(X32)
    assert len(_constants(g)) == 2          # 0.9 once, 2 once
    g64 = jg.make_graph(lambda x, y: 0.9 * x + 0.9 * y)(X32, X32.astype(np.float64))
    assert sorted(str(c.output.type.dtype) for c in _constants(g64)) == ["float32", "float64"]


def test_signed_zeros_stay_apart():
    f = lambda x: (x * 0.0, x * -0.0)            # noqa: E731
    assert len(_constants(jg.make_graph(f)(X32))) == 2
    for a, b in zip(jg.jit(f)(jnp.asarray(X32)), f(jnp.asarray(X32))):
        np.testing.assert_array_equal(np.signbit(np.asarray(a)), np.signbit(np.asarray(b)))


CASES = [("float32 * int", lambda x: x * 2, X32), ("int32 * int", lambda x: x * 2, I32),
         ("int32 * float", lambda x: x * 2.5, I32), ("int32 + int32 min", lambda x: x + -2**31, I32),
         ("float32 / int", lambda x: 1 / x - x / 3, X32), ("float32 ** float", lambda x: x ** 2.0, X32),
         ("float32 * huge float", lambda x: x * 1e40, X32), ("bool * int", lambda x: (x > 0) * 3, X32)]


@pytest.mark.parametrize("name,f,x", CASES, ids=[c[0] for c in CASES])
def test_values_and_dtypes_as_eager(name, f, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)       # 1e40 overflows float32 on both
        want = f(jnp.asarray(x))
        got = jg.jit(f)(jnp.asarray(x))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_out_of_range_int_is_the_eager_error():
    f = lambda x: x * 2**40                       # noqa: E731
    with pytest.raises(OverflowError, match="out of bounds for int32"):
        f(jnp.asarray(I32))
    with pytest.raises(OverflowError, match="out of bounds for int32"):
        jg.jit(f)(jnp.asarray(I32))


def test_shared_constants_in_gradients_and_nested_traces():
    def loss(w):
        inner = jg.grad(lambda v: jnp.sum(0.5 * v * v * 0.5))(w)      # a trace inside the jit
        return jnp.sum(0.5 * w * w) + jnp.sum(inner * 0.5)
    w = jnp.asarray(X32)
    np.testing.assert_allclose(np.asarray(jg.jit(jg.grad(loss))(w)), np.asarray(jg.grad(loss)(w)),
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jg.grad(loss)(w)), X32 + 0.25, rtol=1e-6)
