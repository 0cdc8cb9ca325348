"""Eager LSTM / GRU / RNN layers once hot: one compiled call per layer and direction, with the
values and gradients of the op-by-op tier and of jit; retain_grad and retain_graph still work."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.transforms import fused_eager

RNG = np.random.default_rng(7)
L, N, IN, H = 5, 3, 4, 6


def _layer(mode, **kw):
    return getattr(jg.nn, mode)(IN, H, **kw)


def _run(model, x0, h0):
    """(output, state, {name: grad}) of one eager forward and backward."""
    x = jg.tensor(x0, requires_grad=True)
    hx = [jg.tensor(h, requires_grad=True) for h in h0]
    out, state = model(x, tuple(hx) if len(hx) == 2 else hx[0])
    state = state if isinstance(state, tuple) else (state,)
    loss = (out * out).sum() + sum((s * 1.5).sum() for s in state)
    model.zero_grad()
    loss.backward()
    grads = {k: p.grad.numpy() for k, p in model.named_parameters()}
    grads["x"] = x.grad.numpy()
    grads.update({f"h{i}": h.grad.numpy() for i, h in enumerate(hx)})
    return out.detach().numpy(), [s.detach().numpy() for s in state], grads


@pytest.mark.parametrize("mode,kw", [("LSTM", {"num_layers": 2, "bidirectional": True}),
                                     ("LSTM", {"proj_size": 3}),
                                     ("GRU", {"num_layers": 2}),
                                     ("RNN", {"nonlinearity": "relu", "bidirectional": True})])
def test_hot_layers_give_the_op_by_op_values_and_gradients(mode, kw):
    model = _layer(mode, **kw)
    stacks = model.num_layers * (2 if model.bidirectional else 1)
    sizes = [model.proj_size or H] + ([H] if mode == "LSTM" else [])
    x0 = RNG.standard_normal((L, N, IN)).astype(np.float32)
    h0 = [RNG.standard_normal((stacks, N, s)).astype(np.float32) for s in sizes]
    runs = [_run(model, x0, h0) for _ in range(fused_eager.HOT + 2)]
    first = runs[0]
    for out, state, grads in runs[1:]:
        np.testing.assert_allclose(out, first[0], rtol=1e-5, atol=1e-6)
        for a, b in zip(state, first[1]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        assert grads.keys() == first[2].keys()
        for k in grads:
            np.testing.assert_allclose(grads[k], first[2][k], rtol=1e-4, atol=1e-5, err_msg=k)
    out, _ = jg.jit(lambda m, x: m(x, tuple(jg.tensor(h) for h in h0) if len(h0) == 2
                                   else jg.tensor(h0[0])))(model, jg.tensor(x0))
    np.testing.assert_allclose(np.asarray(out), first[0], rtol=1e-5, atol=1e-6)


def test_a_hot_lstm_forward_is_one_compiled_call_per_layer_and_direction():
    model = jg.nn.LSTM(IN, H, num_layers=2, bidirectional=True)
    x = jg.tensor(RNG.standard_normal((L, N, IN)).astype(np.float32))
    for _ in range(fused_eager.HOT + 1):
        model(x)
    with jg.profiler.profile() as prof:
        out, _ = model(x)
    calls = [e for e in prof.events if e.cat == "call"]
    assert len(calls) == 4                           # 2 layers x 2 directions
    assert not [e for e in prof.events if e.cat == "eager" and "scan" in e.name]
    assert out.shape == (L, N, 2 * H)


def test_retain_grad_and_retain_graph_on_a_hot_layer():
    model = _layer("GRU")
    x0 = RNG.standard_normal((L, N, IN)).astype(np.float32)
    for _ in range(fused_eager.HOT):
        model(jg.tensor(x0))
    x = jg.tensor(x0, requires_grad=True)
    out, h = model(x)
    out.retain_grad()
    loss = out.sum() + (h * 2).sum()
    loss.backward(retain_graph=True)
    once = x.grad.numpy().copy()
    np.testing.assert_array_equal(out.grad.numpy(), np.ones(out.shape, np.float32))
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * once, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out.grad.numpy(), np.full(out.shape, 2, np.float32))
    x2 = jg.tensor(x0, requires_grad=True)
    out2, h2 = model(x2)
    (out2.sum() + (h2 * 2).sum()).backward()
    np.testing.assert_allclose(x2.grad.numpy(), once, rtol=1e-5, atol=1e-6)
