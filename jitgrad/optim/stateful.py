"""PyTorch-style optimizers for eager training:

    opt = jg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss.backward(); opt.step(); opt.zero_grad()

Parameters are updated in place with the same rules as the functional optimizers: by default
(foreach=None) in one compiled step per parameter group (fused_step.py), as torch's foreach
option; foreach=False updates each parameter with eager ops, foreach=True requires the fused
step for every parameter. Parameters the fused step does not take (on another device, a dtype
other than float32/float64, storage shared with another parameter) use the per-tensor path."""
from __future__ import annotations

from ..eager.grad_mode import enable_grad, no_grad
from .. import numpy as jnp
from .fused_step import FusedStep, fused_reason, shared_storage
from .param_checks import group_params, param_list
from .rules import RULES


class Optimizer:
    """Base class: param_groups (dicts of 'params' and hyperparameters, editable between steps,
    e.g. for learning-rate schedules) and per-parameter state."""
    rule_name = "sgd"

    def __init__(self, params, foreach=None, **hyper):
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
            extra = {k: v for k, v in g.items() if k not in ("params", "foreach")}
            self.param_groups.append({"params": group_params(g["params"], who, seen),
                                      **self.rule.hyper(**{**hyper, **extra}),
                                      "foreach": _foreach(g.get("foreach", foreach), who)})
        self.state = {}           # parameter -> {"step": int, "slots": [tensors]}
        self.fused_step = FusedStep(self.rule)     # its compiled steps, counted in .compiles

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
                params = [p for p in group["params"] if p.grad is not None]
                for p in params:
                    if p not in self.state:
                        self.state[p] = {"step": 0, "slots": [
                            jnp.zeros_like(p) for _ in range(self.rule.slots(group))]}
                fused, single = self._split(group, params)
                for p in single:
                    self._step_one(group, p)
                if fused:
                    self.fused_step(group, fused, self.state)
        return loss

    def _split(self, group, params):
        """(params for the fused step, params for the per-tensor path), by group["foreach"]."""
        if group["foreach"] is False or not params:
            return [], params
        why = [fused_reason(p, p.grad, self.state[p]["slots"]) for p in params]
        shared = shared_storage([p for p, w in zip(params, why) if w is None])
        fused, single = [], []
        for p, w in zip(params, why):
            if w is None and id(p) in shared:
                w = "its storage overlaps another parameter's"
            if w is not None and group["foreach"]:
                raise ValueError(f"{type(self).__name__}(foreach=True): a parameter cannot take "
                                 f"the fused step: {w}; use foreach=None (the per-tensor path "
                                 "for such parameters) or foreach=False")
            (fused if w is None else single).append(p)
        return fused, single

    def _step_one(self, group, p):
        """The per-tensor path: the rule as eager ops, written back with copy_."""
        st = self.state[p]
        st["step"] += 1
        s = self.rule.scalars(group, st["step"])
        new_p, *st["slots"] = self.rule.fn(group, s, p.detach(), p.grad, *st["slots"])
        p.copy_(new_p)

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in g.items() if k not in ("params", "decoupled")]
        return "\n".join(lines + [")"])


def _foreach(value, who):
    if value not in (None, True, False):
        raise ValueError(f"{who}: foreach must be None, True or False, got {value!r}")
    return value


class SGD(Optimizer):
    rule_name = "sgd"

    def __init__(self, params, lr=1e-3, momentum=0.0, nesterov=False, weight_decay=0.0,
                 foreach=None):
        super().__init__(params, foreach, lr=lr, momentum=momentum, nesterov=nesterov,
                         weight_decay=weight_decay)


class Adam(Optimizer):
    rule_name = "adam"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 foreach=None):
        super().__init__(params, foreach, lr=lr, betas=tuple(betas), eps=eps,
                         weight_decay=weight_decay)


class AdamW(Optimizer):
    rule_name = "adamw"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 foreach=None):
        super().__init__(params, foreach, lr=lr, betas=tuple(betas), eps=eps,
                         weight_decay=weight_decay)
