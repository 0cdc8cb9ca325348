"""One layer and direction of a recurrent layer (LSTM, GRU, RNN) over the whole sequence: the
input projection of every step as one matmul, then a `scan` over time of the step math
(rnn_cells.py), backwards with reverse=True.

Under jit it is one scan node. Eagerly it is `fused_in_eager` (fused_eager.py): once its
signature is hot, ONE compiled call per layer and direction (the scan compiled with the
layer's weights), as PyTorch's fused recurrent kernels are one call each; recorded for
autograd as one op that saves the per-step values its backward reads (as PyTorch's kernels
save their gates), so a training step runs the scan once forward and once backward. Before
that, and off the CPU, it runs step by step.
"""
from __future__ import annotations

from ..transforms.control import scan
from ..transforms.fused_eager import fused_in_eager
from .rnn_cells import CELL_KINDS, biases, input_projection, recurrent_weights


@fused_in_eager("x", "h0", "c0", "w_ih", "w_hh", "b_ih", "b_hh", "w_hr")
def layer_scan(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, mode, reverse):
    """x (L, N, input) -> (outputs (L, N, H_out), final h, final c), c and c0 None unless
    mode is 'LSTM'; the biases and w_hr (LSTM's projection) may be None."""
    kind = CELL_KINDS[mode]
    b_x, b_step = biases(b_ih, b_hh, kind)
    xp = input_projection(x, w_ih, b_x)
    rec = recurrent_weights(w_hh, b_step, w_hr)

    def step(carry, xp_t):
        new = kind.step(xp_t, carry, rec)
        return new, new[0]
    state = (h0, c0) if kind.n_state == 2 else (h0,)
    final, ys = scan(step, state, xp, reverse=reverse)
    return ys, final[0], final[1] if kind.n_state == 2 else None
