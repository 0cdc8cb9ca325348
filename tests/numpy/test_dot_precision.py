"""precision= and preferred_element_type= on jnp's products, and lax.Precision (jax.numpy's
keywords; jax-ml/jax examples/kernel_lsq.py calls jnp.dot(x, y, precision=lax.Precision.HIGH))."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import lax

X = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
PRODUCTS = {
    "dot": (lambda x, **k: jnp.dot(x, x.T, **k), lambda x: x @ x.T),
    "matmul": (lambda x, **k: jnp.matmul(x, x.T, **k), lambda x: x @ x.T),
    "tensordot": (lambda x, **k: jnp.tensordot(x, x, ([1], [1]), **k), lambda x: x @ x.T),
    "einsum": (lambda x, **k: jnp.einsum("ij,kj->ik", x, x, **k), lambda x: x @ x.T),
    "inner": (lambda x, **k: jnp.inner(x, x, **k), lambda x: x @ x.T),
    "vdot": (lambda x, **k: jnp.vdot(x, x, **k), lambda x: np.vdot(x, x)),
    "vecdot": (lambda x, **k: jnp.vecdot(x, x, **k), lambda x: (x * x).sum(-1)),
}


@pytest.mark.parametrize("name", sorted(PRODUCTS))
@pytest.mark.parametrize("precision", [None, lax.Precision.HIGH, "highest",
                                       (lax.Precision.DEFAULT, "tensorfloat32")])
def test_every_precision_gives_the_float32_product(name, precision):
    f, ref = PRODUCTS[name]
    want = ref(X.astype(np.float64))
    eager = f(X, precision=precision)
    jitted = jg.jit(lambda x: f(x, precision=precision))(X)
    for got in (eager, jitted):
        assert got.dtype == jnp.float32
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


@pytest.mark.interpreter
def test_precision_on_the_interpreter_and_under_grad_and_vmap():
    f = lambda x: jnp.sum(jnp.dot(x, x.T, precision=lax.Precision.HIGHEST) ** 2)
    np.testing.assert_allclose(np.asarray(jg.jit(f)(X)), ((X @ X.T) ** 2).sum(), rtol=1e-6)
    # d/dx sum((x x^T)^2) = 4 (x x^T) x
    np.testing.assert_allclose(np.asarray(jg.grad(f)(X)), 4 * (X @ X.T) @ X, rtol=1e-5)
    rows = jg.vmap(lambda r: jnp.dot(r, r, precision="high"))(X)
    np.testing.assert_allclose(np.asarray(rows), (X * X).sum(1), rtol=1e-6)


def test_preferred_element_type_is_the_result_dtype():
    a = np.full(4, 100, np.int8)
    out = jnp.dot(a, a, preferred_element_type=jnp.int32)     # int8 would wrap: 40000
    assert out.dtype == jnp.int32 and int(out) == 40000
    out = jg.jit(lambda x: jnp.einsum("i,i->", x, x, preferred_element_type=jnp.float64))(X[0])
    assert out.dtype == jnp.float64
    np.testing.assert_allclose(float(out), float((X[0].astype(np.float64) ** 2).sum()))


def test_lax_precision_names():
    assert lax.Precision("highest") is lax.Precision.HIGHEST
    assert lax.Precision("tensorfloat32") is lax.Precision.HIGH
    assert lax.Precision("bfloat16") is lax.Precision.DEFAULT
    assert str(lax.Precision.HIGH) == "HIGH"
    with pytest.raises(ValueError, match="'fast' is not a valid Precision"):
        lax.Precision("fast")


def test_a_bad_precision_names_the_accepted_forms():
    with pytest.raises(ValueError, match=r"precision must be None, a lax.Precision.*got 'bogus'"):
        jnp.dot(X, X.T, precision="bogus")
    with pytest.raises(ValueError, match=r"got \('high', 'high', 'high'\)"):
        jg.jit(lambda x: jnp.matmul(x, x.T, precision=("high",) * 3))(X)
