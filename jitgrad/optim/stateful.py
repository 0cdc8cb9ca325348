"""PyTorch-style optimizers for eager training:

    opt = jg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss.backward(); opt.step(); opt.zero_grad()

Parameters are updated in place with the same rules as the functional optimizers."""
from __future__ import annotations

from ..eager.grad_mode import enable_grad, no_grad
from .. import numpy as jnp
from .param_checks import group_params, param_list
from .rules import RULES


class Optimizer:
    """Base class: param_groups (dicts of 'params' and hyperparameters, editable between steps,
    e.g. for learning-rate schedules) and per-parameter state."""
    rule_name = "sgd"

    def __init__(self, params, **hyper):
        self.rule = RULES[self.rule_name]
        self.defaults = self.rule.hyper(**hyper)
        who = type(self).__name__
        params = param_list(params, who)
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        self.param_groups, seen = [], set()
        for g in groups:
            if not isinstance(g, dict) or "params" not in g:
                raise TypeError(f"{who}: a parameter group is a dict with a 'params' entry, "
                                f"got {type(g).__name__}")
            extra = {k: v for k, v in g.items() if k != "params"}
            self.param_groups.append({"params": group_params(g["params"], who, seen),
                                      **self.rule.hyper(**{**hyper, **extra})})
        self.state = {}           # parameter -> {"step": int, "slots": [tensors]}

    def zero_grad(self, set_to_none: bool = True):
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None if set_to_none or p.grad is None else jnp.zeros_like(p.grad)

    def step(self, closure=None):
        """One update of every parameter that has a .grad; returns closure() if given."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                n_slots = self.rule.slots(group)
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    st = self.state.get(p)
                    if st is None:
                        st = self.state[p] = {"step": 0,
                                              "slots": [jnp.zeros_like(p) for _ in range(n_slots)]}
                    st["step"] += 1
                    new_p, *st["slots"] = self.rule.fn(group, st["step"], p.detach(), p.grad,
                                                      *st["slots"])
                    p.copy_(new_p)
        return loss

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in g.items() if k not in ("params", "decoupled")]
        return "\n".join(lines + [")"])


class SGD(Optimizer):
    rule_name = "sgd"

    def __init__(self, params, lr=1e-3, momentum=0.0, nesterov=False, weight_decay=0.0):
        super().__init__(params, lr=lr, momentum=momentum, nesterov=nesterov,
                         weight_decay=weight_decay)


class Adam(Optimizer):
    rule_name = "adam"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(params, lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay)


class AdamW(Optimizer):
    rule_name = "adamw"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay)
