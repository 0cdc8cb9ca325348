"""jitgrad.optim: optimizers in two forms over one set of update rules (rules.py).

Functional, for jitted training steps (state is a pytree):
    opt = jg.optim.adam(1e-3); state = opt.init(params)
    params, state = opt.update(grads, state, params)
PyTorch-style, for eager training:
    opt = jg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss.backward(); opt.step(); opt.zero_grad()
  (foreach=None, the default: one compiled update per parameter group, fused_step.py;
  foreach=False: eager ops per parameter)
"""
from .functional import OptState, adam, adamw, sgd  # noqa: F401
from .functional import FunctionalOptimizer  # noqa: F401
from .stateful import SGD, Adam, AdamW, Optimizer  # noqa: F401
