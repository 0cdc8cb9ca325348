"""torch.backends: settings of the libraries torch calls. jitgrad generates its own kernels, so
`jitgrad.backends.cudnn` only answers torch's questions about cuDNN (not used here)."""
from . import cudnn  # noqa: F401

__all__ = ["cudnn"]
