"""Runtime: devices, the caching host allocator, threads and the kernel cache."""
from .allocator import empty_cache  # noqa: F401  (jg.runtime.empty_cache())
