"""A torch module's state_dict loads into jitgrad's recurrent layers as it is, and both give the
same outputs and gradients (float64). Skipped where torch is not installed; the NumPy-reference
tests (test_nn_rnn.py) are the ones that always run."""
from __future__ import annotations

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn

torch = pytest.importorskip("torch")

CASES = {
    "lstm-2layer-bidir-proj": ("LSTM", dict(num_layers=2, bidirectional=True, proj_size=3)),
    "lstm-batch_first": ("LSTM", dict(batch_first=True)),
    "gru-2layer-bidir": ("GRU", dict(num_layers=2, bidirectional=True)),
    "gru-batch_first-nobias": ("GRU", dict(batch_first=True, bias=False)),
    "rnn-relu-2layer": ("RNN", dict(num_layers=2, nonlinearity="relu")),
    "rnn-tanh-bidir": ("RNN", dict(bidirectional=True)),
}
INPUT, HIDDEN, SEQ, BATCH = 5, 4, 6, 3


def as_list(state):
    return list(state) if isinstance(state, tuple) else [state]


@pytest.mark.parametrize("case", list(CASES))
def test_torch_state_dict_loads_and_agrees(x64, case):
    name, kwargs = CASES[case]
    torch.manual_seed(0)
    t = getattr(torch.nn, name)(INPUT, HIDDEN, **kwargs).double()
    j = getattr(nn, name)(INPUT, HIDDEN, **kwargs)
    j.load_state_dict(t.state_dict())            # torch tensors, as they are
    shape = (BATCH, SEQ, INPUT) if kwargs.get("batch_first") else (SEQ, BATCH, INPUT)
    x = np.random.default_rng(0).normal(size=shape)

    xt = torch.tensor(x, requires_grad=True)
    out_t, state_t = t(xt)
    loss_t = out_t.pow(2).sum() + sum(s.sin().sum() for s in as_list(state_t))
    loss_t.backward()

    def loss(m, x):
        out, state = m(x)
        return jnp.sum(out * out) + sum(jnp.sum(jnp.sin(s)) for s in as_list(state))
    for fn in (jg.value_and_grad(loss, argnums=(0, 1)),
               jg.jit(jg.value_and_grad(loss, argnums=(0, 1)))):
        value, (g_model, g_x) = fn(j, jnp.asarray(x))
        assert float(value) == pytest.approx(loss_t.item(), rel=1e-10)
        np.testing.assert_allclose(np.asarray(g_x), xt.grad.numpy(), rtol=1e-9, atol=1e-12)
        got = dict(g_model.named_parameters())
        want = {k: p.grad.numpy() for k, p in t.named_parameters()}
        assert list(got) == list(want)
        for k in want:
            np.testing.assert_allclose(np.asarray(got[k]), want[k], rtol=1e-9, atol=1e-12,
                                       err_msg=k)


@pytest.mark.parametrize("name", ["LSTMCell", "GRUCell", "RNNCell"])
def test_torch_cells_agree(x64, name):
    torch.manual_seed(1)
    t = getattr(torch.nn, name)(INPUT, HIDDEN).double()
    j = getattr(nn, name)(INPUT, HIDDEN)
    j.load_state_dict(t.state_dict())
    rng = np.random.default_rng(1)
    x, h = rng.normal(size=(BATCH, INPUT)), rng.normal(size=(BATCH, HIDDEN))
    hx_t = (torch.tensor(h), torch.tensor(h * 0.5)) if name == "LSTMCell" else torch.tensor(h)
    hx_j = (jnp.asarray(h), jnp.asarray(h * 0.5)) if name == "LSTMCell" else jnp.asarray(h)
    want = as_list(t(torch.tensor(x), hx_t))
    got = as_list(j(jnp.asarray(x), hx_j))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w.detach().numpy(), rtol=1e-10, atol=1e-12)
