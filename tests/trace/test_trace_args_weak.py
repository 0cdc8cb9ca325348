"""NumPy and Python scalar arguments of jit (and of the transformations that trace: grad,
value_and_grad, vmap) are weakly typed traced values (JAX's weak_type), as NumPy scalars are
when they meet a jitgrad array in eager code: `x_f32 * np.float64(0.5)` is float32 on every
path. Weak and strong arguments of one dtype are cached apart."""
from __future__ import annotations

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

PATHS = ["eager", "jit", pytest.param("jit_interpreter", marks=pytest.mark.interpreter)]
X = np.array([1.0, 2.0, 4.0], np.float32)


def run(path, f, *args):
    return f(*args) if path == "eager" else jg.jit(f)(*args)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("scalar", [np.float64(0.5), np.float32(0.5), 0.5],
                         ids=["np.float64", "np.float32", "python"])
def test_scalar_argument_is_weak(path, scalar):
    out = run(path, lambda a, s: a * s, jnp.asarray(X), scalar)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.numpy(), X * np.float32(0.5))


@pytest.mark.parametrize("path", PATHS)
def test_weak_integer_scalar_keeps_the_array_dtype(path):
    ints = jnp.asarray(np.array([1, 2, 3], np.int32))
    out = run(path, lambda a, s: a * s, ints, np.int64(3))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.numpy(), [3, 6, 9])


@pytest.mark.parametrize("path", PATHS)
def test_scalar_alone_keeps_its_dtype(path):
    # a weak float64 meets nothing stronger: float64, as np.float64(0.5) * 2 is
    out = run(path, lambda s: jnp.multiply(s, 2), np.float64(0.5))
    assert out.dtype == np.float64 and float(out) == 1.0


def test_weak_and_strong_arguments_are_cached_apart():
    f = jg.jit(lambda a, s: jnp.multiply(a, s))     # JAX's lattice (`a * s` is torch's: a 0-d
    x = jnp.asarray(X)                              # tensor ranks below a dimensioned one)
    assert f(x, np.float64(0.5)).dtype == np.float32                 # weak
    assert f(x, jnp.asarray(np.float64(0.5))).dtype == np.float64    # a strong float64 tensor
    assert f(x, np.float64(0.25)).dtype == np.float32                # weak again: cached
    assert f.trace_count == 2


def test_shape_dtype_weak_type():
    lowered = jg.jit(lambda a, s: a * s).lower(
        jg.ShapeDtype((3,), "float32"), jg.ShapeDtype((), "float64", weak_type=True))
    assert "f32[3]" in lowered.ir and "f64[3]" not in lowered.ir
    assert "weak_type=True" in repr(jg.ShapeDtype((), "float64", weak_type=True))


@pytest.mark.parametrize("path", PATHS)
def test_grad_and_value_and_grad_of_a_weak_scalar(path):
    def loss(a, s):
        return jnp.sum(a * s)
    g = run(path, jg.grad(loss), jnp.asarray(X), np.float64(0.5))
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g.numpy(), [0.5, 0.5, 0.5])
    value, ga = run(path, jg.value_and_grad(loss), jnp.asarray(X), np.float64(0.5))
    assert value.dtype == np.float32 and float(value) == 3.5
    # the derivative with respect to the scalar: sum(a)
    gs = run(path, jg.grad(loss, argnums=1), jnp.asarray(X), np.float64(0.5))
    assert float(gs) == 7.0


@pytest.mark.parametrize("path", PATHS)
def test_grad_inside_jit_closing_over_a_weak_scalar(path):
    def f(a, s):
        return jg.grad(lambda a: jnp.sum(a * a * s))(a)
    out = run(path, f, jnp.asarray(X), np.float64(0.5))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.numpy(), X)


@pytest.mark.parametrize("path", PATHS)
def test_vmap_shared_scalar_is_weak(path):
    # under jit the shared argument is a weakly typed traced value; vmap keeps its weak type
    rows = jnp.asarray(np.stack([X, 2 * X]))
    out = run(path, lambda r, s: jg.vmap(lambda row, t: row * t, in_axes=(0, None))(r, s),
              rows, np.float64(2.0))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.numpy(), np.stack([X, 2 * X]) * 2)
