"""jitgrad.optim: optimizers in two forms over one set of update rules (rules.py).

Functional, for jitted training steps (state is a pytree):
    opt = jg.optim.adam(1e-3); state = opt.init(params)
    params, state = opt.update(grads, state, params)
PyTorch-style (torch.optim's classes, param groups, state_dict), for eager training:
    opt = jg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss.backward(); opt.step(); opt.zero_grad()
  (foreach=None, the default: one compiled update per parameter group, fused_step.py;
  foreach=False: eager ops per parameter)
jitgrad.optim.lr_scheduler and jitgrad.optim.swa_utils load when first used.
"""
import importlib

from .functional import OptState, adam, adamw, sgd  # noqa: F401
from .functional import FunctionalOptimizer  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .optimizers import (SGD, ASGD, Adadelta, Adagrad, Adam, Adamax, AdamW,  # noqa: F401
                         Muon, NAdam, RAdam, RMSprop, Rprop)
from .adafactor import Adafactor  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401

_LAZY = ("lr_scheduler", "swa_utils")


def __getattr__(name):
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
