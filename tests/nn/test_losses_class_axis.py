"""cross_entropy / nll_loss take classes on dim 1 of (N, C, d1, ..., dk) inputs, as PyTorch:
class labels of shape (N, d1, ..., dk) or probabilities of the input's shape, weight=,
ignore_index=, label_smoothing=, every reduction; on eager, jit, the interpreter and grad."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn
from jitgrad.nn import functional as F

X = np.array([[[0.126, -0.132, 0.64], [0.105, -0.536, 0.362], [1.304, 0.947, -0.704]],
              [[-1.265, -0.623, 0.041], [-2.325, -0.219, -1.246], [-0.732, -0.544, -0.316]]])
Y = np.array([[0, 2, 1], [1, 1, 0]])
Y_IGNORED = np.array([[0, -100, 1], [1, 2, 0]])
W = np.array([0.5, 2.0, 1.0])
P = np.exp(X[::-1]) / np.exp(X[::-1]).sum(1, keepdims=True)    # probabilities along dim 1

# torch.nn.functional.cross_entropy on X (torch 2, float64)
TORCH = {"plain": 1.1351301003408019, "weight": 1.2087714924149107,
         "weight ignored": 1.4457855617663373, "weight ignored smoothed": 1.4165385049943244}


def reference(x, t, w=None, ignore_index=-100, smoothing=0.0, reduction="mean"):
    """PyTorch's documented formula, one sample position at a time, classes on axis 1."""
    x = np.moveaxis(np.atleast_2d(x) if x.ndim == 1 else x, 1, -1)
    n_classes = x.shape[-1]
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    w = np.ones(n_classes) if w is None else w
    losses, counted = [], []
    labels = np.issubdtype(np.asarray(t).dtype, np.integer)
    t = np.reshape(t, -1) if labels else np.moveaxis(t, 1, -1).reshape(-1, n_classes)
    for row, target in zip(lp.reshape(-1, n_classes), t):
        if labels:
            if target == ignore_index:
                losses.append(0.0)
                counted.append(0.0)
                continue
            counted.append(w[target])
            target = np.eye(n_classes)[target]
        target = target * (1 - smoothing) + smoothing / n_classes
        losses.append(-(w * target * row).sum())
    losses = np.array(losses)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / (np.sum(counted) if labels else len(losses))


def test_reference_matches_torch_constants():
    assert reference(X, Y) == pytest.approx(TORCH["plain"], rel=1e-12)
    assert reference(X, Y, W) == pytest.approx(TORCH["weight"], rel=1e-12)
    assert reference(X, Y_IGNORED, W) == pytest.approx(TORCH["weight ignored"], rel=1e-12)
    assert reference(X, Y_IGNORED, W, smoothing=0.2) == pytest.approx(
        TORCH["weight ignored smoothed"], rel=1e-12)


CASES = [
    ("plain", X, Y, {}),
    ("weight", X, Y, {"weight": W}),
    ("ignored", X, Y_IGNORED, {"weight": W, "label_smoothing": 0.2}),
    ("ignored sum", X, Y_IGNORED, {"weight": W, "reduction": "sum"}),
    ("ignored none", X, Y_IGNORED, {"weight": W, "label_smoothing": 0.2, "reduction": "none"}),
    ("probabilities", X, P, {"weight": W, "label_smoothing": 0.1}),
    ("probabilities none", X, P, {"reduction": "none"}),
    ("(N, C)", X[:, :, 0], Y[:, 0], {"weight": W, "label_smoothing": 0.3}),
    ("(C)", X[0, :, 0], Y[0, 0], {}),
    ("(N, C, d1, d2)", X.reshape(2, 3, 3, 1), Y_IGNORED.reshape(2, 3, 1), {"weight": W}),
]


def _expected(x, t, kw):
    want = reference(x, t, kw.get("weight"), smoothing=kw.get("label_smoothing", 0.0),
                     reduction=kw.get("reduction", "mean"))
    if kw.get("reduction") != "none":
        return want
    return want.reshape(t.shape if t.dtype.kind == "i" else t.shape[:1] + t.shape[2:])


@pytest.mark.parametrize("name,x,t,kw", CASES, ids=[c[0] for c in CASES])
def test_cross_entropy_eager_and_jit(name, x, t, kw):
    want = _expected(x, t, kw)
    got = F.cross_entropy(x, t, **kw)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    jitted = jg.jit(lambda a, b, w: F.cross_entropy(a, b, w, **{k: v for k, v in kw.items()
                                                                 if k != "weight"}))
    np.testing.assert_allclose(np.asarray(jitted(x, t, kw.get("weight"))), want, rtol=1e-12)


@pytest.mark.interpreter
def test_cross_entropy_on_the_interpreter():
    f = jg.jit(lambda a, b, w: F.cross_entropy(a, b, w, label_smoothing=0.2))
    np.testing.assert_allclose(f(X, Y_IGNORED, W).item(),
                               TORCH["weight ignored smoothed"], rtol=1e-12)
    g = jg.jit(lambda a, b, w: F.nll_loss(a, b, w))
    np.testing.assert_allclose(g(X, Y, W).item(), _nll(X, Y, W), rtol=1e-12)


