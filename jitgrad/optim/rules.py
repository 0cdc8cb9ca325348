"""Per-tensor update rules, shared by the functional and the PyTorch-style optimizers.

A rule is `rule(h, step, p, g, *slots) -> (new_p, *new_slots)`: h holds the hyperparameters,
step counts updates from 1, slots are per-parameter state tensors (momentum, moments). The math
follows torch.optim exactly, so both forms give PyTorch's updates.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .. import numpy as jnp


def _lr(h, step):
    lr = h["lr"]
    return lr(step) if callable(lr) else lr


def sgd_rule(h, step, p, g, *slots):
    if h["weight_decay"]:
        g = g + h["weight_decay"] * p
    if h["momentum"]:
        (buf,) = slots
        buf = h["momentum"] * buf + g
        g = g + h["momentum"] * buf if h["nesterov"] else buf
        return p - _lr(h, step) * g, buf
    return (p - _lr(h, step) * g,)


def adam_rule(h, step, p, g, m, v):
    """Adam; with decoupled=True (AdamW) weight decay shrinks p instead of adding to g."""
    lr = _lr(h, step)
    (b1, b2), wd = h["betas"], h["weight_decay"]
    if wd and h["decoupled"]:
        p = p * (1 - lr * wd)
    elif wd:
        g = g + wd * p
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * (g * g)
    m_hat = m / (1 - b1 ** step)
    v_hat = v / (1 - b2 ** step)
    return p - lr * m_hat / (jnp.sqrt(v_hat) + h["eps"]), m, v


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
    "sgd": Rule("SGD", sgd_rule,
                {"lr": 1e-3, "momentum": 0.0, "nesterov": False, "weight_decay": 0.0},
                lambda h: 1 if h["momentum"] else 0, _check_sgd),
    "adam": Rule("Adam", adam_rule, {**_ADAM, "weight_decay": 0.0, "decoupled": False},
                 lambda h: 2, _check_adam),
    "adamw": Rule("AdamW", adam_rule, {**_ADAM, "weight_decay": 1e-2, "decoupled": True},
                  lambda h: 2, _check_adam),
}
