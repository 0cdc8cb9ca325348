"""jg.cuda: availability and device count (the CUDA backend adds memory stats and caching)."""
from .runtime.cuda_device import device_count, is_available  # noqa: F401