def _nll(x, y, w):
    picked = np.take_along_axis(x, y[:, None], 1)[:, 0]
    return -(w[y] * picked).sum() / w[y].sum()


def test_nll_loss_classes_on_dim_1():
    np.testing.assert_allclose(F.nll_loss(X, Y, W).item(), _nll(X, Y, W), rtol=1e-12)
    np.testing.assert_allclose(nn.NLLLoss(weight=jnp.asarray(W))(X, Y).item(),
                               _nll(X, Y, W), rtol=1e-12)
    assert F.nll_loss(X[0, :, 0], Y[0, 0]).item() == pytest.approx(-0.126)   # input (C)
    np.testing.assert_allclose(np.asarray(F.nll_loss(X, Y, reduction="none")),
                               -np.take_along_axis(X, Y[:, None], 1)[:, 0], rtol=1e-12)


def test_cross_entropy_loss_module_takes_torch_options():
    loss = nn.CrossEntropyLoss(jnp.asarray(W), ignore_index=-100, label_smoothing=0.2)
    np.testing.assert_allclose(loss(X, Y_IGNORED).item(), TORCH["weight ignored smoothed"],
                               rtol=1e-12)
    assert "weight" in loss.state_dict()           # a buffer, as in PyTorch
    assert nn.CrossEntropyLoss(reduction="sum")(X, Y).item() == pytest.approx(
        reference(X, Y, reduction="sum"), rel=1e-12)


def test_legacy_size_average_and_reduce():
    assert F.cross_entropy(X, Y, size_average=False).item() == pytest.approx(
        reference(X, Y, reduction="sum"), rel=1e-12)
    assert F.cross_entropy(X, Y, reduce=False).shape == (2, 3)


def _grad_reference(x, t, kw, eps=1e-6):
    """Central differences of the reference loss (float64)."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (_expected(x + d, t, kw).sum() - _expected(x - d, t, kw).sum()) / (2 * eps)
    return g


@pytest.mark.parametrize("name,x,t,kw", [CASES[2], CASES[5]], ids=["labels", "probabilities"])
def test_cross_entropy_grad_classes_on_dim_1(name, x, t, kw):
    want = _grad_reference(x, t, kw)
    f = lambda a: F.cross_entropy(a, t, **kw)  # noqa: E731
    np.testing.assert_allclose(np.asarray(jg.grad(f)(x)), want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(np.asarray(jg.jit(jg.grad(f))(x)), want, rtol=1e-6, atol=1e-9)
    for _ in range(3):      # eager autograd; the third call runs the fused, saving tier
        a = jg.tensor(x, requires_grad=True)
        F.cross_entropy(a, jnp.asarray(t), **{**kw, "weight": jnp.asarray(W)}).backward()
        np.testing.assert_allclose(np.asarray(a.grad), want, rtol=1e-6, atol=1e-9)


def test_vmap_over_a_batch_of_images():
    per = jg.vmap(lambda a, b: F.cross_entropy(a, b, reduction="sum"))(X[:, None], Y[:, None])
    np.testing.assert_allclose(np.asarray(per), [reference(X[i:i + 1], Y[i:i + 1],
                                                           reduction="sum") for i in range(2)],
                               rtol=1e-12)


def test_mismatched_shapes_name_the_expected_shape():
    with pytest.raises(ValueError, match=r"input of shape \(2, 3, 3\) \(classes on dim 1\) "
                                         r"needs class labels of shape \(2, 3\), got \(3, 2\)"):
        F.cross_entropy(X, Y.T.copy())
    with pytest.raises(ValueError, match=r"needs class labels of shape \(2, 3\), got \(2, 4\)"):
        jg.jit(F.cross_entropy)(X, np.zeros((2, 4), np.int64))
    with pytest.raises(ValueError, match=r"probability targets must have the input's shape "
                                         r"\(2, 3, 3\), got \(2, 3\)"):
        F.cross_entropy(X, P[:, :, 0])
    with pytest.raises(ValueError, match=r"weight should hold one value per class, shape \(3,\), "
                                         r"got shape \(2,\)"):
        F.nll_loss(X, Y, W[:2])
    with pytest.raises(ValueError, match="expected an input of shape"):
        F.cross_entropy(np.float64(1.0), np.int64(0))
    with pytest.raises(ValueError, match="label_smoothing must be in"):
        F.cross_entropy(X, Y, label_smoothing=1.5)
    with pytest.raises(IndexError, match=r"target label 3 is out of bounds"):
        F.cross_entropy(X, np.full((2, 3), 3))


def test_binary_losses_broadcast_without_a_class_axis():
    """BCE with logits is elementwise (pos_weight broadcasts against the target, as PyTorch)."""
    x, t = X, (P > 0.3).astype(np.float64)
    pw = np.array([1.0, 2.0, 3.0])
    want = -(pw * t * -np.logaddexp(0, -x) + (1 - t) * -np.logaddexp(0, x))
    np.testing.assert_allclose(np.asarray(F.binary_cross_entropy_with_logits(
        x, t, reduction="none", pos_weight=pw)), want, rtol=1e-12)
