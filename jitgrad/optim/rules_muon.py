"""torch.optim.Muon's update rule (see rules.py for the form): momentum, then the update
orthogonalized by Newton-Schulz iterations in bfloat16, scaled for the matrix's shape."""
from __future__ import annotations

import math

from .. import numpy as jnp

# adjust_lr_fn -> the lr scale for a (rows, cols) matrix
LR_ADJUST = {
    None: lambda rows, cols: math.sqrt(max(1, rows / cols)),
    "original": lambda rows, cols: math.sqrt(max(1, rows / cols)),
    "match_rms_adamw": lambda rows, cols: 0.2 * math.sqrt(max(rows, cols)),
}


def _bf16(x):
    """x rounded to bfloat16, kept in float32: where torch stores a bfloat16 result."""
    return x.astype(jnp.bfloat16).astype(jnp.float32)


def newton_schulz(x, coefficients, steps, eps):
    """The nearest semi-orthogonal matrix to x, approximately, as torch's
    _zeropower_via_newtonschulz computes it: bfloat16 tensors (each product and addmm
    accumulated in float32 and rounded once), the wide orientation."""
    a, b, c = coefficients
    tall = x.shape[0] > x.shape[1]
    y = _bf16(x.astype(jnp.float32))
    y = y.T if tall else y
    y = _bf16(y / _bf16(jnp.maximum(jnp.linalg.norm(y), eps)))
    for _ in range(steps):
        gram = _bf16(y @ y.T)
        y = _bf16(a * y + _bf16(b * gram + c * (gram @ gram)) @ y)
    return y.T if tall else y


def muon_scalars(h, st):
    """(lr, 1 - lr * weight_decay, momentum, 1 - momentum): momentum a per-step scalar, as
    CyclicLR and OneCycleLR change it every step."""
    lr = h["lr"](st["step"]) if callable(h["lr"]) else h["lr"]
    return lr, 1 - lr * h["weight_decay"], h["momentum"], 1 - h["momentum"]


def muon_rule(h, s, p, g, slots):
    lr, shrink, mom, rest = s
    buf = slots["momentum_buffer"]
    buf = buf + rest * (g - buf)
    update = g + mom * (buf - g) if h["nesterov"] else buf
    ortho = newton_schulz(update, h["ns_coefficients"], h["ns_steps"], h["eps"])
    scale = LR_ADJUST[h["adjust_lr_fn"]](*p.shape[:2])
    return p * shrink - (lr * scale) * ortho.astype(p.dtype), {"momentum_buffer": buf}
