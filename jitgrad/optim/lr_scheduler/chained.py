"""Schedulers made of schedulers (torch.optim.lr_scheduler): SequentialLR switches from one to
the next at milestones, ChainedScheduler steps all of them each epoch."""
from __future__ import annotations

from bisect import bisect_right

from .base import LRScheduler, group_values
from .plateau import ReduceLROnPlateau


def _check_schedulers(who, schedulers, optimizer):
    if len(schedulers) < 1:
        raise ValueError(f"{who} expects at least one scheduler, but got no scheduler.")
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{who} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(f"{who} does not support `ReduceLROnPlateau` scheduler as it "
                             "requires additional kwargs to be specified when calling `step`, "
                             f"but got one at index {i} in the given schedulers sequence.")
        if s.optimizer is not optimizer:
            raise ValueError(f"{who} expects all schedulers to belong to the same optimizer, "
                             f"but got scheduler {type(s).__name__} at index {i} has "
                             f"{s.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


class _Composite(LRScheduler):
    """state_dict with the inner schedulers' state dicts (torch's format)."""

    def state_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        out["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return out

    def load_state_dict(self, state_dict: dict) -> None:
        state_dict = dict(state_dict)
        inner = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for s, saved in zip(self._schedulers, inner):
            s.load_state_dict(saved)


class SequentialLR(_Composite):
    """schedulers[i] runs from milestones[i - 1] on, restarted at its milestone."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_schedulers(type(self).__name__, schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be "
                             "one more than the number of milestone points, but got number of "
                             f"schedulers {len(schedulers)} and the number of milestones to be "
                             f"equal to {len(milestones)}")
        self._schedulers, self._milestones = schedulers, milestones
        self.last_epoch, self.optimizer = last_epoch + 1, optimizer
        for group in optimizer.param_groups:     # undo the schedulers' initial steps
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        idx = bisect_right(milestones, 0)
        schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None) -> None:
        """Steps back last_epoch of every (nested) scheduler: their initial steps are redone."""
        sched = self if sched is None else sched
        if hasattr(sched, "_schedulers"):
            for s in sched._schedulers:
                self.recursive_undo(s)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def step(self) -> None:
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite):
    """Steps every scheduler each epoch; their chainable forms compose."""

    def __init__(self, schedulers, optimizer=None):
        optimizer = optimizer or (schedulers[0].optimizer if schedulers else None)
        _check_schedulers(type(self).__name__, schedulers, optimizer)
        self._schedulers, self.optimizer = schedulers, optimizer
        self._last_lr = group_values(schedulers[-1].optimizer, "lr")

    def step(self) -> None:
        for s in self._schedulers:
            s.step()
        self._last_lr = group_values(self._schedulers[-1].optimizer, "lr")
