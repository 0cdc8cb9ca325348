"""Keyword arguments pass through grad, value_and_grad, jacrev, jacfwd and hessian to the
function, not differentiated (JAX's behaviour), eagerly, under jit and for grad of a jitted
function. f(x, w) = sum(w * x**2): df/dx = 2 w x, d2f/dx2 = diag(2 w)."""
from __future__ import annotations

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

PATHS = ["eager", "jit", pytest.param("jit_interpreter", marks=pytest.mark.interpreter)]
X = np.array([1.0, -2.0, 3.0], np.float32)


def f(x, w=1.0):
    return jnp.sum(w * x * x)


def run(path, transformed, *args, **kwargs):
    if path == "eager":
        return transformed(*args, **kwargs)
    return jg.jit(transformed)(*args, **kwargs)


@pytest.mark.parametrize("path", PATHS)
def test_grad_passes_keyword_arguments(path):
    g = run(path, jg.grad(f), X, w=3.0)
    np.testing.assert_allclose(g.numpy(), 6 * X)


@pytest.mark.parametrize("path", PATHS)
def test_value_and_grad_passes_keyword_arguments(path):
    value, g = run(path, jg.value_and_grad(f), X, w=3.0)
    np.testing.assert_allclose(float(value), 3 * np.sum(X * X), rtol=1e-6)
    np.testing.assert_allclose(g.numpy(), 6 * X)


@pytest.mark.parametrize("path", PATHS)
def test_grad_of_jit_passes_keyword_arguments(path):
    g = run(path, jg.grad(jg.jit(f)), X, w=3.0)
    np.testing.assert_allclose(g.numpy(), 6 * X)
    value, g = run(path, jg.value_and_grad(jg.jit(f)), X, w=0.5)
    np.testing.assert_allclose(g.numpy(), X)


@pytest.mark.parametrize("path", PATHS)
def test_array_keyword_argument_is_not_differentiated(path):
    w = np.array([1.0, 2.0, 3.0], np.float32)
    g = run(path, jg.grad(f), X, w=w)
    np.testing.assert_allclose(g.numpy(), 2 * w * X)


@pytest.mark.parametrize("path", PATHS)
def test_has_aux_with_keyword_arguments(path):
    def loss(x, scale=1.0):
        return jnp.sum(scale * x), jnp.max(x)
    g, aux = run(path, jg.grad(loss, has_aux=True), X, scale=2.0)
    np.testing.assert_allclose(g.numpy(), [2.0, 2.0, 2.0])
    assert float(aux) == 3.0


@pytest.mark.parametrize("path", PATHS)
def test_jacobians_pass_keyword_arguments(path):
    def h(x, w=1.0):
        return w * x * x
    np.testing.assert_allclose(run(path, jg.jacrev(h), X, w=3.0).numpy(), np.diag(6 * X))
    np.testing.assert_allclose(run(path, jg.jacfwd(h), X, w=3.0).numpy(), np.diag(6 * X))
    np.testing.assert_allclose(run(path, jg.hessian(f), X, w=3.0).numpy(), np.diag([6.0] * 3))


def test_unknown_keyword_names_the_function():
    with pytest.raises(TypeError, match="unexpected keyword argument 'v'"):
        jg.grad(f)(X, v=3.0)
