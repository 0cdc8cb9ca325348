"""Per-tensor update rules, shared by the functional and the PyTorch-style optimizers.

A rule is `rule.fn(h, s, p, g, *slots) -> (new_p, *new_slots)`: h holds the hyperparameters,
slots are per-parameter state tensors (momentum, moments) and s = rule.scalars(h, step) the
values that change from step to step (the learning rate, Adam's bias corrections), with step
counting updates from 1. The eager optimizers compute s on the host, as Python floats for the
per-tensor path or as runtime arguments of the fused step (fused_step.py), so a new step or
learning rate never recompiles; the functional ones compute it from a traced step. The math
follows torch.optim exactly, so every form gives PyTorch's updates.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .. import numpy as jnp


def _lr(h, step):
    lr = h["lr"]
    return lr(step) if callable(lr) else lr


def sgd_scalars(h, step):
    return (_lr(h, step),)


def sgd_rule(h, s, p, g, *slots):
    (lr,) = s
    if h["weight_decay"]:
        g = g + h["weight_decay"] * p
    if h["momentum"]:
        (buf,) = slots
        buf = h["momentum"] * buf + g
        g = g + h["momentum"] * buf if h["nesterov"] else buf
        return p - lr * g, buf
    return (p - lr * g,)


def adam_scalars(h, step):
    """(step size lr / (1 - b1**step), sqrt(1 - b2**step), AdamW's shrink factor
    1 - lr * weight_decay): the bias corrections as torch.optim.Adam applies them."""
    lr = _lr(h, step)
    b1, b2 = h["betas"]
    return lr / (1 - b1 ** step), (1 - b2 ** step) ** 0.5, 1 - lr * h["weight_decay"]


def adam_rule(h, s, p, g, m, v):
    """Adam; with decoupled=True (AdamW) weight decay shrinks p instead of adding to g."""
    step_size, bias2_sqrt, shrink = s
    (b1, b2), wd = h["betas"], h["weight_decay"]
    if wd and h["decoupled"]:
        p = p * shrink
    elif wd:
        g = g + wd * p
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * (g * g)
    denom = jnp.sqrt(v) / bias2_sqrt + h["eps"]      # torch: two divisions per element
    return p - step_size * (m / denom), m, v


def _check_sgd(h):
    if h["nesterov"] and not h["momentum"]:
        raise ValueError("SGD: nesterov=True needs momentum > 0")


def _check_adam(h):
    if len(h["betas"]) != 2 or not all(0.0 <= b < 1.0 for b in h["betas"]):
        raise ValueError(f"Adam: betas must be two numbers in [0, 1), got {h['betas']}")
    if h["eps"] < 0:
        raise ValueError(f"Adam: eps must be >= 0, got {h['eps']}")


@dataclass(frozen=True)
class Rule:
    name: str
    fn: object
    scalars: object        # (h, step) -> the per-step values fn takes as `s`
    defaults: dict
    slots: object          # h -> number of state tensors per parameter
    check: object

    def hyper(self, **given) -> dict:
        unknown = set(given) - set(self.defaults)
        if unknown:
            raise TypeError(f"{self.name}: unexpected argument(s) {sorted(unknown)}; expected "
                            f"{', '.join(self.defaults)}")
        h = {**self.defaults, **given}
        lr = h["lr"]
        number = isinstance(lr, (int, float)) and math.isfinite(lr) and lr >= 0
        if not (callable(lr) or number):
            raise ValueError(f"{self.name}: lr must be a number >= 0 or a schedule step -> lr, "
                             f"got {lr!r}")
        for k in ("momentum", "weight_decay"):
            if k in h and h[k] < 0:
                raise ValueError(f"{self.name}: {k} must be >= 0, got {h[k]}")
        self.check(h)
        return h


_ADAM = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8}
RULES = {
    "sgd": Rule("SGD", sgd_rule, sgd_scalars,
                {"lr": 1e-3, "momentum": 0.0, "nesterov": False, "weight_decay": 0.0},
                lambda h: 1 if h["momentum"] else 0, _check_sgd),
    "adam": Rule("Adam", adam_rule, adam_scalars,
                 {**_ADAM, "weight_decay": 0.0, "decoupled": False}, lambda h: 2, _check_adam),
    "adamw": Rule("AdamW", adam_rule, adam_scalars,
                  {**_ADAM, "weight_decay": 1e-2, "decoupled": True}, lambda h: 2, _check_adam),
}
