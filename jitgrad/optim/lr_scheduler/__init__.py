"""jitgrad.optim.lr_scheduler: torch.optim.lr_scheduler's schedulers, with torch's semantics
(initial_lr, the chainable and closed forms, last_epoch, get_last_lr, state_dict):

    opt = jg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = jg.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    for epoch in range(100):
        train(...); opt.step(); sched.step()
"""
from .base import LRScheduler
from .closed_form import (ConstantLR, CosineAnnealingLR, ExponentialLR,  # noqa: F401
                          LambdaLR, LinearLR, MultiplicativeLR, MultiStepLR, PolynomialLR,
                          StepLR)
from .chained import ChainedScheduler, SequentialLR  # noqa: F401
from .cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR  # noqa: F401
from .plateau import ReduceLROnPlateau  # noqa: F401

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
           "PolynomialLR", "LRScheduler"]


class _LRScheduler(LRScheduler):
    """torch's old name of LRScheduler, which torch keeps for compatibility."""
