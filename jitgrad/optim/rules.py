"""Per-tensor update rules, shared by the functional and the PyTorch-style optimizers.

A rule is `rule.fn(h, s, p, g, slots) -> (new_p, new_slots)`: h holds the hyperparameters,
slots maps the names of the per-parameter state tensors (torch's state keys: momentum_buffer,
exp_avg, ...) to their values, and s = rule.scalars(h, st) are the values that change from step
to step (the learning rate, Adam's bias corrections), computed on the host from the parameter's
state st: its step (counting updates from 1) and its host numbers (NAdam's mu_product, ASGD's
eta and mu, advanced by rule.advance after the update). The eager optimizers pass s as Python
floats (per-tensor path) or as runtime arguments of the fused step (fused_step.py), so a new
step or learning rate never recompiles; the functional ones compute it from a traced step. The
math follows torch.optim's single-tensor code, so every form gives PyTorch's updates.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import rules_adam as adam
from . import rules_muon as muon
from . import rules_sgd as sgd


def _number(x, lo=0.0, hi=math.inf, closed_hi=True):
    return isinstance(x, (int, float)) and math.isfinite(x) and lo <= x and (
        x <= hi if closed_hi else x < hi)


def _pair(ok):
    return lambda v: isinstance(v, (tuple, list)) and len(v) == 2 and all(map(ok, v))


# hyperparameter -> (valid?, what it must be); torch's ValueErrors for its invalid values
CHECKS = {
    "lr": (lambda v: callable(v) or _number(v), "a number >= 0 or a schedule step -> lr"),
    "eps": (_number, "a number >= 0"),
    "weight_decay": (_number, "a number >= 0"),
    "momentum": (_number, "a number >= 0"),
    "dampening": (_number, "a number >= 0"),
    "alpha": (_number, "a number >= 0"),
    "lr_decay": (_number, "a number >= 0"),
    "initial_accumulator_value": (_number, "a number >= 0"),
    "momentum_decay": (_number, "a number >= 0"),
    "lambd": (_number, "a number >= 0"),
    "rho": (lambda v: _number(v, 0.0, 1.0), "a number in [0, 1]"),
    "betas": (_pair(lambda b: _number(b, 0.0, 1.0, closed_hi=False)), "two numbers in [0, 1)"),
    "etas": (lambda v: _pair(_number)(v) and 0.0 < v[0] < 1.0 < v[1],
             "(etaminus, etaplus) with 0 < etaminus < 1 < etaplus"),
    "step_sizes": (lambda v: _pair(_number)(v) and v[0] <= v[1], "(min, max) with min <= max"),
    "ns_coefficients": (lambda v: isinstance(v, (tuple, list)) and len(v) == 3,
                        "a tuple of exactly 3 values"),
    "ns_steps": (lambda v: isinstance(v, int) and 0 <= v < 100,
                 "an int below 100 (for computational efficiency)"),
    "adjust_lr_fn": (lambda v: v in muon.LR_ADJUST, "None, 'original' or 'match_rms_adamw'"),
}


def _check_sgd(h):
    if h["nesterov"] and (h["momentum"] <= 0 or h["dampening"] != 0):
        raise ValueError("SGD: nesterov momentum requires a momentum > 0 and zero dampening, "
                         f"got momentum={h['momentum']}, dampening={h['dampening']}")


@dataclass(frozen=True)
class Rule:
    name: str
    fn: object
    scalars: object        # (h, st) -> the per-step values fn takes as `s`
    defaults: dict         # the hyperparameters fn reads, with torch's defaults
    slots: object          # h -> {state name: initial fill value}, in torch's order
    host: dict = field(default_factory=dict)    # host number -> h -> its initial value
    advance: object = None                      # (h, st) -> the host numbers after a step
    counts_steps: bool = True                   # torch keeps 'step' in the state
    check: object = None
    # hyperparameters that lr schedulers cycle (CyclicLR, OneCycleLR: momentum, Adam's beta1):
    # fn takes them (and values derived from them) through scalars, so the fused step leaves
    # them out of its compiled code and a new value does not recompile
    runtime: tuple = ()

    def hyper(self, **given) -> dict:
        unknown = set(given) - set(self.defaults)
        if unknown:
            raise TypeError(f"{self.name}: unexpected argument(s) {sorted(unknown)}; expected "
                            f"{', '.join(self.defaults)}")
        h = {**self.defaults, **given}
        for k, v in h.items():
            ok, what = CHECKS.get(k, (None, None))
            if ok is not None and not ok(v):
                raise ValueError(f"{self.name}: {k} must be {what}, got {v!r}")
        if self.check is not None:
            self.check(h)
        return h

    def initial_host(self, h) -> dict:
        return {k: sgd.float32(init(h)) for k, init in self.host.items()}

    def after(self, h, now) -> dict:
        """The state's new step and host numbers once the update with `now` is done."""
        new = self.advance(h, now) if self.advance is not None else {}
        return {"step": now["step"], **{k: sgd.float32(v) for k, v in new.items()}}


