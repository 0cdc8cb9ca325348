"""Eager conv2d, max_pool2d and dropout once hot: one compiled call each, with the values and
gradients of their op-by-op first calls (max-pool ties still send the gradient to the first
maximum)."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.nn import functional as F
from jitgrad.transforms import fused_eager

RNG = np.random.default_rng(3)


def _calls(fn, *arrays):
    """[(value, grads)] of fused_eager.HOT + 2 eager calls of fn, from the same arrays."""
    out = []
    for _ in range(fused_eager.HOT + 2):
        jg.manual_seed(5)
        ts = [jg.tensor(a, requires_grad=True) for a in arrays]
        y = fn(*ts)
        (y * jg.tensor(np.linspace(-1, 1, y.size, dtype=np.float32).reshape(y.shape))).sum() \
            .backward()
        out.append((y.detach().numpy(), [t.grad.numpy() for t in ts]))
    return out


@pytest.mark.parametrize("name,fn,shapes", [
    ("conv", lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), [(2, 3, 9, 8), (4, 3, 3, 3), (4,)]),
    ("conv_plain", lambda x, w: F.conv2d(x, w), [(2, 3, 6, 6), (5, 3, 3, 3)]),
    ("pool", lambda x: F.max_pool2d(x, 2), [(2, 3, 6, 7)]),
    ("pool_overlap", lambda x: F.max_pool2d(x, 3, 2, 1), [(2, 3, 7, 7)]),
    ("dropout", lambda x: F.dropout(x, 0.3), [(4, 33)]),
])
def test_hot_calls_give_the_op_by_op_values_and_gradients(name, fn, shapes):
    arrays = [RNG.standard_normal(s).astype(np.float32) for s in shapes]
    if name.startswith("pool"):
        arrays[0] = np.round(arrays[0])            # ties: the first maximum takes the gradient
    runs = _calls(fn, *arrays)
    for value, grads in runs[1:]:
        np.testing.assert_allclose(value, runs[0][0], rtol=1e-5, atol=1e-5)
        for g, want in zip(grads, runs[0][1]):
            np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5)


def test_a_hot_pool_and_conv_are_one_compiled_call_each():
    x = jg.tensor(RNG.standard_normal((2, 3, 8, 8)).astype(np.float32))
    w = jg.tensor(RNG.standard_normal((4, 3, 3, 3)).astype(np.float32))
    for _ in range(fused_eager.HOT + 1):
        F.max_pool2d(F.conv2d(x, w), 2)
    with jg.profiler.profile() as prof:
        y = F.max_pool2d(F.conv2d(x, w), 2)
    assert y.shape == (2, 4, 3, 3)
    assert len([e for e in prof.events if e.cat == "call"]) == 2
    assert not [e for e in prof.events if e.cat == "eager"]
