"""torch.optim.swa_utils: stochastic weight averaging and exponential moving averages of a
model's weights (AveragedModel with the swa/ema averaging functions), SWALR (anneal to a
constant SWA learning rate) and update_bn (recompute BatchNorm statistics for the average)."""
from __future__ import annotations

import copy
import itertools
import math

from ..eager.grad_mode import no_grad
from ..eager.tensor import tensor
from ..nn import BatchNorm1d, BatchNorm2d, BatchNorm3d, Module
from .lr_scheduler.base import LRScheduler, per_group

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay):
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] "
                         "range.")


def get_ema_avg_fn(decay=0.999):
    """(averaged, current, n) -> decay * averaged + (1 - decay) * current."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """(averaged, current, n) -> the running mean of the n + 1 values."""
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def _in_place(avg_fn):
    """The list form torch's multi_avg_fn takes: updates the averaged tensors in place."""
    def update(averaged, current, num_averaged):
        with no_grad():
            for a, c in zip(averaged, current, strict=True):
                a.copy_(avg_fn(a, c, num_averaged))
    return update


def get_ema_multi_avg_fn(decay=0.999):
    """get_ema_avg_fn over lists of tensors, in place (torch's foreach form)."""
    _check_decay(decay)
    return _in_place(get_ema_avg_fn(decay))


def get_swa_multi_avg_fn():
    """get_swa_avg_fn over lists of tensors, in place (torch's foreach form)."""
    return _in_place(get_swa_avg_fn())


class AveragedModel(Module):
    """A copy of `model` whose parameters (and buffers, with use_buffers=True) hold an average
    of the model's over update_parameters() calls: the SWA mean by default, or avg_fn /
    multi_avg_fn (e.g. get_ema_multi_avg_fn(0.999) for an EMA)."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise ValueError("AveragedModel: only one of avg_fn and multi_avg_fn should be "
                             "provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype="int64", device=device or "cpu"))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _tracked(self, model):
        if self.use_buffers:
            return list(itertools.chain(model.parameters(), model.buffers()))
        return list(model.parameters())

    def update_parameters(self, model) -> None:
        """Folds model's current weights into the average."""
        ours = self._tracked(self.module)
        theirs = [p.detach().to(a.device) for a, p in zip(ours, self._tracked(model))]
        n = int(self.n_averaged)
        with no_grad():
            if n == 0:
                for a, p in zip(ours, theirs):
                    a.copy_(p)
            elif self.avg_fn is not None:
                for a, p in zip(ours, theirs):
                    a.copy_(self.avg_fn(a.detach(), p, n))
            else:
                (self.multi_avg_fn or get_swa_multi_avg_fn())(ours, theirs, n)
            if not self.use_buffers:
                for b, src in zip(self.module.buffers(), model.buffers(), strict=True):
                    b.copy_(src.detach().to(b.device))
        self.n_averaged = self.n_averaged + 1


def update_bn(loader, model, device=None) -> None:
    """Recomputes the BatchNorm running statistics of `model` with one pass over `loader`
    (cumulative averages, momentum=None), as torch.optim.swa_utils.update_bn."""
    norms = [m for m in model.modules() if isinstance(m, (BatchNorm1d, BatchNorm2d, BatchNorm3d))]
    if not norms:
        return
    momenta = {id(m): m.momentum for m in norms}
    for m in norms:
        m.reset_running_stats()
        m.momentum = None
    was_training = model.training
    model.train()
    with no_grad():
        for batch in loader:
            batch = batch[0] if isinstance(batch, (list, tuple)) else batch
            model(batch.to(device) if device is not None else batch)
    for m in norms:
        m.momentum = momenta[id(m)]
    model.train(was_training)


_ANNEAL = {"cos": lambda t: (1 - math.cos(math.pi * t)) / 2, "linear": lambda t: t}


class SWALR(LRScheduler):
    """Anneals each group's lr to swa_lr over anneal_epochs ('cos' or 'linear'), then keeps it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        for lr, group in zip(per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in _ANNEAL:
            raise ValueError(f"SWALR: anneal_strategy must be one of 'cos' or 'linear', instead "
                             f"got {anneal_strategy}")
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"SWALR: anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self._anneal_strategy, self.anneal_epochs = anneal_strategy, anneal_epochs
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self.warn_outside_step()
        anneal = _ANNEAL[self._anneal_strategy]
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = anneal(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        alpha = anneal(max(0, min(1, step / max(1, self.anneal_epochs))))
        out = []
        for group in self.optimizer.param_groups:
            swa = group["swa_lr"]
            prev = swa if prev_alpha == 1 else (group["lr"] - prev_alpha * swa) / (1 - prev_alpha)
            out.append(swa * alpha + prev * (1 - alpha))
        return out
