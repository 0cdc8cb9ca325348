"""Running statistics are buffers without autograd history, as in PyTorch: training BatchNorm /
InstanceNorm eagerly on an input that requires grad leaves running_mean / running_var with
requires_grad False (they held every step's graph before, and `.numpy()` on them raised); the
values follow torch's update (momentum 0.1, unbiased variance), computed here with NumPy."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn

X = (np.arange(4 * 2 * 3 * 3, dtype=np.float32).reshape(4, 2, 3, 3) % 7 - 3) / 4


def _expected(x, axes, steps):
    mean, var = np.zeros(2), np.ones(2)
    for _ in range(steps):
        n = x.size // 2
        mean = 0.9 * mean + 0.1 * x.mean(axis=axes)
        var = 0.9 * var + 0.1 * x.var(axis=axes) * n / (n - 1)
    return mean, var


@pytest.mark.parametrize("make, axes", [(lambda: nn.BatchNorm2d(2), (0, 2, 3)),
                                        (lambda: nn.InstanceNorm2d(2, track_running_stats=True),
                                         None)])
def test_running_stats_carry_no_graph(make, axes):
    layer = make()
    for _ in range(2):
        x = jg.tensor(X, requires_grad=True)
        layer(x).sum().backward()
    for buf in (layer.running_mean, layer.running_var):
        assert not buf.requires_grad and buf.grad_fn is None
    if axes is not None:
        mean, var = _expected(X.astype(np.float64), axes, 2)
        np.testing.assert_allclose(layer.running_mean.numpy(), mean, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(layer.running_var.numpy(), var, rtol=1e-5)


def test_jitted_training_step_still_updates_the_buffers():
    bn = nn.BatchNorm2d(2)
    step = jg.jit(lambda m, v: m(v).sum())
    step(bn, jg.tensor(X))
    mean, var = _expected(X.astype(np.float64), (0, 2, 3), 1)
    np.testing.assert_allclose(bn.running_mean.numpy(), mean, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(bn.running_var.numpy(), var, rtol=1e-5)
