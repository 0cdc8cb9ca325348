"""A NumPy reference of PyTorch's recurrent layers, written from torch.nn's documented equations
(step by step, no shared code with jitgrad): the oracle of tests/nn/test_nn_rnn.py."""
from __future__ import annotations

import numpy as np


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _lstm(x, state, p):
    h, c = state
    gates = x @ p["weight_ih"].T + p.get("bias_ih", 0) + h @ p["weight_hh"].T + p.get("bias_hh", 0)
    i, f, g, o = np.split(gates, 4, axis=-1)
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    h = sigmoid(o) * np.tanh(c)
    if "weight_hr" in p:
        h = h @ p["weight_hr"].T
    return h, c


def _gru(x, state, p):
    (h,) = state
    w_ir, w_iz, w_in = np.split(p["weight_ih"], 3)
    w_hr, w_hz, w_hn = np.split(p["weight_hh"], 3)
    zero = np.zeros(p["weight_ih"].shape[0])
    b_ir, b_iz, b_in = np.split(p.get("bias_ih", zero), 3)
    b_hr, b_hz, b_hn = np.split(p.get("bias_hh", zero), 3)
    r = sigmoid(x @ w_ir.T + b_ir + h @ w_hr.T + b_hr)
    z = sigmoid(x @ w_iz.T + b_iz + h @ w_hz.T + b_hz)
    n = np.tanh(x @ w_in.T + b_in + r * (h @ w_hn.T + b_hn))
    return ((1 - z) * n + z * h,)


def _elman(act):
    def step(x, state, p):
        (h,) = state
        pre = (x @ p["weight_ih"].T + p.get("bias_ih", 0)
               + h @ p["weight_hh"].T + p.get("bias_hh", 0))
        return (act(pre),)
    return step


STEPS = {"LSTM": _lstm, "GRU": _gru, "RNN_TANH": _elman(np.tanh),
         "RNN_RELU": _elman(lambda v: np.maximum(v, 0.0))}
ROLES = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")


def cell(mode, x, state, params):
    """One step; params keyed weight_ih, weight_hh, bias_ih, bias_hh; state a tuple."""
    return STEPS[mode](x, state, params)


def layer_params(params, layer, direction):
    suffix = f"_l{layer}" + ("_reverse" if direction else "")
    return {role: params[role + suffix] for role in ROLES if role + suffix in params}


def rnn(mode, params, x, hx=None, num_layers=1, bidirectional=False, batch_first=False,
        hidden_size=None, proj_size=0, masks=None):
    """PyTorch's multi-layer recurrent forward. x (L, N, I) / (N, L, I) / unbatched (L, I);
    hx: (h0,) or (h0, c0) shaped (layers * D, N, H) or unbatched (layers * D, H); masks: the
    dropout multipliers applied to the input of layers 1.. (already scaled by 1/(1-p)).
    Returns (output, (h_n,) or (h_n, c_n))."""
    d = 2 if bidirectional else 1
    unbatched = x.ndim == 2
    if unbatched:
        x = x[:, None]
        hx = None if hx is None else tuple(s[:, None] for s in hx)
    elif batch_first:
        x = x.transpose(1, 0, 2)
    seq, n = x.shape[:2]
    n_state = 2 if mode == "LSTM" else 1
    if hx is None:
        sizes = (proj_size or hidden_size, hidden_size)[:n_state]
        hx = tuple(np.zeros((num_layers * d, n, s)) for s in sizes)
    finals = []
    for layer in range(num_layers):
        if layer and masks is not None:
            x = x * masks[layer - 1]
        outs = []
        for direction in range(d):
            p = layer_params(params, layer, direction)
            state = tuple(s[layer * d + direction] for s in hx)
            ys = [None] * seq
            for t in (range(seq - 1, -1, -1) if direction else range(seq)):
                state = cell(mode, x[t], state, p)
                ys[t] = state[0]
            outs.append(np.stack(ys))
            finals.append(state)
        x = np.concatenate(outs, axis=-1)
    h_n = tuple(np.stack([f[k] for f in finals]) for k in range(n_state))
    if unbatched:
        return x[:, 0], tuple(s[:, 0] for s in h_n)
    return (x.transpose(1, 0, 2) if batch_first else x), h_n
