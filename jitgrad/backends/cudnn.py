"""torch.backends.cudnn: jitgrad calls no cuDNN, its convolutions are its own kernels (the same
algorithm every call, so results are reproducible without `deterministic`). `is_available()` is
False and `version()` None, as torch answers without cuDNN; `enabled`, `benchmark`,
`deterministic` and `allow_tf32` keep what a program assigns (`cudnn.benchmark = True` in
pytorch/examples dcgan) and select nothing."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    """torch.backends.cudnn.is_available: False, jitgrad does not use cuDNN."""
    return False


def version():
    """torch.backends.cudnn.version: None, as torch returns when cuDNN is not available."""
    return None
