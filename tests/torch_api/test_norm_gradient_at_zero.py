"""Tensor.norm (torch.norm) and torch.nn.functional's norms (normalize, pairwise_distance,
pdist, cosine_similarity) have torch's gradient at a zero vector: 0, not sqrt's NaN.
pytorch/examples mnist_forward_forward divides by x.norm(2, 1, keepdim=True) + 1e-4."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.nn import functional as F

PATHS = ["eager", "jit", pytest.param("jit_interpreter", marks=pytest.mark.interpreter)]


def grad_of(fn, x, path):
    g = jg.grad(fn)
    return np.asarray(g(x) if path == "eager" else jg.jit(g)(x))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("p", [2, 3.0, 2.5])
def test_norm_of_a_zero_vector_has_zero_gradient(path, p):
    np.testing.assert_array_equal(grad_of(lambda v: v.norm(p), jg.zeros(3), path), np.zeros(3))


@pytest.mark.parametrize("path", PATHS)
def test_forward_forward_direction_gradient(path):
    # d/dx sum(x / (||x|| + eps)) row-wise: 1/eps for a zero row (torch: 1e4), else
    # 1/(n+eps) - x * sum(x) / (n (n+eps)^2) -- the closed form
    x = np.array([[0.0, 0.0], [3.0, 4.0]], np.float32)
    g = grad_of(lambda v: (v / (v.norm(2, 1, keepdim=True) + 1e-4)).sum(), jg.tensor(x), path)
    n, eps = 5.0, 1e-4
    row = 1 / (n + eps) - x[1] * x[1].sum() / (n * (n + eps) ** 2)
    np.testing.assert_allclose(g, np.stack([np.full(2, 1 / eps), row]), rtol=1e-5)


def test_eager_backward_and_values():
    x = jg.zeros(2, requires_grad=True)
    x.norm().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    assert jg.tensor([3.0, 4.0]).norm().item() == 5.0
    assert np.isnan(jg.tensor([np.nan, 1.0]).norm().item())
    h = jg.tensor([3.0, 4.0]).to(jg.float16).norm()
    assert h.dtype == jg.float16 and float(h) == 5.0


def test_functional_norms_at_zero():
    zero = jg.zeros(1, 3)
    g = np.asarray(jg.grad(lambda v: F.normalize(v, dim=1).sum())(zero))
    np.testing.assert_allclose(g, np.full((1, 3), 1e12), rtol=1e-6)   # 1 / eps, as torch
    for fn in (lambda v: F.pdist(jg.numpy.concatenate([v, v])).sum(),
               lambda v: F.cosine_similarity(v, v).sum()):
        assert np.all(np.isfinite(np.asarray(jg.grad(fn)(zero))))


def test_matches_torch():
    torch = pytest.importorskip("torch")
    x = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]], np.float32)
    t = torch.tensor(x, requires_grad=True)
    (t / (t.norm(2, 1, keepdim=True) + 1e-4)).sum().backward()
    ours = grad_of(lambda v: (v / (v.norm(2, 1, keepdim=True) + 1e-4)).sum(), jg.tensor(x),
                   "eager")
    np.testing.assert_allclose(ours, t.grad.numpy(), rtol=1e-5)
