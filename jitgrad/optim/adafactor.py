"""torch.optim.Adafactor: Adam-like steps with a factored second moment (a row and a column
factor for matrices, a full one for vectors), relative step sizes and update clipping, with
torch's per-tensor math in eager ops (its state tensors are not shaped like the parameter)."""
from __future__ import annotations

import math

import numpy as np

from ..eager.grad_mode import enable_grad, no_grad
from ..eager.tensor import tensor
from .. import numpy as jnp
from .optimizer import Optimizer


def _lerp(a, b, w):
    """torch.lerp's formula: a + w * (b - a) for w < 0.5, else b - (b - a) * (1 - w)."""
    return a + w * (b - a) if w < 0.5 else b - (b - a) * (1 - w)


def _rms(x) -> float:
    return float(jnp.linalg.norm(x)) / math.sqrt(x.size)


class Adafactor(Optimizer):
    """torch.optim.Adafactor(params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
    weight_decay=0.0, *, foreach=None, maximize=False)."""

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        checks = [(0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}"),
                  (beta2_decay <= 0.0, f"beta2_decay should be <= 0 but is: {beta2_decay}"),
                  (eps[0] is None or eps[0] >= 0.0, f"epsilon1 should be >= 0 but is: {eps[0]}"),
                  (eps[1] >= 0.0, f"epsilon2 should be >= 0 but is: {eps[1]}"),
                  (d >= 1.0, f"Clipping threshold d should be >= 1 but is: {d}"),
                  (weight_decay >= 0.0, f"weight_decay should be >= 0 but is: {weight_decay}")]
        for ok, message in checks:
            if not ok:
                raise ValueError(f"Adafactor: {message}")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=tuple(eps), d=d,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize))

    def step(self, closure=None):
        """One update of every parameter that has a .grad; returns closure() if given."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(group, p)
        return loss

    def _init_state(self, p):
        st = self.state[p]
        if "step" not in st:
            st["step"] = 0
            if p.ndim > 1:
                st["row_var"] = jnp.zeros((*p.shape[:-1], 1), p.grad.dtype, device=p.device)
                st["col_var"] = jnp.zeros((*p.shape[:-2], 1, p.shape[-1]), p.grad.dtype,
                                          device=p.device)
            else:
                st["variance"] = jnp.zeros_like(p.grad)
        return st

    def _update(self, group, p):
        st = self._init_state(p)
        grad = -p.grad if group["maximize"] else p.grad
        eps1, eps2 = group["eps"]
        eps1 = float(np.finfo(np.dtype(p.dtype)).eps) if eps1 is None else eps1
        lr = group["lr"]
        st["step"] += 1
        t = float(st["step"])
        weight = t ** group["beta2_decay"]
        alpha = max(eps2, _rms(p.detach())) * min(lr, 1 / t ** 0.5)
        value = p.detach() * (1 - lr * group["weight_decay"]) if group["weight_decay"] else \
            p.detach()
        if grad.ndim > 1:
            square = grad * grad
            st["row_var"] = _lerp(st["row_var"], jnp.sum(square, axis=-1, keepdims=True)
                                  / grad.shape[-1], weight)
            st["col_var"] = _lerp(st["col_var"], jnp.sum(square, axis=-2, keepdims=True)
                                  / grad.shape[-2], weight)
            estimate = (st["row_var"] @ st["col_var"]) / jnp.maximum(
                jnp.mean(st["row_var"], axis=-2, keepdims=True), eps1)
        else:
            st["variance"] = estimate = _lerp(st["variance"], grad * grad, weight)
        update = grad / jnp.sqrt(jnp.maximum(estimate, eps1 * eps1))
        denom = max(1.0, _rms(update) / group["d"])
        p.copy_(value - (alpha / denom) * update)

    def packed_state(self, st: dict) -> dict:
        return {**st, "step": tensor(np.float32(st["step"]))}

    def unpacked_state(self, p, st: dict) -> dict:
        out = super().unpacked_state(p, st)
        out["step"] = int(round(float(np.asarray(out["step"]))))
        return out
