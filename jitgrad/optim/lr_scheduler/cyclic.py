"""The cyclic schedulers of torch.optim.lr_scheduler: CyclicLR (with momentum cycling),
CosineAnnealingWarmRestarts (SGDR) and OneCycleLR."""
from __future__ import annotations

import math
import types

from .base import LRScheduler, check_optimizer, group_values, per_group

# mode -> (scale_fn(gamma, x), what x counts)
_CYCLIC_MODES = {
    "triangular": (lambda gamma, x: 1.0, "cycle"),
    "triangular2": (lambda gamma, x: 1 / (2.0 ** (x - 1)), "cycle"),
    "exp_range": (lambda gamma, x: gamma ** x, "iterations"),
}


def _momentum_option(scheduler, optimizer, base_momentum, max_momentum, last_epoch) -> None:
    """cycle_momentum: the groups' momentum (or Adam's beta1) starts at max_momentum."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError(f"{type(scheduler).__name__}: optimizer must support momentum or beta1 "
                         "with `cycle_momentum` option enabled")
    scheduler.use_beta1 = "betas" in optimizer.defaults
    highs = per_group("max_momentum", optimizer, max_momentum)
    lows = per_group("base_momentum", optimizer, base_momentum)
    scheduler.max_momentums, scheduler.base_momentums = highs, lows
    if last_epoch == -1:
        for hi, lo, group in zip(highs, lows, optimizer.param_groups):
            _set_momentum(scheduler, group, hi)
            group["max_momentum"], group["base_momentum"] = hi, lo


def _set_momentum(scheduler, group, value) -> None:
    if scheduler.use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


class CyclicLR(LRScheduler):
    """Cyclical learning rate between base_lr and max_lr (Smith, 2017), stepped per batch."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        check_optimizer(optimizer, "CyclicLR")
        self.optimizer = optimizer
        base_lrs = per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size, self.step_ratio = up + down, up / (up + down)
        if mode not in _CYCLIC_MODES and scale_fn is None:
            raise ValueError(f"CyclicLR: mode {mode!r} is invalid (one of "
                             f"{', '.join(_CYCLIC_MODES)}) and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom, self.scale_mode = scale_fn, scale_mode
        if scale_fn is None:
            self.scale_mode = _CYCLIC_MODES[mode][1]
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _momentum_option(self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x) -> float:
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return _CYCLIC_MODES[self.mode][0](self.gamma, x)

    def get_lr(self):
        self.warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        factor = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [lo + (hi - lo) * factor * scale for lo, hi in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for lo, hi, group in zip(self.base_momentums, self.max_momentums,
                                     self.optimizer.param_groups):
                _set_momentum(self, group, hi - (hi - lo) * factor * scale)
        return lrs

    def state_dict(self) -> dict:
        out = super().state_dict()
        fn = out.pop("_scale_fn_custom")
        out["_scale_fn_custom"] = (dict(fn.__dict__) if fn is not None
                                   and not isinstance(fn, types.FunctionType) else None)
        return out

    def load_state_dict(self, state_dict: dict) -> None:
        state_dict = dict(state_dict)
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every T_i epochs, T_i = T_0 * T_mult**i (SGDR); step(epoch)
    may take fractional epochs."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):  # noqa: N803
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected positive integer T_0, but "
                             f"got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected integer T_mult >= 1, but "
                             f"got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"CosineAnnealingWarmRestarts: expected float or int eta_min, but "
                             f"got {eta_min} of type {type(eta_min).__name__}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self.warn_outside_step()
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i))
                / 2 for b in self.base_lrs]

    def step(self, epoch=None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur, self.T_i = self.T_cur % self.T_i, self.T_i * self.T_mult
        elif epoch < 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected non-negative epoch, but "
                             f"got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            lrs = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, lrs):
            group["lr"] = lr
        self._last_lr = group_values(self.optimizer, "lr")


def _anneal_cos(start, end, pct):
    return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)


def _anneal_linear(start, end, pct):
    return (end - start) * pct + start


_ANNEAL = {"cos": _anneal_cos, "linear": _anneal_linear}


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith & Topin): lr up from max_lr / div_factor to max_lr, then down
    to initial_lr / final_div_factor, momentum the other way; stepped per batch."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        check_optimizer(optimizer, "OneCycleLR")
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        if not isinstance(pct_start, float) or not 0 <= pct_start <= 1:
            raise ValueError(f"OneCycleLR: expected float between 0 and 1 pct_start, but got "
                             f"{pct_start}")
        if anneal_strategy not in _ANNEAL:
            raise ValueError(f"OneCycleLR: anneal_strategy must be one of 'cos' or 'linear', "
                             f"instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        self._schedule_phases = _phases(self.total_steps, pct_start, three_phase)
        max_lrs = per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for top, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _momentum_option(self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self.warn_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"OneCycleLR: tried to step {step} times. The specified number of "
                             f"total steps is {self.total_steps}")
        anneal, lrs = _ANNEAL[self._anneal_func_type], []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - start) / (end - start)
                    lrs.append(anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        _set_momentum(self, group, anneal(group[phase["start_momentum"]],
                                                          group[phase["end_momentum"]], pct))
                    break
                start = end
        return lrs


def _total_steps(total_steps, epochs, steps_per_epoch) -> int:
    if total_steps is not None:
        if not isinstance(total_steps, int) or total_steps <= 0:
            raise ValueError(f"OneCycleLR: expected positive integer total_steps, but got "
                             f"{total_steps}")
        return total_steps
    if epochs is None or steps_per_epoch is None:
        raise ValueError("OneCycleLR: you must define either total_steps OR (epochs AND "
                         "steps_per_epoch)")
    for name, v in (("epochs", epochs), ("steps_per_epoch", steps_per_epoch)):
        if not isinstance(v, int) or v <= 0:
            raise ValueError(f"OneCycleLR: expected positive integer {name}, but got {v}")
    return epochs * steps_per_epoch


def _phase(end_step, start_lr, end_lr, start_momentum, end_momentum) -> dict:
    return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr,
            "start_momentum": start_momentum, "end_momentum": end_momentum}


def _phases(total, pct_start, three_phase) -> list:
    if three_phase:
        return [_phase(float(pct_start * total) - 1, "initial_lr", "max_lr", "max_momentum",
                       "base_momentum"),
                _phase(float(2 * pct_start * total) - 2, "max_lr", "initial_lr",
                       "base_momentum", "max_momentum"),
                _phase(total - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
    return [_phase(float(pct_start * total) - 1, "initial_lr", "max_lr", "max_momentum",
                   "base_momentum"),
            _phase(total - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
