"""jitgrad.autograd as torch.autograd: grad (of leaves and intermediate results, several
outputs, create_graph for grads of grads), backward(inputs=), functional, Function, Variable.
Expected values are closed forms; tests/autograd/test_autograd_vs_torch.py compares with torch."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.autograd import functional as AF


def _x():
    return jg.tensor([1.0, 2.0], requires_grad=True)


def test_grad_of_a_leaf_leaves_dot_grad_alone():
    x = _x()
    (g,) = jg.autograd.grad((x ** 3).sum(), x)
    np.testing.assert_allclose(g.numpy(), [3.0, 12.0])
    assert x.grad is None and not g.requires_grad


def test_grad_of_an_intermediate_and_of_several_outputs():
    x = _x()
    h = x * 2
    y = (h ** 2).sum()
    gh, gx = jg.autograd.grad(y, [h, x], retain_graph=True)
    np.testing.assert_allclose(gh.numpy(), [4.0, 8.0])           # 2h
    np.testing.assert_allclose(gx.numpy(), [8.0, 16.0])          # 8x
    a, b = x.sum(), (x ** 2).sum()
    (g,) = jg.autograd.grad([a, b], x, grad_outputs=[jg.tensor(2.0), jg.tensor(1.0)])
    np.testing.assert_allclose(g.numpy(), [4.0, 6.0])            # 2 + 2x
    (g,) = jg.autograd.grad(x * 3, x, grad_outputs=jg.tensor([1.0, -1.0]))
    np.testing.assert_allclose(g.numpy(), [3.0, -3.0])


def test_create_graph_gives_grads_of_grads():
    x = _x()
    w = jg.tensor([[1.0, 0.5], [0.2, 0.3]], requires_grad=True)
    y = (jg.tanh(w @ x) ** 2).sum()
    (gx,) = jg.autograd.grad(y, x, create_graph=True)
    assert gx.requires_grad
    (gg,) = jg.autograd.grad(gx.sum(), x)
    # closed form: y = sum tanh(u)^2, u = w x; dy/dx = w^T (2 t (1 - t^2)), t = tanh(u)
    xn, wn = np.array([1.0, 2.0]), np.array([[1.0, 0.5], [0.2, 0.3]])
    t = np.tanh(wn @ xn)
    d1 = 2 * t * (1 - t ** 2)
    d2 = (2 - 6 * t ** 2) * (1 - t ** 2)          # d(d1)/du
    np.testing.assert_allclose(gx.detach().numpy(), wn.T @ d1, rtol=1e-6)
    np.testing.assert_allclose(gg.numpy(), wn.T @ (d2 * (wn @ np.ones(2))), rtol=1e-5)


def test_backward_create_graph_and_inputs():
    x, z = _x(), jg.tensor(3.0, requires_grad=True)
    y = (x ** 3).sum() * z
    y.backward(inputs=[x], retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), [9.0, 36.0])
    assert z.grad is None
    x.grad = None
    (x ** 2).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    (hx,) = jg.autograd.grad(x.grad.sum(), x)
    np.testing.assert_allclose(hx.numpy(), [2.0, 2.0])


def test_errors_as_torch():
    x, unused = _x(), _x()
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        jg.autograd.grad((x * 2).sum(), [x, unused])
    g = jg.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert g[1] is None
    g = jg.autograd.grad((x * 2).sum(), [x, unused], materialize_grads=True)
    np.testing.assert_allclose(g[1].numpy(), [0.0, 0.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        jg.autograd.grad((x * 2).sum(), jg.ones(2))
    with pytest.raises(RuntimeError, match="implicitly only for a scalar"):
        jg.autograd.grad(x * 2, x)
    with pytest.raises(NotImplementedError, match="is_grads_batched=True\\): use jg.vmap"):
        jg.autograd.grad((x * 2).sum(), x, is_grads_batched=True)
    with pytest.raises(RuntimeError, match="grad_outputs: 1 given for 2 outputs"):
        jg.autograd.grad([x.sum(), x.sum()], x, grad_outputs=[jg.tensor(1.0)])
    with pytest.raises(TypeError, match="expected a Tensor or a sequence of Tensors, got list"):
        jg.autograd.grad((x * 2).sum(), [[x]])
    y = (x ** 2).sum()
    jg.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="a second time"):
        jg.autograd.grad(y, x)


def test_functional():
    f = lambda t: t ** 3                                 # noqa: E731
    t = jg.tensor([1.0, 2.0])
    np.testing.assert_allclose(AF.jacobian(f, t).numpy(), np.diag([3.0, 12.0]))
    np.testing.assert_allclose(AF.hessian(lambda t: (t ** 3).sum(), t).numpy(),
                               np.diag([6.0, 12.0]))
    out, v = AF.vjp(lambda t: (t ** 3).sum(), t)
    assert float(out) == 9.0 and v.tolist() == [3.0, 12.0]
    out, tangent = AF.jvp(f, t, jg.ones(2))
    assert tangent.tolist() == [3.0, 12.0]
    _, hv = AF.hvp(lambda t: (t ** 3).sum(), t, jg.ones(2))
    assert hv.tolist() == [6.0, 12.0]
    jx, jy = AF.jacobian(lambda a, b: (a * b).sum(), (t, jg.tensor([3.0, 4.0])))
    assert jx.tolist() == [3.0, 4.0] and jy.tolist() == [1.0, 2.0]


class _ScaledExp(jg.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        y = x.exp() * scale
        ctx.save_for_backward(y)
        ctx.scale = scale
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y * 10, None          # deliberately not exp's derivative: the rule is used


class _Mul(jg.autograd.Function):         # torch 2's form, a tensor kept as a plain attribute
    @staticmethod
    def forward(a, b):
        return a * b

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.a, ctx.b = inputs

    @staticmethod
    def backward(ctx, g):
        return g * ctx.b, g * ctx.a


def test_function_rules_are_used_eagerly_and_under_grad():
    x = jg.tensor([0.0, 1.0], requires_grad=True)
    y = _ScaledExp.apply(x, 2.0)
    np.testing.assert_allclose(y.detach().numpy(), 2 * np.exp([0.0, 1.0]), rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 20 * np.exp([0.0, 1.0]), rtol=1e-6)
    g = jg.grad(lambda t: _ScaledExp.apply(t, 1.0).sum())(jg.tensor([0.0]))
    np.testing.assert_allclose(g.numpy(), [10.0])
    a, b = jg.tensor([1.0, 2.0], requires_grad=True), jg.tensor([3.0, 4.0], requires_grad=True)
    _Mul.apply(a, b).sum().backward()
    assert a.grad.tolist() == [3.0, 4.0] and b.grad.tolist() == [1.0, 2.0]


def test_function_backward_must_return_a_grad_per_argument():
    class Bad(jg.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g
    x = jg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="returned 1 gradients, expected 2"):
        Bad.apply(x, 2.0).sum().backward()


def test_variable_is_the_tensor():
    t = jg.ones(2)
    assert jg.autograd.Variable(t) is t
    assert jg.autograd.Variable(jg.ones(2), requires_grad=True).requires_grad
