"""jitgrad.nn: layers, initializers and functional ops."""
from . import functional  # noqa: F401
