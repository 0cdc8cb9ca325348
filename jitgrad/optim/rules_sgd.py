"""The update rules of torch.optim's SGD family, one function each (see rules.py for the form):
SGD, RMSprop, Adagrad, Adadelta, ASGD and Rprop, with torch's single-tensor math."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp


def float32(x) -> float:
    """torch keeps the host numbers (NAdam's mu_product, ASGD's eta and mu) as float32 scalar
    tensors: round as it does."""
    return float(np.float32(x))


def lr_at(h, step):
    """The group's learning rate: a number, or a schedule step -> lr (jitgrad's extension)."""
    lr = h["lr"]
    return lr(step) if callable(lr) else lr


def grad_of(h, p, g, coupled_decay=True):
    """The gradient the rule follows: negated for maximize=True, plus L2 weight decay."""
    if h.get("maximize"):
        g = -g
    if coupled_decay and h.get("weight_decay"):
        g = g + h["weight_decay"] * p
    return g


def sgd_scalars(h, st):
    """(lr, the weight of the gradient in the momentum buffer, momentum): torch starts the
    buffer as the first gradient itself, then adds (1 - dampening) * g. Momentum is a per-step
    scalar as CyclicLR and OneCycleLR change it every step; whether there is a buffer is not."""
    first = 1.0 if not h.get("dampening") else (1.0 if st["step"] == 1 else 1 - h["dampening"])
    return lr_at(h, st["step"]), first, h["momentum"]


def sgd_rule(h, s, p, g, slots):
    lr, damp, momentum = s
    g = grad_of(h, p, g)
    if "momentum_buffer" not in slots:          # momentum 0
        return p - lr * g, {}
    buf = momentum * slots["momentum_buffer"] + damp * g
    g = g + momentum * buf if h["nesterov"] else buf
    return p - lr * g, {"momentum_buffer": buf}


def rmsprop_scalars(h, st):
    """(lr, momentum): momentum a per-step scalar, as for SGD."""
    return lr_at(h, st["step"]), h["momentum"]


def rmsprop_rule(h, s, p, g, slots):
    (lr, momentum), alpha, new = s, h["alpha"], {}
    g = grad_of(h, p, g)
    new["square_avg"] = sq = alpha * slots["square_avg"] + (1 - alpha) * (g * g)
    if h["centered"]:
        ga = slots["grad_avg"]
        new["grad_avg"] = ga = ga + (1 - alpha) * (g - ga)
        avg = jnp.sqrt(sq - ga * ga) + h["eps"]
    else:
        avg = jnp.sqrt(sq) + h["eps"]
    if "momentum_buffer" in slots:
        new["momentum_buffer"] = buf = momentum * slots["momentum_buffer"] + g / avg
        return p - lr * buf, new
    return p - lr * (g / avg), new


def adagrad_scalars(h, st):
    """(lr / (1 + (step - 1) * lr_decay),)"""
    return (lr_at(h, st["step"]) / (1 + (st["step"] - 1) * h["lr_decay"]),)


def adagrad_rule(h, s, p, g, slots):
    (clr,) = s
    g = grad_of(h, p, g)
    total = slots["sum"] + g * g
    return p - clr * (g / (jnp.sqrt(total) + h["eps"])), {"sum": total}


def adadelta_rule(h, s, p, g, slots):
    (lr,), rho, eps = s, h["rho"], h["eps"]
    g = grad_of(h, p, g)
    sq = rho * slots["square_avg"] + (1 - rho) * (g * g)
    delta = jnp.sqrt(slots["acc_delta"] + eps) / jnp.sqrt(sq + eps) * g
    acc = rho * slots["acc_delta"] + (1 - rho) * (delta * delta)
    return p - lr * delta, {"square_avg": sq, "acc_delta": acc}


def asgd_scalars(h, st):
    """(eta, mu, 1 - lambd * eta): eta and mu as the previous step left them, as torch."""
    return st["eta"], st["mu"], 1 - h["lambd"] * st["eta"]


def asgd_next(h, st):
    lr, step = lr_at(h, st["step"]), st["step"]
    return {"eta": lr / ((1 + h["lambd"] * lr * step) ** h["alpha"]),
            "mu": 1 / max(1, step - h["t0"])}


def asgd_rule(h, s, p, g, slots):
    eta, mu, shrink = s
    g = grad_of(h, p, g)
    p = p * shrink - eta * g
    ax = slots["ax"]
    return p, {"ax": ax + (p - ax) * mu}


def rprop_rule(h, s, p, g, slots):
    (minus, plus), (lo, hi) = h["etas"], h["step_sizes"]
    g = grad_of(h, p, g)          # Rprop has no weight decay
    sign = jnp.sign(g * slots["prev"])
    one = jnp.ones_like(g)       # etas in g's dtype (a bare Python float: float32)
    factor = jnp.where(sign > 0, plus * one, jnp.where(sign < 0, minus * one, one))
    size = jnp.clip(slots["step_size"] * factor, lo, hi)
    g = jnp.where(factor == minus, 0.0, g)
    return p - jnp.sign(g) * size, {"prev": g, "step_size": size}
