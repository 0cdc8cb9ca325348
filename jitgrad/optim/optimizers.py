"""torch.optim's optimizer classes, with torch's signatures and defaults; each applies one rule
of rules.py (stateful.py does the stepping). foreach/fused choose the fused multi-tensor step
(fused_step.py) as torch's options do; capturable is accepted (steps keep their count on the
host, nothing to capture); differentiable=True is not supported."""
from __future__ import annotations

from .stateful import RuleOptimizer


def _defaults(local: dict) -> dict:
    """A constructor's arguments, as torch's `defaults` dict."""
    return {k: tuple(v) if isinstance(v, list) else v
            for k, v in local.items() if k not in ("self", "params", "__class__")}


class SGD(RuleOptimizer):
    """torch.optim.SGD: momentum, dampening, Nesterov, L2 weight decay, maximize."""
    rule_name = "sgd"

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        super().__init__(params, _defaults(locals()))


class Adam(RuleOptimizer):
    """torch.optim.Adam (amsgrad; decoupled_weight_decay=True is AdamW)."""
    rule_name = "adam"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        super().__init__(params, _defaults(locals()))


class AdamW(RuleOptimizer):
    """torch.optim.AdamW: Adam with decoupled weight decay (p *= 1 - lr * weight_decay)."""
    rule_name = "adamw"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, {**_defaults(locals()), "decoupled_weight_decay": True})


class RMSprop(RuleOptimizer):
    """torch.optim.RMSprop (alpha, momentum, centered)."""
    rule_name = "rmsprop"

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        super().__init__(params, _defaults(locals()))


class Adagrad(RuleOptimizer):
    """torch.optim.Adagrad (lr_decay, initial_accumulator_value); like torch, the state of
    every parameter is made by the constructor."""
    rule_name = "adagrad"

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        super().__init__(params, _defaults(locals()))
        for group in self.param_groups:
            for p in group["params"]:
                self.init_state(p, group)


class Adadelta(RuleOptimizer):
    """torch.optim.Adadelta (lr=1.0 scales the delta, rho, eps)."""
    rule_name = "adadelta"

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        super().__init__(params, _defaults(locals()))


class Adamax(RuleOptimizer):
    """torch.optim.Adamax: Adam with the infinity norm."""
    rule_name = "adamax"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        super().__init__(params, _defaults(locals()))


class NAdam(RuleOptimizer):
    """torch.optim.NAdam: Adam with Nesterov momentum (momentum_decay, decoupled_weight_decay)."""
    rule_name = "nadam"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        super().__init__(params, _defaults(locals()))


class RAdam(RuleOptimizer):
    """torch.optim.RAdam: rectified Adam (decoupled_weight_decay)."""
    rule_name = "radam"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        super().__init__(params, _defaults(locals()))


class ASGD(RuleOptimizer):
    """torch.optim.ASGD: averaged SGD; state['ax'] holds the average."""
    rule_name = "asgd"

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        super().__init__(params, _defaults(locals()))


class Rprop(RuleOptimizer):
    """torch.optim.Rprop: resilient backpropagation (etas, step_sizes)."""
    rule_name = "rprop"

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        super().__init__(params, _defaults(locals()))


class Muon(RuleOptimizer):
    """torch.optim.Muon: momentum orthogonalized by Newton-Schulz iterations, for 2-D
    parameters (hidden layers' weights; use AdamW for the rest)."""
    rule_name = "muon"

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5,
                 adjust_lr_fn=None):
        super().__init__(params, _defaults(locals()))
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {tuple(p.shape)}")
