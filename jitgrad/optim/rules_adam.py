"""The update rules of torch.optim's Adam family, one function each (see rules.py for the form):
Adam/AdamW (amsgrad, decoupled weight decay), Adamax, NAdam and RAdam, with torch's
single-tensor math; the bias corrections are per-step scalars computed on the host."""
from __future__ import annotations

from .. import numpy as jnp
from .rules_sgd import float32, grad_of, lr_at


def _decayed(h, p, g, shrink):
    """(p, g) after weight decay: decoupled (AdamW) shrinks p, coupled (L2) adds to g."""
    if h["weight_decay"] and h["decoupled_weight_decay"]:
        return p * shrink, grad_of(h, p, g, coupled_decay=False)
    return p, grad_of(h, p, g)


def betas(h):
    """(b1, 1 - b1, b2, 1 - b2) computed on the host, as torch's Python floats: per-step
    scalars, since CyclicLR and OneCycleLR change beta1 every step."""
    b1, b2 = h["betas"]
    return b1, 1 - b1, b2, 1 - b2


def _moments(b, g, slots):
    b1, c1, b2, c2 = b
    return b1 * slots["exp_avg"] + c1 * g, b2 * slots["exp_avg_sq"] + c2 * (g * g)


def adam_scalars(h, st):
    """(step size lr / (1 - b1**step), sqrt(1 - b2**step), the decoupled shrink factor
    1 - lr * weight_decay, betas(h)): the bias corrections as torch.optim.Adam applies them."""
    lr, step = lr_at(h, st["step"]), st["step"]
    b1, b2 = h["betas"]
    return (lr / (1 - b1 ** step), (1 - b2 ** step) ** 0.5, 1 - lr * h["weight_decay"],
            *betas(h))


def adam_rule(h, s, p, g, slots):
    step_size, bias2_sqrt, shrink, *b = s
    p, g = _decayed(h, p, g, shrink)
    m, v = _moments(b, g, slots)
    new = {"exp_avg": m, "exp_avg_sq": v}
    if h.get("amsgrad"):
        new["max_exp_avg_sq"] = v = jnp.maximum(slots["max_exp_avg_sq"], v)
    denom = jnp.sqrt(v) / bias2_sqrt + h["eps"]      # torch: two divisions per element
    return p - step_size * (m / denom), new


def adamax_scalars(h, st):
    """(lr / (1 - b1**step), betas(h))"""
    return (lr_at(h, st["step"]) / (1 - h["betas"][0] ** st["step"]), *betas(h))


def adamax_rule(h, s, p, g, slots):
    clr, b1, c1, b2, _ = s
    g = grad_of(h, p, g)
    m = b1 * slots["exp_avg"] + c1 * g
    u = jnp.maximum(b2 * slots["exp_inf"], jnp.abs(g) + h["eps"])
    return p - clr * (m / u), {"exp_avg": m, "exp_inf": u}


def _nadam_mu(h, step):
    return h["betas"][0] * (1.0 - 0.5 * 0.96 ** (step * h["momentum_decay"]))


def _mu_product(h, st):
    """mu_product * mu in float32, as torch's float32 tensor `mu_product *= mu`."""
    return float32(st["mu_product"] * float32(_nadam_mu(h, st["step"])))


def nadam_next(h, st):
    return {"mu_product": _mu_product(h, st)}


def nadam_scalars(h, st):
    """(1 - b2**step, the gradient's and the momentum's coefficients, the shrink factor,
    betas(h))."""
    lr, step = lr_at(h, st["step"]), st["step"]
    mu, mu_next = _nadam_mu(h, step), _nadam_mu(h, step + 1)
    product = _mu_product(h, st)
    return (1 - h["betas"][1] ** step, -lr * (1.0 - mu) / (1.0 - product),
            -lr * mu_next / (1.0 - product * mu_next), 1 - lr * h["weight_decay"], *betas(h))


def nadam_rule(h, s, p, g, slots):
    bias2, c_grad, c_avg, shrink, *b = s
    p, g = _decayed(h, p, g, shrink)
    m, v = _moments(b, g, slots)
    denom = jnp.sqrt(v / bias2) + h["eps"]
    return p + c_grad * (g / denom) + c_avg * (m / denom), {"exp_avg": m, "exp_avg_sq": v}


def radam_scalars(h, st):
    """(lr / (1 - b1**step), sqrt(1 - b2**step) * rect, 1.0 when the variance is tractable
    (rho_t > 5) else 0.0, the shrink factor, betas(h))."""
    lr, step = lr_at(h, st["step"]), st["step"]
    b1, b2 = h["betas"]
    bias2 = 1 - b2 ** step
    rho_inf = 2 / (1 - b2) - 1
    rho_t = rho_inf - 2 * step * (b2 ** step) / bias2
    if rho_t <= 5.0:
        return lr / (1 - b1 ** step), 0.0, 0.0, 1 - lr * h["weight_decay"], *betas(h)
    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
    return (lr / (1 - b1 ** step), bias2 ** 0.5 * rect, 1.0, 1 - lr * h["weight_decay"],
            *betas(h))


def radam_rule(h, s, p, g, slots):
    step_size, adaptive, tractable, shrink, *b = s
    p, g = _decayed(h, p, g, shrink)
    m, v = _moments(b, g, slots)
    scale = jnp.where(tractable > 0, adaptive / (jnp.sqrt(v) + h["eps"]), 1.0)
    return p - step_size * m * scale, {"exp_avg": m, "exp_avg_sq": v}