_FLAGS = {"maximize": False}
_ADAM = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, **_FLAGS}
_MOMENTS = lambda h: {"exp_avg": 0.0, "exp_avg_sq": 0.0}   # noqa: E731
RULES = {
    "sgd": Rule("SGD", sgd.sgd_rule, sgd.sgd_scalars,
                {"lr": 1e-3, "momentum": 0.0, "dampening": 0.0, "weight_decay": 0.0,
                 "nesterov": False, **_FLAGS},
                lambda h: {"momentum_buffer": 0.0} if h["momentum"] else {},
                counts_steps=False, check=_check_sgd, runtime=("momentum",)),
    "adam": Rule("Adam", adam.adam_rule, adam.adam_scalars,
                 {**_ADAM, "weight_decay": 0.0, "amsgrad": False,
                  "decoupled_weight_decay": False},
                 lambda h: {**_MOMENTS(h), **({"max_exp_avg_sq": 0.0} if h["amsgrad"] else {})},
                 runtime=("betas",)),
    "adamw": Rule("AdamW", adam.adam_rule, adam.adam_scalars,
                  {**_ADAM, "weight_decay": 1e-2, "amsgrad": False,
                   "decoupled_weight_decay": True},
                  lambda h: {**_MOMENTS(h), **({"max_exp_avg_sq": 0.0} if h["amsgrad"] else {})},
                  runtime=("betas",)),
    "adamax": Rule("Adamax", adam.adamax_rule, adam.adamax_scalars,
                   {**_ADAM, "lr": 2e-3, "weight_decay": 0.0},
                   lambda h: {"exp_avg": 0.0, "exp_inf": 0.0}, runtime=("betas",)),
    "nadam": Rule("NAdam", adam.nadam_rule, adam.nadam_scalars,
                  {**_ADAM, "lr": 2e-3, "weight_decay": 0.0, "momentum_decay": 4e-3,
                   "decoupled_weight_decay": False},
                  _MOMENTS, host={"mu_product": lambda h: 1.0}, advance=adam.nadam_next,
                  runtime=("betas",)),
    "radam": Rule("RAdam", adam.radam_rule, adam.radam_scalars,
                  {**_ADAM, "weight_decay": 0.0, "decoupled_weight_decay": False}, _MOMENTS,
                  runtime=("betas",)),
    "rmsprop": Rule("RMSprop", sgd.rmsprop_rule, sgd.rmsprop_scalars,
                    {"lr": 1e-2, "alpha": 0.99, "eps": 1e-8, "weight_decay": 0.0,
                     "momentum": 0.0, "centered": False, **_FLAGS},
                    lambda h: {"square_avg": 0.0,
                               **({"momentum_buffer": 0.0} if h["momentum"] > 0 else {}),
                               **({"grad_avg": 0.0} if h["centered"] else {})},
                    runtime=("momentum",)),
    "adagrad": Rule("Adagrad", sgd.adagrad_rule, sgd.adagrad_scalars,
                    {"lr": 1e-2, "lr_decay": 0.0, "weight_decay": 0.0,
                     "initial_accumulator_value": 0.0, "eps": 1e-10, **_FLAGS},
                    lambda h: {"sum": h["initial_accumulator_value"]}),
    "adadelta": Rule("Adadelta", sgd.adadelta_rule, lambda h, st: (sgd.lr_at(h, st["step"]),),
                     {"lr": 1.0, "rho": 0.9, "eps": 1e-6, "weight_decay": 0.0, **_FLAGS},
                     lambda h: {"square_avg": 0.0, "acc_delta": 0.0}),
    "asgd": Rule("ASGD", sgd.asgd_rule, sgd.asgd_scalars,
                 {"lr": 1e-2, "lambd": 1e-4, "alpha": 0.75, "t0": 1e6, "weight_decay": 0.0,
                  **_FLAGS},
                 lambda h: {"ax": 0.0},
                 host={"eta": lambda h: sgd.lr_at(h, 1), "mu": lambda h: 1.0},
                 advance=sgd.asgd_next),
    "muon": Rule("Muon", muon.muon_rule, muon.muon_scalars,
                 {"lr": 1e-3, "weight_decay": 0.1, "momentum": 0.95, "nesterov": True,
                  "ns_coefficients": (3.4445, -4.775, 2.0315), "eps": 1e-7, "ns_steps": 5,
                  "adjust_lr_fn": None},
                 lambda h: {"momentum_buffer": 0.0}, counts_steps=False, runtime=("momentum",)),
    "rprop": Rule("Rprop", sgd.rprop_rule, lambda h, st: (),
                  {"lr": 1e-2, "etas": (0.5, 1.2), "step_sizes": (1e-6, 50.0), **_FLAGS},
                  lambda h: {"prev": 0.0, "step_size": sgd.lr_at(h, 1)}),
}
