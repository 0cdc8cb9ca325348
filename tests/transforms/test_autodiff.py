"""grad / value_and_grad / vjp / jvp on whole programs, nesting in any order, the gradient graph
as IR, and the errors."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
import jitgrad.nn.functional as F
from jitgrad import ir
from jitgrad.ir import Op
from jitgrad.ir.autodiff import jvp_graph, vjp_graph, vjp_values


def f64(a):
    return jnp.asarray(np.asarray(a, dtype=np.float64))


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((8, 5))
    W = rng.standard_normal((5, 3)) * 0.5
    Y = np.eye(3)[rng.integers(0, 3, 8)]
    return X, W, Y


def test_softmax_regression_gradient_is_the_closed_form(data):
    X, W, Y = data

    def loss(w):
        return -jnp.sum(f64(Y) * F.log_softmax(f64(X) @ w, axis=1))
    z = X @ W
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    np.testing.assert_allclose(np.asarray(jg.grad(loss)(f64(W))), X.T @ (p - Y), rtol=1e-12,
                               atol=1e-12)


def _mlp_loss(params, x, y):
    h = F.relu(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    return -jnp.mean(jnp.sum(y * F.log_softmax(logits, axis=-1), axis=-1))


def test_mlp_grad_with_and_without_jit_and_eager_backward_agree(data):
    X, _, Y = data
    rng = np.random.default_rng(1)
    raw = {"w1": rng.standard_normal((5, 16)) * 0.3, "b1": rng.standard_normal(16) * 0.1,
           "w2": rng.standard_normal((16, 3)) * 0.3, "b2": np.zeros(3)}
    params = {k: f64(v) for k, v in raw.items()}
    plain = jg.grad(_mlp_loss)(params, f64(X), f64(Y))
    jitted = jg.jit(jg.grad(_mlp_loss))(params, f64(X), f64(Y))
    leaves = {k: jg.tensor(v, dtype="float64", requires_grad=True) for k, v in raw.items()}
    _mlp_loss(leaves, f64(X), f64(Y)).backward()
    assert set(plain) == set(raw)
    for k in raw:
        np.testing.assert_allclose(np.asarray(jitted[k]), np.asarray(plain[k]), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(leaves[k].grad), np.asarray(plain[k]), rtol=1e-12)


def test_value_and_grad_has_aux_and_argnums_tuple():
    def f(x, y):
        return jnp.sum(x * y), {"x2": x * 2}
    (v, aux), (gx, gy) = jg.value_and_grad(f, argnums=(0, 1), has_aux=True)(
        f64([1.0, 2.0]), f64([3.0, 4.0]))
    assert float(v) == 11.0
    np.testing.assert_array_equal(np.asarray(aux["x2"]), [2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(gx), [3.0, 4.0])
    np.testing.assert_array_equal(np.asarray(gy), [1.0, 2.0])


def test_python_control_flow_under_grad():
    def f(x):
        return x * x if float(x) > 0 else -x
    assert float(jg.grad(f)(f64(3.0))) == 6.0
    assert float(jg.grad(f)(f64(-3.0))) == -1.0


# ----------------------------------------------------------------------------- nesting

def test_grad_of_grad_of_tanh_is_analytic():
    x = np.linspace(-2, 2, 7)
    d2 = jg.grad(jg.grad(jnp.tanh))
    d3 = jg.grad(jg.grad(jg.grad(jnp.tanh)))
    t = np.tanh(x)
    for xi, ti in zip(x, t):
        assert float(d2(f64(xi))) == pytest.approx(-2 * ti * (1 - ti ** 2), abs=1e-12)
        assert float(d3(f64(xi))) == pytest.approx((1 - ti ** 2) * (6 * ti ** 2 - 2), abs=1e-12)


def test_hessian_of_quadratic_form_is_a_plus_a_transpose():
    A = np.random.default_rng(2).standard_normal((4, 4))
    H = jg.hessian(lambda x: x @ f64(A) @ x)(f64(np.ones(4)))
    np.testing.assert_allclose(np.asarray(H), A + A.T, atol=1e-12)


def test_jvp_of_grad_is_a_hessian_vector_product():
    def f(x):
        return jnp.sum(jnp.sin(x) * x ** 3) + jnp.prod(x)
    x, v = f64([0.3, -0.7, 1.1]), f64([1.0, 2.0, -0.5])
    _, hvp = jg.jvp(jg.grad(f), (x,), (v,))
    H = np.asarray(jg.hessian(f)(x))
    np.testing.assert_allclose(np.asarray(hvp), H @ np.asarray(v), rtol=1e-12)


def test_jit_and_grad_compose_in_both_orders():
    def f(x):
        return jnp.sum(jnp.exp(x) * jnp.cos(x))
    x = f64([0.1, 0.5, -1.0])
    want = np.exp(x.numpy()) * (np.cos(x.numpy()) - np.sin(x.numpy()))
    for g in (jg.grad(f), jg.jit(jg.grad(f)), jg.grad(jg.jit(f)), jg.jit(jg.grad(jg.jit(f)))):
        np.testing.assert_allclose(np.asarray(g(x)), want, rtol=1e-12)
    hvp = jg.jit(lambda x, v: jg.jvp(jg.grad(f), (x,), (v,))[1])
    np.testing.assert_allclose(np.asarray(hvp(x, jnp.ones_like(x))),
                               np.asarray(jnp.diagonal(jg.hessian(f)(x))), rtol=1e-12)


def test_grad_closing_over_an_outer_traced_value():
    def outer(x):
        return jg.grad(lambda y: jnp.sin(x * y))(f64(2.0))      # d/dy = x cos(xy)
    x = 0.3
    want = np.cos(2 * x) - 2 * x * np.sin(2 * x)                  # d/dx of x cos(2x)
    assert float(jg.grad(outer)(f64(x))) == pytest.approx(want, abs=1e-12)


def test_vjp_and_jvp_on_pytrees():
    def f(d):
        return {"s": jnp.sum(d["a"] * d["b"]), "p": d["a"] * 2}
    d = {"a": f64([1.0, 2.0]), "b": f64([3.0, 5.0])}
    out, vjp_fn = jg.vjp(f, d)
    (ct,) = vjp_fn({"s": f64(1.0), "p": f64([1.0, 1.0])})
    np.testing.assert_array_equal(np.asarray(ct["a"]), [5.0, 7.0])
    np.testing.assert_array_equal(np.asarray(ct["b"]), [1.0, 2.0])
    _, t = jg.jvp(f, (d,), ({"a": f64([1.0, 0.0]), "b": f64([0.0, 1.0])},))
    assert float(t["s"]) == 5.0
    np.testing.assert_array_equal(np.asarray(t["p"]), [2.0, 0.0])


def test_stop_gradient_blocks_the_gradient():
    g = jg.grad(lambda x: jnp.sum(x * jg.stop_gradient(x)))(f64([1.0, 2.0]))
    np.testing.assert_array_equal(np.asarray(g), [1.0, 2.0])


def test_integer_outputs_and_independent_inputs_get_zero_derivatives():
    def f(x, y):
        return jnp.sum(x * jnp.argmax(x).astype("float64")), jnp.argmax(x)
    out, t = jg.jvp(f, (f64([1.0, 3.0]), f64(2.0)), (f64([1.0, 1.0]), f64(1.0)))
    assert float(t[0]) == 2.0 and int(t[1]) == 0
    assert float(jg.grad(lambda x, y: jnp.sum(x), argnums=1)(f64([1.0]), f64(2.0))) == 0.0


# ----------------------------------------------------------------------------- the graph

GRAPH = """graph f(%x: f64[3], %w: f64[3]) -> f64[] {
  %0 = mul %x, %w : f64[3]
  %1 = tanh %0 : f64[3]
  %2 = reduce_sum %1 axes=(0,) : f64[]
  return %2
}"""


def test_vjp_graph_contract_and_text_round_trip():
    g = ir.parse(GRAPH)
    vg = ir.verify(vjp_graph(g, wrt=[0], out_idx=[0]))
    assert [str(v.type) for v in vg.inputs] == ["f64[3]", "f64[3]", "f64[]"]
    assert [str(v.type) for v in vg.outputs] == ["f64[]", "f64[3]"]
    assert str(ir.parse(str(vg))) == str(vg)
    x, w = np.array([0.1, 0.2, 0.3]), np.array([1.0, -2.0, 0.5])
    val, gx = ir.interpret(vg, [x, w, np.float64(1.0)])
    np.testing.assert_allclose(gx, w * (1 - np.tanh(x * w) ** 2))
    assert float(val) == pytest.approx(np.tanh(x * w).sum())


def test_jvp_graph_contract():
    g = ir.parse(GRAPH)
    jg_ = ir.verify(jvp_graph(g, tangent_inputs=[1]))
    assert jg_.arg_names == ["x", "w", "w_dot"]
    x, w, t = np.array([0.1, 0.2, 0.3]), np.array([1.0, -2.0, 0.5]), np.array([1.0, 0.0, 0.0])
    _, dt = ir.interpret(jg_, [x, w, t])
    assert float(dt) == pytest.approx(0.1 * (1 - np.tanh(0.1) ** 2))


def test_vjp_values_gives_cotangents_of_intermediates():
    g = ir.parse(GRAPH)
    mid = g.nodes[1].outputs[0]                 # tanh(x * w): d sum / d mid = 1
    vg = ir.verify(vjp_values(g, [mid, g.inputs[1]], out_idx=[0]))
    _, g_mid, g_w = ir.interpret(vg, [np.ones(3), np.ones(3), np.float64(2.0)])
    np.testing.assert_array_equal(g_mid, [2.0, 2.0, 2.0])
    np.testing.assert_allclose(g_w, 2 * (1 - np.tanh(1.0) ** 2) * np.ones(3))


def test_gradient_graph_is_printable_ir_with_source_lines():
    def f(x):
        return jnp.sum(jnp.tanh(x) * x)
    g = jg.make_graph(jg.grad(f))(f64([1.0, 2.0]))
    text = str(ir.verify(g))
    assert text.startswith("graph f(%x: f64[2]) -> f64[2] {")
    assert "tanh %x" in text and "square" in text and "test_autodiff.py" in text
    assert str(ir.parse(text)) == text


def test_broadcasting_is_unsummed():
    g = jg.grad(lambda a, b: jnp.sum(a * b), argnums=(0, 1))(f64(np.ones((2, 3))),
                                                             f64([1.0, 2.0, 3.0]))
    assert g[0].shape == (2, 3) and g[1].shape == (3,)
    np.testing.assert_array_equal(np.asarray(g[1]), [2.0, 2.0, 2.0])


# ----------------------------------------------------------------------------- errors

def test_grad_of_non_scalar_output_is_an_error():
    with pytest.raises(TypeError, match="scalar"):
        jg.grad(lambda x: x * 2)(f64([1.0, 2.0]))


def test_grad_with_respect_to_an_integer_input_is_an_error():
    with pytest.raises(TypeError, match="float or complex inputs.*i64"):
        jg.grad(lambda x: jnp.sum(x * 2.0))(jnp.asarray([1, 2]))


def test_missing_rule_names_the_op():
    b = ir.Builder(ir.Graph(name="k"))
    x = b.add_input(ir.TensorType((2,), np.dtype("float64")))
    body = ir.Graph(name="body")
    bb = ir.Builder(body)
    body.outputs = [bb.emit1(Op.exp, [bb.add_input(x.type)])]
    b.graph.outputs = list(b.emit("kernel", [x], {"kind": "elementwise", "body": body}))
    with pytest.raises(ir.MissingRuleError, match="'kernel' has no VJP rule"):
        vjp_graph(b.graph, wrt=[0], out_idx=[0])
    with pytest.raises(ir.MissingRuleError, match="'kernel' has no JVP rule"):
        jvp_graph(b.graph, tangent_inputs=[0])


def test_eager_stop_gradient_is_detached_as_torch_detach():
    """jg.stop_gradient of an eager tensor: no autograd history (requires_grad False, so its
    graph is not kept alive and .numpy() works), the values unchanged, no gradient through it."""
    x = jg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = jg.stop_gradient(x * x)
    assert not y.requires_grad
    np.testing.assert_array_equal(y.numpy(), [1.0, 4.0, 9.0])
    (y.sum() + x.sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])
    # traced (grad, jit): still the primitive whose derivative is zero
    g = jg.grad(lambda a: (jg.stop_gradient(a) * a).sum())(jg.tensor([1.0, 2.0]))
    np.testing.assert_array_equal(np.asarray(g), [1.0, 2.0])
    g = jg.jit(jg.grad(lambda a: (jg.stop_gradient(a) * a).sum()))(jg.tensor([1.0, 2.0]))
    np.testing.assert_array_equal(np.asarray(g), [1.0, 2.0])
