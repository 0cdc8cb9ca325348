"""Sequence layers LSTM, GRU and RNN with torch.nn's constructor, parameter names and shapes,
so `load_state_dict` takes a PyTorch state dict as it is.

Each layer and direction is one `jg.scan` over the time axis (rnn_scan.py). The input projection of every
time step is one matmul before the scan (as cuDNN and torch do), so the loop body holds only
the recurrent matmul and the gate math (rnn_cells.py). The backward direction is the same scan
with reverse=True. Under jit it is one scan node; eagerly one compiled call once hot.
"""
from __future__ import annotations

import math
import warnings

from .. import numpy as jnp
from .. import random as jrandom
from . import functional as F
from . import init
from .module import Module
from .utils.rnn import PackedSequence, packed_forward
from .rnn_cells import CELL_KINDS, check_sizes, rnn_mode, split_state, uniform_parameter
from .rnn_scan import layer_scan
from .rnn_cells import GRUCell, LSTMCell, RNNCell  # noqa: F401  (jg.nn's names come from here)
from ..ir.types import kind_of

_PARAM_ROLES = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")


class RNNBase(Module):
    """The stack of layers x directions shared by LSTM, GRU and RNN.

    forward(input, hx=None, key=None): input (L, N, input_size), (N, L, input_size) with
    batch_first, or unbatched (L, input_size); hx (num_layers * D, N, H_out) (a pair (h, c) for
    LSTM), zeros when None. `key` (a jg.random key) draws the dropout between layers, needed
    under jit only when training with dropout > 0."""
    mode = "LSTM"

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0):
        super().__init__()
        who = type(self).__name__
        check_sizes(who, input_size, hidden_size)
        if isinstance(num_layers, bool) or not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f"{who}: num_layers must be an integer >= 1, got {num_layers!r}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) \
                or not 0.0 <= dropout <= 1.0:
            raise ValueError(f"{who}: dropout must be a number in [0, 1] (the probability of "
                             f"zeroing an element), got {dropout!r}")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"{who}: dropout={dropout} acts only between layers, so it does nothing "
                          "with num_layers=1", stacklevel=2)
        if not isinstance(proj_size, int) or proj_size < 0:
            raise ValueError(f"{who}: proj_size must be an integer >= 0, got {proj_size!r}")
        if proj_size and self.mode != "LSTM":
            raise ValueError(f"{who}: proj_size is supported by LSTM only, got "
                             f"proj_size={proj_size}")
        if proj_size >= hidden_size:
            raise ValueError(f"{who}: proj_size must be smaller than hidden_size, got "
                             f"proj_size={proj_size}, hidden_size={hidden_size}")
        self.input_size, self.hidden_size = int(input_size), int(hidden_size)
        self.num_layers, self.bias, self.batch_first = num_layers, bool(bias), bool(batch_first)
        self.dropout, self.bidirectional = float(dropout), bool(bidirectional)
        self.proj_size = proj_size
        gates = CELL_KINDS[self.mode].gates * self.hidden_size
        h_out, d = self._h_out(), self._directions()
        for layer in range(num_layers):
            for direction in range(d):
                shapes = {"weight_ih": (gates, input_size if layer == 0 else h_out * d),
                          "weight_hh": (gates, h_out),
                          "bias_ih": (gates,) if bias else None,
                          "bias_hh": (gates,) if bias else None,
                          "weight_hr": (proj_size, hidden_size) if proj_size else None}
                for role in _PARAM_ROLES:
                    if shapes[role] is not None:
                        self.register_parameter(self._name(role, layer, direction),
                                                uniform_parameter(shapes[role], hidden_size))

    def _h_out(self):
        return self.proj_size or self.hidden_size

    def _directions(self):
        return 2 if self.bidirectional else 1

    @staticmethod
    def _name(role, layer, direction):
        return f"{role}_l{layer}" + ("_reverse" if direction else "")

    def _params(self, layer, direction):
        """{role: parameter or None} of one layer and direction."""
        return {role: self._parameters.get(self._name(role, layer, direction))
                for role in _PARAM_ROLES}

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def flatten_parameters(self):
        """A no-op kept for PyTorch code (there is no cuDNN weight buffer to compact)."""

    # ------------------------------------------------------------------------------- forward
    def _initial_state(self, x, hx, batched):
        """[(h0, c0) or (h0,)] per layer*direction, each (N, size), from hx or zeros."""
        who, kind = type(self).__name__, CELL_KINDS[self.mode]
        n, stacks = x.shape[1], self.num_layers * self._directions()
        sizes = (self._h_out(), self.hidden_size)[:kind.n_state]
        if hx is None:
            zeros = [jnp.zeros((stacks, n, s), dtype=x.dtype) for s in sizes]
        else:
            zeros = []
            for name, s, size in zip(("h_0", "c_0"), split_state(hx, kind, who), sizes):
                s = jnp.asarray(s)
                want = (stacks, n, size) if batched else (stacks, size)
                if tuple(s.shape) != want:
                    raise ValueError(f"{who}: expected {name} of shape {want} (num_layers * "
                                     f"num_directions, {'batch, ' if batched else ''}"
                                     f"{'hidden_size' if size == self.hidden_size else 'proj_size'}"
                                     f"), got {tuple(s.shape)}")
                zeros.append(s if batched else jnp.expand_dims(s, 1))
        return [tuple(z[k] for z in zeros) for k in range(stacks)]

    def _run_direction(self, x, state, layer, direction):
        """One scan over time: (outputs (L, N, H_out), final state)."""
        p = self._params(layer, direction)
        ys, h, c = layer_scan(x, state[0], state[1] if len(state) == 2 else None,
                              p["weight_ih"], p["weight_hh"], p["bias_ih"], p["bias_hh"],
                              p["weight_hr"], self.mode, bool(direction))
        return ys, (h,) if c is None else (h, c)

    def _check_input(self, input):
        who = type(self).__name__
        x = jnp.asarray(input)
        if x.ndim not in (2, 3) or x.shape[-1] != self.input_size:
            layout = "(batch, seq, input_size)" if self.batch_first else "(seq, batch, input_size)"
            raise ValueError(f"{who}: expected input of shape {layout} or unbatched (seq, "
                             f"input_size) with input_size={self.input_size}, got "
                             f"{tuple(x.shape)}")
        if kind_of(x.dtype) != "f":
            raise TypeError(f"{who}: expected a floating-point input, got {x.dtype}")
        seq_axis = 1 if self.batch_first and x.ndim == 3 else 0
        if x.shape[seq_axis] == 0:
            raise ValueError(f"{who}: expected a sequence of length >= 1, got input of shape "
                             f"{tuple(x.shape)}")
        return x

    def forward(self, input, hx=None, key=None):
        if isinstance(input, PackedSequence):       # torch.nn.utils.rnn's packed batches
            return packed_forward(self, input, hx, key)
        kind, d = CELL_KINDS[self.mode], self._directions()
        x = self._check_input(input)
        batched = x.ndim == 3
        if not batched:
            x = jnp.expand_dims(x, 1)
        elif self.batch_first:
            x = jnp.swapaxes(x, 0, 1)                       # time-major inside
        states = self._initial_state(x, hx, batched)
        drop = self.training and self.dropout > 0 and self.num_layers > 1
        keys = (jrandom.split(key, self.num_layers - 1) if drop and key is not None
                else [None] * (self.num_layers - 1))
        finals = []
        for layer in range(self.num_layers):
            if layer and drop:
                x = F.dropout(x, self.dropout, True, keys[layer - 1])
            runs = [self._run_direction(x, states[layer * d + k], layer, k) for k in range(d)]
            finals += [final for _, final in runs]
            x = runs[0][0] if d == 1 else jnp.concatenate([ys for ys, _ in runs], axis=-1)
        if not batched:
            x = jnp.squeeze(x, 1)
        elif self.batch_first:
            x = jnp.swapaxes(x, 0, 1)
        h_n = [jnp.stack([f[k] for f in finals]) for k in range(kind.n_state)]
        if not batched:
            h_n = [jnp.squeeze(s, 1) for s in h_n]
        return x, (tuple(h_n) if kind.n_state == 2 else h_n[0])

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        defaults = {"proj_size": 0, "num_layers": 1, "bias": True, "batch_first": False,
                    "dropout": 0.0, "bidirectional": False}
        for name, default in defaults.items():
            if getattr(self, name) != default:
                s += f", {name}={getattr(self, name)}"
        return s


class LSTM(RNNBase):
    """torch.nn.LSTM: gates i, f, g, o; forward -> (output, (h_n, c_n)). With proj_size > 0,
    h is projected by weight_hr_l* (shape (proj_size, hidden_size)) at every step."""
    mode = "LSTM"


class GRU(RNNBase):
    """torch.nn.GRU: gates r, z, n with n = tanh(W_in x + b_in + r * (W_hn h + b_hn));
    forward -> (output, h_n)."""
    mode = "GRU"


class RNN(RNNBase):
    """torch.nn.RNN (Elman): h' = tanh or relu(W_ih x + b_ih + W_hh h + b_hh), chosen by
    nonlinearity='tanh' | 'relu'; forward -> (output, h_n)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False):
        self.mode = rnn_mode(nonlinearity, "RNN")      # an instance attribute: static in pytrees
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional)
        self.nonlinearity = nonlinearity

    def extra_repr(self):
        return super().extra_repr() + ("" if self.nonlinearity == "tanh"
                                       else f", nonlinearity={self.nonlinearity!r}")


__all__ = ["RNNBase", "LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell"]
