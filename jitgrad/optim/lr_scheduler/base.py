"""torch.optim.lr_scheduler.LRScheduler: the base of the schedulers. Constructing one sets each
group's 'initial_lr' (base_lrs) and takes the initial step (last_epoch 0); step() advances
last_epoch and writes the new lr into the groups, read back by get_last_lr(). Subclasses give
get_lr(), the chainable form (from the groups' current lr, so schedulers compose), and where
torch has one _get_closed_form_lr() (from base_lrs, used by the deprecated step(epoch))."""
from __future__ import annotations

import warnings

from ..optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the new "
    "chainable form, where available.")


def check_optimizer(optimizer, who) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{who}: {type(optimizer).__name__} is not an Optimizer")
    for i, group in enumerate(optimizer.param_groups):
        if callable(group["lr"]):
            raise TypeError(f"{who}: param_groups[{i}]['lr'] is a schedule function; an lr "
                            "scheduler needs a number there (give the optimizer a number)")


def per_group(name, optimizer, value) -> list:
    """value as one entry per parameter group (a list or tuple must have one per group)."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
        return list(value)
    return [value] * len(optimizer.param_groups)


def group_values(optimizer, key) -> list:
    return [group[key] for group in optimizer.param_groups]


class LRScheduler:
    """torch.optim.lr_scheduler.LRScheduler(optimizer, last_epoch=-1)."""
    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch: int = -1):
        check_optimizer(optimizer, type(self).__name__)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                   "when resuming scheduler with last_epoch >= 0: load the "
                                   "optimizer's state_dict first, or start with last_epoch=-1")
        self.base_lrs = group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict:
        """The scheduler's attributes but the optimizer (torch's format)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list:
        """The learning rates the last step() set, one per group."""
        return self._last_lr

    def get_lr(self) -> list:
        raise NotImplementedError(f"{type(self).__name__}.get_lr: an LRScheduler subclass "
                                  "defines get_lr()")

    def step(self, epoch=None) -> None:
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                          "In PyTorch 1.1.0 and later, you should call them in the opposite "
                          "order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to "
                          "do this will result in PyTorch skipping the first value of the "
                          "learning rate schedule.", UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = group_values(self.optimizer, "lr")

    def warn_outside_step(self) -> None:
        """get_lr() called by the user: torch points to get_last_lr()."""
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=3)
