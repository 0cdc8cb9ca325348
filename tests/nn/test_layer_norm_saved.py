"""F.layer_norm's backward from its saved mean and 1/std (torch's native_layer_norm): once a
signature is hot, an eager call recorded for autograd is one compiled op whose backward reads
them. Its gradients match central differences of NumPy's layer norm (float64), and the
autodiff of the decomposition (jg.grad) for every weight / bias / dtype form."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.transforms.fused_eager import HOT

F = jg.nn.functional
RNG = np.random.default_rng(0)


def _np_layer_norm(x, w, b, axes, eps=1e-5):
    m = x.mean(axis=axes, keepdims=True)
    v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
    y = (x - m) / np.sqrt(v + eps)
    return (y if w is None else y * w) + (0 if b is None else b)


def _eager_grads(x, shape, w, b, g):
    """The gradients of sum(layer_norm * g) from the eager call recorded as one op (hot)."""
    for _ in range(HOT + 1):
        ts = [None if a is None else jg.tensor(a, requires_grad=True) for a in (x, w, b)]
        y = F.layer_norm(ts[0], shape, ts[1], ts[2])
    assert repr(y.grad_fn) == "<custom_vjp_call>"
    (y * jg.tensor(g)).sum().backward()
    return y, [t.grad.numpy() for t in ts if t is not None]


def test_gradients_match_central_differences_in_float64():
    x = RNG.standard_normal((3, 2, 5))
    w, b = RNG.standard_normal((2, 5)), RNG.standard_normal((2, 5))
    g = RNG.standard_normal(x.shape)
    y, grads = _eager_grads(x, (2, 5), w, b, g)
    np.testing.assert_allclose(y.detach().numpy(), _np_layer_norm(x, w, b, (1, 2)), rtol=1e-12)
    loss = lambda x, w, b: (_np_layer_norm(x, w, b, (1, 2)) * g).sum()
    args, h = [x, w, b], 1e-6
    for k, got in enumerate(grads):
        want = np.zeros_like(args[k])
        for i in np.ndindex(args[k].shape):
            up, down = [a.copy() for a in args], [a.copy() for a in args]
            up[k][i] += h
            down[k][i] -= h
            want[i] = (loss(*up) - loss(*down)) / (2 * h)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("xs, shape, ws, bs, dtype, tol", [
    ((4, 3, 8), (8,), (8,), (8,), np.float32, 1e-5),
    ((4, 8), 8, None, None, np.float32, 1e-5),
    ((4, 8), (8,), (8,), None, np.float32, 1e-5),
    ((4, 8), (8,), (1,), (8,), np.float32, 1e-5),       # a weight broadcast over the axis
    ((4, 8), (8,), (8,), (8,), np.float16, 1e-2),       # computed in float32, rounded once
])
def test_gradients_match_the_autodiff_of_the_decomposition(xs, shape, ws, bs, dtype, tol):
    x = RNG.standard_normal(xs).astype(dtype)
    w = None if ws is None else RNG.standard_normal(ws).astype(dtype)
    b = None if bs is None else RNG.standard_normal(bs).astype(dtype)
    g = RNG.standard_normal(xs).astype(dtype)
    _, grads = _eager_grads(x, shape, w, b, g)
    live = tuple(i for i, a in enumerate((x, w, b)) if a is not None)
    want = jg.grad(lambda *a: (F.layer_norm(a[0], shape, a[1], a[2]) * g).sum(),
                   argnums=live)(x, w, b)
    for got, ref in zip(grads, want):
        assert got.dtype == dtype
        np.testing.assert_allclose(got.astype(np.float32), np.asarray(ref).astype(np.float32),
                                   rtol=tol, atol=tol)


def test_retain_graph_and_a_modified_input():
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    _, (once,) = _eager_grads(x, (8,), None, None, np.ones_like(x))
    xt = jg.tensor(x, requires_grad=True)
    y = (F.layer_norm(xt, (8,)) ** 2).sum()
    y.backward(retain_graph=True)
    first = xt.grad.numpy().copy()
    y.backward()
    np.testing.assert_allclose(xt.grad.numpy(), 2 * first, rtol=1e-6)
    assert np.abs(once).max() < 1e-5          # a sum of normalized values does not move
    h = xt * 1.0
    z = F.layer_norm(h, (8,))
    with jg.no_grad():
        h.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        z.sum().backward()
