"""torch.nn.functional.ctc_loss and nn.CTCLoss: the connectionist temporal classification loss
by the forward (alpha) recursion in log space over the blank-extended targets, one step per time
step of the (T, N, C) log-probabilities; sequences shorter than T keep their last alphas.
Impossible paths use a large finite negative instead of -inf, so no gradient meets inf * 0."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..ir.types import kind_of
from ..numpy import half_compute
from ..numpy._convert import asarray
from ..eager.tensor import Tensor
from ..transforms.autodiff import stop_gradient
from .module import Module

_NEG = -1e30        # log(0) of an unreachable state: exp of it is exactly 0 in float32 too


def _logsumexp(*terms):
    m = stop_gradient(terms[0])
    for t in terms[1:]:
        m = jnp.maximum(m, stop_gradient(t))
    total = None
    for t in terms:
        e = jnp.exp(jnp.subtract(t, m))
        total = e if total is None else jnp.add(total, e)
    return jnp.add(m, jnp.log(total))


def _host_ints(v, where, name):
    if isinstance(v, Tensor):
        return np.asarray(v._host(where)).astype(np.int64)
    if isinstance(v, (list, tuple, np.ndarray, int, np.integer)):
        return np.asarray(v, np.int64).reshape(-1)
    raise ValueError(f"{where}: {name} must be known on the host (a tuple, list, NumPy array or "
                     f"eager tensor), got {type(v).__name__}")


def _padded_targets(targets, target_lengths, n, where):
    """(N, S) targets: as given when 2-D, else the 1-D concatenation split by target_lengths."""
    t = asarray(targets)
    if kind_of(t.dtype) not in "iu":
        raise TypeError(f"{where}: expected integer targets, got {t.dtype}")
    if t.ndim == 2:
        return t
    host = np.asarray(t._host(where)) if isinstance(t, Tensor) else None
    if t.ndim != 1 or host is None:
        raise ValueError(f"{where}: targets must be (N, S) or an eager 1-D concatenation of the "
                         f"targets, got shape {tuple(t.shape)}")
    width = max(int(target_lengths.max()), 1) if n else 1
    out = np.zeros((n, width), np.int64)
    starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
    for i, (s, k) in enumerate(zip(starts, target_lengths)):
        out[i, :k] = host[s:s + k]
    return jnp.asarray(out)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """torch.nn.functional.ctc_loss of (T, N, C) (or unbatched (T, C)) log-probabilities; the
    lengths must be known on the host. "mean" divides each loss by its target length, then
    averages over the batch; zero_infinity zeroes impossible (infinite) losses."""
    where = "ctc_loss"
    (lp,), half = half_compute.widened(log_probs)     # float16/bfloat16: in float32, rounded once
    unbatched = lp.ndim == 2
    if unbatched:
        lp = lp[:, None]
        targets = asarray(targets)[None] if asarray(targets).ndim == 1 else targets
    if lp.ndim != 3:
        raise ValueError(f"{where}: expected log_probs of shape (T, N, C) or (T, C), got "
                         f"{tuple(asarray(log_probs).shape)}")
    t_max, n, c = lp.shape
    in_len = _host_ints(input_lengths, where, "input_lengths")
    tgt_len = _host_ints(target_lengths, where, "target_lengths")
    if in_len.shape != (n,) or tgt_len.shape != (n,) or (in_len > t_max).any():
        raise ValueError(f"{where}: expected {n} input lengths <= {t_max} and {n} target "
                         f"lengths, got {in_len.tolist()} and {tgt_len.tolist()}")
    tg = _padded_targets(targets, tgt_len, n, where)
    s = 2 * tg.shape[1] + 1
    # the blank-extended targets: blank, l1, blank, l2, ..., lS, blank
    ext = jnp.concatenate([jnp.full((n, 1), blank, tg.dtype), jnp.reshape(jnp.stack(
        [tg, jnp.full(tuple(tg.shape), blank, tg.dtype)], axis=2), (n, s - 1))], axis=1)
    valid = np.arange(s)[None, :] < (2 * tgt_len + 1)[:, None]                   # (N, S')
    skip = jnp.logical_and(jnp.not_equal(ext, blank), jnp.concatenate(
        [jnp.zeros((n, 2), bool), jnp.not_equal(ext[:, 2:], ext[:, :-2])], axis=1))
    hot = jnp.equal(jnp.expand_dims(ext, -1), np.arange(c)).astype(lp.dtype)    # (N, S', C)
    emit = jnp.einsum("tnc,nsc->tns", lp, hot)                                   # (T, N, S')
    neg = jnp.full((n, s), _NEG, lp.dtype)
    alpha = jnp.where(np.arange(s) < 2, emit[0], neg)
    alpha = jnp.where(valid, alpha, neg)
    for t in range(1, t_max):
        prev1 = jnp.concatenate([neg[:, :1], alpha[:, :-1]], axis=1)
        prev2 = jnp.where(skip, jnp.concatenate([neg[:, :2], alpha[:, :-2]], axis=1), neg)
        new = jnp.add(_logsumexp(alpha, prev1, prev2), emit[t])
        new = jnp.where(valid, jnp.maximum(new, _NEG), neg)
        alpha = jnp.where((t < in_len)[:, None], new, alpha)
    last = np.zeros((n, s))
    last[np.arange(n), 2 * tgt_len] = 1.0
    last[np.arange(n)[tgt_len > 0], 2 * tgt_len[tgt_len > 0] - 1] = 1.0
    ends = jnp.where(last.astype(bool), alpha, neg)
    top = stop_gradient(jnp.max(ends, axis=1, keepdims=True))
    nll = jnp.negative(jnp.add(top[:, 0], jnp.log(jnp.sum(jnp.exp(jnp.subtract(ends, top)),
                                                           axis=1))))
    impossible = jnp.greater(nll, -_NEG / 2)
    nll = jnp.where(impossible, 0.0 if zero_infinity else np.inf, nll)
    if reduction == "none":
        return half_compute.narrowed(nll[0] if unbatched else nll, half)
    if reduction == "sum":
        return half_compute.narrowed(jnp.sum(nll), half)
    if reduction == "mean":
        return half_compute.narrowed(jnp.mean(jnp.true_divide(nll, np.maximum(tgt_len, 1).astype(
            np.dtype(lp.dtype.name)))), half)
    raise ValueError(f"{where}: reduction must be one of mean, sum, none, got {reduction!r}")


class CTCLoss(Module):
    """torch.nn.CTCLoss(blank=0, reduction='mean', zero_infinity=False)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)


__all__ = ["ctc_loss", "CTCLoss"]
