"""jacrev / jacfwd / hessian, and custom_vjp."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.test_util import check_grads


def f64(a):
    return jnp.asarray(np.asarray(a, dtype=np.float64))


def _f(x, y):
    return jnp.sin(x) * y[0] + jnp.sum(y * y)


X, Y = np.array([0.2, -0.4, 0.9]), np.array([1.5, -0.5])


def _jac_want():
    jx = np.diag(np.cos(X) * Y[0])
    jy = np.stack([np.sin(X) + 2 * Y[0], np.full(3, 2 * Y[1])], axis=1)
    return jx, jy


@pytest.mark.parametrize("jac", [jg.jacrev, jg.jacfwd], ids=["jacrev", "jacfwd"])
def test_jacobians_match_the_analytic_ones(jac):
    jx, jy = _jac_want()
    np.testing.assert_allclose(np.asarray(jac(_f)(f64(X), f64(Y))), jx, atol=1e-12)
    gx, gy = jac(_f, argnums=(0, 1))(f64(X), f64(Y))
    np.testing.assert_allclose(np.asarray(gx), jx, atol=1e-12)
    np.testing.assert_allclose(np.asarray(gy), jy, atol=1e-12)


@pytest.mark.parametrize("jac", [jg.jacrev, jg.jacfwd], ids=["jacrev", "jacfwd"])
def test_jacobian_structure_follows_output_and_argument_pytrees(jac):
    def f(d):
        return {"m": d["a"] @ d["b"], "s": jnp.sum(d["a"])}
    a, b = np.arange(6.0).reshape(2, 3), np.ones((3, 2))
    J = jac(f)({"a": f64(a), "b": f64(b)})
    assert J["m"]["a"].shape == (2, 2, 2, 3) and J["m"]["b"].shape == (2, 2, 3, 2)
    assert J["s"]["a"].shape == (2, 3)
    np.testing.assert_allclose(np.asarray(J["m"]["b"])[1, 0], np.outer(a[1], [1, 0]))


def test_hessian_and_has_aux():
    def f(x):
        return jnp.sum(x ** 3.0), x * 2
    H, aux = jg.hessian(f, has_aux=True)(f64(X))
    np.testing.assert_allclose(np.asarray(H), np.diag(6 * X), atol=1e-12)
    np.testing.assert_allclose(np.asarray(aux), 2 * X)


# ----------------------------------------------------------------------------- custom_vjp

@jg.custom_vjp
def log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


def _fwd(x):
    return log1pexp(x), x


def _bwd(x, g):
    return (g * (1.0 - 1.0 / (1.0 + jnp.exp(x))),)


log1pexp.defvjp(_fwd, _bwd)


def test_custom_vjp_rule_is_used_where_the_naive_one_overflows():
    x = f64(1000.0)
    assert np.isnan(float(jg.grad(lambda v: jnp.log(1.0 + jnp.exp(v)))(x)))
    for g in (jg.grad(log1pexp), jg.jit(jg.grad(log1pexp)), jg.grad(jg.jit(log1pexp))):
        assert float(g(x)) == 1.0


def test_custom_vjp_higher_order_and_check_grads():
    x = f64(0.3)
    s = 1 / (1 + np.exp(-0.3))
    assert float(jg.grad(jg.grad(log1pexp))(x)) == pytest.approx(s * (1 - s), abs=1e-12)
    check_grads(log1pexp, (np.array([0.3, -1.2]),), order=2, modes=("rev",))
    assert "custom_vjp_call" in str(jg.make_graph(log1pexp)(x))


def test_custom_vjp_errors():
    @jg.custom_vjp
    def f(x, y):
        return x * y
    with pytest.raises(TypeError, match="defvjp"):
        f(f64(1.0), f64(2.0))
    f.defvjp(lambda x, y: (f(x, y), (x, y)), lambda r, g: (g * r[1],))
    with pytest.raises(TypeError, match="tuple of 2 cotangent"):
        jg.grad(f)(f64(1.0), f64(2.0))
    with pytest.raises(TypeError, match="forward-mode"):
        jg.jvp(log1pexp, (f64(1.0),), (f64(1.0),))
