"""Recurrent cells with PyTorch's equations, gate order and parameter names: the step math
shared by the cells and the sequence layers (rnn.py), and the LSTMCell, GRUCell and RNNCell
modules.

A step takes the input projection of one time step, `xp = x @ W_ih.T` (the sequence layers
compute it for every step in one matmul outside the loop, as cuDNN does; GRU's includes b_ih),
the state and the recurrent weights, and returns the new state; only `h @ W_hh.T` (plus the
biases, b_ih + b_hh where they fold: `biases`) happens inside the loop.

    LSTM  (gates i, f, g, o)   c' = sigmoid(f) * c + sigmoid(i) * tanh(g)
                               h' = sigmoid(o) * tanh(c')          (then h' @ W_hr.T with proj_size)
    GRU   (gates r, z, n)      n  = tanh(xp_n + r * (h @ W_hn.T + b_hn))
                               h' = (1 - z) * n + z * h
    RNN                        h' = tanh or relu(xp + h @ W_hh.T + b_hh)
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np

from .. import numpy as jnp
from ..dtypes import default_float
from . import functional as F
from . import init
from .module import Module, Parameter


class Recurrent(NamedTuple):
    """The recurrent weights a step uses: W_hh.T, the step's bias (`biases`; None without
    biases) and W_hr.T (LSTM with proj_size, else None)."""
    w_hh_t: object
    b_hh: object = None
    w_hr_t: object = None


def _recurrent_term(h, rec: Recurrent):
    g = jnp.matmul(h, rec.w_hh_t)
    return g if rec.b_hh is None else jnp.add(g, rec.b_hh)


def lstm_step(xp, state, rec: Recurrent):
    h, c = state
    i, f, g, o = jnp.split(jnp.add(xp, _recurrent_term(h, rec)), 4, axis=-1)
    c = jnp.add(jnp.multiply(F.sigmoid(f), c), jnp.multiply(F.sigmoid(i), jnp.tanh(g)))
    h = jnp.multiply(F.sigmoid(o), jnp.tanh(c))
    if rec.w_hr_t is not None:
        h = jnp.matmul(h, rec.w_hr_t)
    return h, c


def gru_step(xp, state, rec: Recurrent):
    (h,) = state
    x_r, x_z, x_n = jnp.split(xp, 3, axis=-1)
    h_r, h_z, h_n = jnp.split(_recurrent_term(h, rec), 3, axis=-1)
    r = F.sigmoid(jnp.add(x_r, h_r))
    z = F.sigmoid(jnp.add(x_z, h_z))
    n = jnp.tanh(jnp.add(x_n, jnp.multiply(r, h_n)))
    return (jnp.add(n, jnp.multiply(z, jnp.subtract(h, n))),)    # (1 - z) * n + z * h


def _rnn_step(activation):
    def step(xp, state, rec: Recurrent):
        (h,) = state
        return (activation(jnp.add(xp, _recurrent_term(h, rec))),)
    return step


class CellKind(NamedTuple):
    """What differs between the recurrent kinds. `fold_hh_bias`: b_ih + b_hh can be added as
    one bias (not for GRU, whose b_hn sits inside r * (...)). `n_state`: 2 for (h, c)."""
    gates: int
    fold_hh_bias: bool
    n_state: int
    step: Callable


CELL_KINDS = {
    "LSTM": CellKind(4, True, 2, lstm_step),
    "GRU": CellKind(3, False, 1, gru_step),
    "RNN_TANH": CellKind(1, True, 1, _rnn_step(jnp.tanh)),
    "RNN_RELU": CellKind(1, True, 1, _rnn_step(F.relu)),
}

RNN_NONLINEARITIES = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}


def rnn_mode(nonlinearity: str, who: str) -> str:
    if nonlinearity not in RNN_NONLINEARITIES:
        raise ValueError(f"{who}: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
    return RNN_NONLINEARITIES[nonlinearity]


def biases(b_ih, b_hh, kind: CellKind):
    """(the input projection's bias, the step's bias), either None: where the kind folds b_hh,
    b_ih + b_hh (one (G*H,) add) in the step, as the epilogue of its `h @ W_hh.T` (a bias added
    to the projection was a pass over the (T, N, G*H) projection forward, and its gradient one
    more, a copy of the reshaped cotangent, backward); GRU: b_ih in the projection, b_hh in
    the step, inside r * (...)."""
    if not kind.fold_hh_bias:
        return b_ih, b_hh
    present = [b for b in (b_ih, b_hh) if b is not None]
    return None, (None if not present else present[0] if len(present) == 1
                  else jnp.add(*present))


def input_projection(x, w_ih, bias):
    """x @ W_ih.T (+ bias) over every leading axis at once, as one 2-D matmul: so W_ih's
    gradient is one matmul too, not a batched one summed over time."""
    lead = tuple(x.shape[:-1])
    xp = jnp.matmul(jnp.reshape(x, (-1, x.shape[-1])), jnp.transpose(w_ih))
    xp = jnp.reshape(xp, lead + (xp.shape[-1],))
    return xp if bias is None else jnp.add(xp, bias)


def recurrent_weights(w_hh, bias, w_hr) -> Recurrent:
    return Recurrent(jnp.transpose(w_hh), bias, None if w_hr is None else jnp.transpose(w_hr))


def uniform_parameter(shape, hidden_size):
    """A parameter drawn as PyTorch's recurrent layers draw all of theirs: U(-k, k) with
    k = 1/sqrt(hidden_size)."""
    p = Parameter(np.empty(shape, default_float()))
    bound = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0.0
    return init.uniform_(p, -bound, bound)


def split_state(hx, kind: CellKind, who):
    """hx as a tuple of kind.n_state arrays: (h, c) for LSTM, (h,) otherwise."""
    if kind.n_state == 1:
        return (hx,)
    if not isinstance(hx, (tuple, list)) or len(hx) != 2:
        got = f"{len(hx)} items" if isinstance(hx, (tuple, list)) else type(hx).__name__
        raise ValueError(f"{who}: expected hx as a pair (h, c), got {got}")
    return tuple(hx)


def check_sizes(who, input_size, hidden_size):
    for name, v in (("input_size", input_size), ("hidden_size", hidden_size)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
            raise ValueError(f"{who}: {name} must be a positive integer, got {v!r}")


class _Cell(Module):
    """One step of a recurrent kind: weight_ih (G*H, input), weight_hh (G*H, H), bias_ih and
    bias_hh (G*H), G the number of gates. forward(input, hx=None) with input (N, input_size) or
    unbatched (input_size,)."""
    mode = "LSTM"

    def __init__(self, input_size, hidden_size, bias=True):
        super().__init__()
        who = type(self).__name__
        check_sizes(who, input_size, hidden_size)
        self.input_size, self.hidden_size, self.bias = int(input_size), int(hidden_size), bool(bias)
        gates = CELL_KINDS[self.mode].gates * self.hidden_size
        self.weight_ih = uniform_parameter((gates, self.input_size), self.hidden_size)
        self.weight_hh = uniform_parameter((gates, self.hidden_size), self.hidden_size)
        for name in ("bias_ih", "bias_hh"):
            self.register_parameter(name, uniform_parameter((gates,), self.hidden_size)
                                    if bias else None)

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def _state(self, x, hx, batched):
        """The state as a tuple of (N, H) arrays, zeros where hx is None."""
        kind = CELL_KINDS[self.mode]
        n = x.shape[0]
        if hx is None:
            return tuple(jnp.zeros((n, self.hidden_size), dtype=x.dtype)
                         for _ in range(kind.n_state))
        parts = split_state(hx, kind, type(self).__name__)
        want = (n, self.hidden_size) if batched else (self.hidden_size,)
        out = []
        for name, s in zip(("h", "c"), parts):
            s = jnp.asarray(s)
            if tuple(s.shape) != want:
                raise ValueError(f"{type(self).__name__}: expected {name} of shape {want}, got "
                                 f"{tuple(s.shape)}")
            out.append(s if batched else jnp.expand_dims(s, 0))
        return tuple(out)

    def forward(self, input, hx=None):
        who, kind = type(self).__name__, CELL_KINDS[self.mode]
        x = jnp.asarray(input)
        if x.ndim not in (1, 2) or x.shape[-1] != self.input_size:
            raise ValueError(f"{who}: expected input of shape (batch, {self.input_size}) or "
                             f"({self.input_size},), got {tuple(x.shape)}")
        batched = x.ndim == 2
        x = x if batched else jnp.expand_dims(x, 0)
        state = self._state(x, hx, batched)
        b_x, b_step = biases(self.bias_ih, self.bias_hh, kind)
        xp = input_projection(x, self.weight_ih, b_x)
        state = kind.step(xp, state, recurrent_weights(self.weight_hh, b_step, None))
        state = state if batched else tuple(jnp.squeeze(s, 0) for s in state)
        return state if kind.n_state == 2 else state[0]

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}" + ("" if self.bias else ", bias=False")


class LSTMCell(_Cell):
    """torch.nn.LSTMCell: forward(input, (h, c)=None) -> (h', c')."""
    mode = "LSTM"


class GRUCell(_Cell):
    """torch.nn.GRUCell: forward(input, h=None) -> h'."""
    mode = "GRU"


class RNNCell(_Cell):
    """torch.nn.RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh'): h' = act(...)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh"):
        self.mode = rnn_mode(nonlinearity, "RNNCell")   # an instance attribute: static in pytrees
        super().__init__(input_size, hidden_size, bias)
        self.nonlinearity = nonlinearity

    def extra_repr(self):
        return super().extra_repr() + ("" if self.nonlinearity == "tanh"
                                       else f", nonlinearity={self.nonlinearity!r}")


__all__ = ["LSTMCell", "GRUCell", "RNNCell"]
