"""torch.utils's counterpart: jg.utils.data (Dataset, DataLoader, ...) and jg.utils.tensorboard
(SummaryWriter), loaded on first use."""
from ..lazy_import import lazy_attributes as _lazy_attributes

_LAZY = {"data": ("jitgrad.utils.data", None),
         "tensorboard": ("jitgrad.utils.tensorboard", None)}
__getattr__, __dir__ = _lazy_attributes(__name__, globals(), _LAZY)
