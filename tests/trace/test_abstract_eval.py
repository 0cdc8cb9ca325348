"""jg.make_jaxpr and jg.eval_shape (jax.make_jaxpr, jax.eval_shape, jax.ShapeDtypeStruct)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp


def test_make_jaxpr_prints_the_traced_graph():
    graph = jg.make_jaxpr(lambda x, y: jnp.sin(x) * y)(np.ones(3, np.float32), 2.0)
    text = str(graph)
    assert "sin" in text and "mul" in text
    assert [v.type.shape for v in graph.outputs] == [(3,)]


def test_make_jaxpr_static_argnums_and_return_shape():
    graph, shapes = jg.make_jaxpr(lambda x, n: {"y": x[:n]}, static_argnums=1,
                                  return_shape=True)(np.ones(5, np.float32), 2)
    assert len(graph.inputs) == 1
    assert shapes["y"].shape == (2,) and shapes["y"].dtype == jnp.float32


def test_make_jaxpr_of_a_vmapped_gram_matrix():
    # the shape jax-ml/jax examples/kernel_lsq.py prints
    xs = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    gram = lambda xs: jg.vmap(lambda x: jg.vmap(lambda y: jnp.dot(x, y))(xs))(xs)
    graph = jg.make_jaxpr(gram)(xs)
    assert [v.type.shape for v in graph.outputs] == [(4, 4)]
    np.testing.assert_allclose(np.asarray(jg.jit(gram)(xs)), xs @ xs.T)


def test_eval_shape_computes_nothing():
    calls = []

    def f(x):
        calls.append(1)
        return {"sum": x.sum(0), "gram": x @ x.T, "n": jnp.int32(3) + 0}
    spec = jg.ShapeDtypeStruct((4, 3), jnp.float32)
    out = jg.eval_shape(f, spec)
    assert out["sum"].shape == (3,) and out["gram"].shape == (4, 4)
    assert out["gram"].dtype == jnp.float32 and out["n"].dtype == jnp.int32
    assert isinstance(out["sum"], jg.ShapeDtype) and calls == [1]


def test_make_jaxpr_refuses_a_non_array_argument():
    with pytest.raises(TypeError, match="expected a tensor.*got str"):
        jg.make_jaxpr(lambda s: s)("text")
