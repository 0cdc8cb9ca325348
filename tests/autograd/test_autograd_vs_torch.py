"""jitgrad.autograd against torch.autograd itself, where torch is installed."""
import numpy as np
import pytest

import jitgrad as jg

torch = pytest.importorskip("torch")


def _both(fn, values):
    out = []
    for lib in (jg, torch):
        x = lib.tensor(values, requires_grad=True)
        w = lib.tensor([[1.0, -0.5], [0.25, 2.0]], requires_grad=True)
        out.append([np.asarray(g.detach().numpy()) for g in fn(lib, x, w)])
    return out


def test_second_order_grads_match_torch():
    def fn(lib, x, w):
        y = (lib.sigmoid(w @ x) * x).sum()
        gx, gw = lib.autograd.grad(y, [x, w], create_graph=True)
        return lib.autograd.grad((gx ** 2).sum() + gw.sum(), [x, w])
    mine, theirs = _both(fn, [0.3, -1.2])
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_intermediate_and_weighted_outputs_match_torch():
    def fn(lib, x, w):
        h = lib.tanh(w @ x)
        return lib.autograd.grad([h, (x ** 2).sum()], [h, x],
                                 grad_outputs=[lib.tensor([1.0, -2.0]), lib.tensor(0.5)])
    mine, theirs = _both(fn, [0.7, 0.1])
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6)
