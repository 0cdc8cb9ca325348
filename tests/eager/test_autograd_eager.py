"""PyTorch-style eager autograd (.backward(), .grad, retain_grad, no_grad, version checks), built
on the same graph transformation as jg.grad."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp


def test_dumb_abs_with_python_control_flow():
    def dumb_abs(a):
        return a if a >= 0 else -a
    x = jg.tensor(-5.0, requires_grad=True)
    dumb_abs(x).backward()
    assert x.grad.item() == -1.0
    x = jg.tensor(5.0, requires_grad=True)
    y = dumb_abs(x)
    assert y is x
    y.backward()
    assert x.grad.item() == 1.0


def test_square_example_and_repr():
    x = jg.tensor(1.0, requires_grad=True)
    y = (x + 2).square()
    assert repr(y) == "tensor(9., grad_fn=<square>)"
    assert y.grad_fn.name == "square" and not y.is_leaf
    y.backward()
    assert x.grad.item() == 6.0 and x.grad.dtype == np.float32


def test_grads_accumulate_and_match_jg_grad():
    xv = np.array([0.5, -1.0, 2.0])
    x = jg.tensor(xv, dtype="float64", requires_grad=True)
    w = jg.tensor(np.ones(3), dtype="float64", requires_grad=True)
    c = jg.tensor(np.arange(3.0), dtype="float64")              # needs no grad
    for _ in range(2):
        (jnp.sum(jnp.tanh(x * w) + c * x)).backward()
    want = jg.grad(lambda a: jnp.sum(jnp.tanh(a) + jnp.asarray(np.arange(3.0)) * a))(
        jnp.asarray(xv))
    np.testing.assert_allclose(x.grad.numpy(), 2 * want.numpy(), rtol=1e-12)
    assert c.grad is None and w.grad is not None


def test_non_leaf_grad_only_with_retain_grad():
    x = jg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    k = h * 2
    h.retain_grad()
    jnp.sum(k * k).backward()
    np.testing.assert_allclose(h.grad.numpy(), 4 * k.detach().numpy())
    assert k.grad is None
    np.testing.assert_allclose(x.grad.numpy(), 12 * k.detach().numpy())


def test_backward_with_explicit_gradient():
    x = jg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    y.backward(jg.tensor([1.0, 0.0, 2.0]))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.0, 12.0])


def test_shared_subexpressions_and_multi_use_leaves():
    x = jg.tensor(3.0, requires_grad=True)
    a = x * x
    (a * a + a * x).backward()          # x^4 + x^3 -> 4x^3 + 3x^2
    assert x.grad.item() == pytest.approx(4 * 27 + 3 * 9)


def test_detach_requires_grad_and_no_grad():
    x = jg.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    with jg.no_grad():
        y = x * 2
    assert y.grad_fn is None and not y.requires_grad
    z = jg.tensor([1.0, 2.0]).requires_grad_()
    (z * x.detach()).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [1.0, 2.0])
    assert x.grad is None


def test_custom_vjp_in_eager_backward():
    @jg.custom_vjp
    def clip_grad(x):
        return x
    clip_grad.defvjp(lambda x: (x, None), lambda res, g: (jnp.clip(g, -1.0, 1.0),))
    x = jg.tensor([1.0, 2.0], requires_grad=True)
    (clip_grad(x) * 5.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


def test_recorded_in_place_update_keeps_gradients_right():
    x = jg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    s = jnp.sin(y)
    y += 1                              # recorded: y now stands for x*2 + 1
    (jnp.sum(s) + jnp.sum(y * y)).backward()
    xv = np.array([1.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(2 * xv) + 4 * (2 * xv + 1), rtol=1e-6)


# ----------------------------------------------------------------------------- errors

def test_second_backward_needs_retain_graph():
    x = jg.tensor(2.0, requires_grad=True)
    y = x * x
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == 8.0
    with pytest.raises(RuntimeError, match="second time.*retain_graph=True"):
        y.backward()


def test_non_scalar_backward_needs_a_gradient():
    y = jg.tensor([1.0, 2.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match=r"scalar output, got shape \(2,\)"):
        y.backward()
    with pytest.raises(RuntimeError, match=r"gradient has shape \(3,\)"):
        y.backward(jg.tensor([1.0, 1.0, 1.0]))


def test_backward_of_a_tensor_without_grad_fn():
    with pytest.raises(RuntimeError, match="does not require grad"):
        jg.tensor(1.0).backward()


@pytest.mark.parametrize("fn, dfn", [(jnp.exp, np.exp), (jnp.tanh, lambda v: 1 - np.tanh(v) ** 2),
                                      (lambda v: v + 1, lambda v: np.ones_like(v))])
def test_an_output_written_under_no_grad_before_its_reader(fn, dfn):
    """y = f(x) written in place under no_grad, then read: the reader's derivative sees the
    written value, f's own derivative the value f computed (not the written one: exp's
    backward read exp's output, and the written array gave 8 e^2x where 4 e^2x is right)."""
    xv = np.array([0.5, -1.0, 2.0])
    for _ in range(2):                      # the second backward runs the cached structure
        x = jg.tensor(xv, requires_grad=True)
        y = fn(x)
        with jg.no_grad():
            y *= 2
        (y * y).sum().backward()
        written = 2 * np.asarray(fn(jg.tensor(xv)))
        np.testing.assert_allclose(np.asarray(x.grad), 2 * written * dfn(xv), rtol=1e-6)


def test_a_reader_of_an_unwritten_output_still_feeds_the_saved_value():
    x = jg.tensor([0.5, -1.0], requires_grad=True)
    y = jnp.exp(x)
    (y * y).sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad), 2 * np.exp(2 * np.array([0.5, -1.0])),
                               rtol=1e-6)


def test_in_place_modification_of_a_needed_tensor_is_an_error():
    x = jg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = jnp.sum(jnp.sin(y))
    y.zero_()                            # overwrites the storage sin's gradient needs
    with pytest.raises(RuntimeError, match="modified by an in-place operation.*'sin'"):
        z.backward()
    a = jg.tensor([1.0, 2.0])
    b = x * a
    a[0] = 5.0                           # an unrecorded write into an input mul needs
    with pytest.raises(RuntimeError, match="version 0 when recorded and is now at version 1"):
        jnp.sum(b).backward()


def test_leaf_requiring_grad_cannot_be_modified_in_place():
    x = jg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        x += 1
