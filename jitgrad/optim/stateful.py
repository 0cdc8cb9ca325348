"""The PyTorch-style optimizers' step over a rule of rules.py:

    opt = jg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss.backward(); opt.step(); opt.zero_grad()

Parameters are updated in place with the same rules as the functional optimizers: by default
(foreach=None) in one compiled step per parameter group (fused_step.py), as torch's foreach
option; foreach=False updates each parameter with eager ops, foreach=True (or fused=True)
requires the fused step for every parameter. Parameters the fused step does not take (on another
device, a dtype other than float32/float64, storage shared with another parameter) use the
per-tensor path. The state of a parameter is torch's: 'step' (a Python int here), the rule's
tensors by torch's names (exp_avg, momentum_buffer, ...) and its host numbers (mu_product, eta)."""
from __future__ import annotations

import numpy as np

from ..eager.grad_mode import enable_grad, no_grad
from ..eager.tensor import tensor
from .. import numpy as jnp
from .fused_step import FusedStep, fused_reason, shared_storage
from .optimizer import Optimizer
from .rules import RULES

_FLAG_VALUES = {"foreach": (None, True, False), "fused": (None, True, False),
                "capturable": (True, False), "differentiable": (False,)}


class RuleOptimizer(Optimizer):
    """An Optimizer whose step applies rules.RULES[rule_name] to every parameter with a grad."""
    rule_name = "sgd"

    def __init__(self, params, defaults: dict):
        self.rule = RULES[self.rule_name]
        self.fused_step = FusedStep(self.rule)     # its compiled steps, counted in .compiles
        super().__init__(params, defaults)

    def checked_group(self, group: dict) -> dict:
        who = type(self).__name__
        for k, allowed in _FLAG_VALUES.items():
            if group.get(k, allowed[0]) not in allowed:
                if k == "differentiable":
                    raise NotImplementedError(f"{who}: differentiable=True (gradients through "
                                              "the optimizer step) is not supported")
                raise ValueError(f"{who}: {k} must be one of {allowed}, got {group[k]!r}")
        hyper = {k: tuple(v) if isinstance(v, list) else v
                 for k, v in group.items() if k in self.rule.defaults}
        return {**group, **self.rule.hyper(**hyper)}

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
                    self.init_state(p, group)
                fused, single = self._split(group, params)
                for p in single:
                    self._step_one(group, p)
                if fused:
                    self.fused_step(group, fused, self.state)
        return loss

    def init_state(self, p, group) -> None:
        """p's state as torch starts it, and any slot a group edit has added since."""
        st = self.state[p]
        if "step" not in st:
            st["step"] = 0
            st.update(self.rule.initial_host(group))
        for name, fill in self.rule.slots(group).items():
            if st.get(name) is None:
                st[name] = jnp.full_like(p.detach(), fill)

    def _split(self, group, params):
        """(params for the fused step, params for the per-tensor path), by foreach/fused."""
        required = bool(group.get("foreach") or group.get("fused"))
        if group.get("foreach") is False or not params:
            return [], params
        names = list(self.rule.slots(group))
        why = [fused_reason(p, p.grad, [self.state[p][n] for n in names]) for p in params]
        shared = shared_storage([p for p, w in zip(params, why) if w is None])
        fused, single = [], []
        for p, w in zip(params, why):
            if w is None and id(p) in shared:
                w = "its storage overlaps another parameter's"
            if w is not None and required:
                raise ValueError(f"{type(self).__name__}(foreach=True): a parameter cannot take "
                                 f"the fused step: {w}; use foreach=None (the per-tensor path "
                                 "for such parameters) or foreach=False")
            (fused if w is None else single).append(p)
        return fused, single

    def _step_one(self, group, p):
        """The per-tensor path: the rule as eager ops, written back with copy_."""
        st = self.state[p]
        now = {**st, "step": st["step"] + 1}
        names = list(self.rule.slots(group))
        new_p, slots = self.rule.fn(group, self.rule.scalars(group, now), p.detach(), p.grad,
                                    {n: st[n] for n in names})
        p.copy_(new_p)
        st.update(slots)
        st.update(self.rule.after(group, now))

    def packed_state(self, st: dict) -> dict:
        """torch's layout: 'step' and the host numbers as float32 scalar tensors."""
        out = {k: v for k, v in st.items() if k != "step" or self.rule.counts_steps}
        for k in ("step", *self.rule.host):
            if k in out:
                out[k] = tensor(np.float32(out[k]))
        return out

    def unpacked_state(self, p, st: dict) -> dict:
        out = super().unpacked_state(p, st)
        for k in self.rule.host:
            if k in out:
                out[k] = float(np.asarray(out[k]))
        if "step" in out:
            out["step"] = int(round(float(np.asarray(out["step"]))))
        else:       # torch's SGD keeps no step: its buffer exists after the first one
            out["step"] = int(any(out.get(k) is not None for k in out))
        return out
