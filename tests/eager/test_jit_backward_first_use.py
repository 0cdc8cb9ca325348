"""Issue 50: the backward of a jitted call inside eager autograd is compiled at its first run, as
its forward was (eager/backward.py's tier: has_jitted_call), not after the structure turns hot;
a backward of eager ops alone stays on the interpreter for its first runs. Gradients match the
hand-derived ones on every call."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn as nn


def _compiles(prof) -> int:
    """How many graphs the profile saw compiled (jg.profiler's "compile" events)."""
    return sum(e.cat == "compile" for e in prof.events)


def _mlp():
    jg.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 11), nn.Tanh(), nn.Linear(11, 3))


def _expected_grads(model, x):
    """d mean(y*y) / d each parameter, by hand in NumPy (Linear: y = x W^T + b)."""
    w1, b1, w2, b2 = (p.detach().numpy().astype(np.float64) for p in model.parameters())
    h = np.tanh(x @ w1.T + b1)
    y = h @ w2.T + b2
    dy = 2 * y / y.size
    dh = (dy @ w2) * (1 - h * h)
    return [dh.T @ x, dh.sum(0), dy.T @ h, dy.sum(0)]


@pytest.mark.parametrize("jitted", [True, False])
def test_backward_compiles_at_its_first_run_when_the_forward_was_jitted(jitted):
    model = _mlp()
    x = np.linspace(-1, 1, 45, dtype=np.float32).reshape(9, 5)
    step = jg.jit(lambda m, x: m(x)) if jitted else (lambda m, x: m(x))
    per_call, forward_compiles = [], []
    for _ in range(4):
        with jg.profiler.profile() as fwd:
            y = step(model, jg.tensor(x))
        with jg.profiler.profile() as bwd:
            (y * y).mean().backward()
        per_call.append(_compiles(bwd))
        forward_compiles.append(_compiles(fwd))
        for p, want in zip(model.parameters(), _expected_grads(model, x)):
            np.testing.assert_allclose(p.grad.numpy(), want, rtol=1e-4, atol=1e-6)
            p.grad = None
    # jitted: compiled once, at the first backward; eager: interpreted until the third
    assert per_call == ([1, 0, 0, 0] if jitted else [0, 0, 1, 0])
    assert forward_compiles == ([1, 0, 0, 0] if jitted else [0, 0, 0, 0])
