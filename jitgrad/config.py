"""jg.config: JAX-style switches read at trace and eager time (`jg.config.update(name, value)`).

"enable_x64" (also spelled "jax_enable_x64"; environment JITGRAD_ENABLE_X64=1) makes Python floats
and float results computed from ints float64, as in JAX; "num_threads" sizes the thread pool of
compiled CPU kernels (runtime/thread_pool.py; environment JITGRAD_NUM_THREADS)."""
from __future__ import annotations

import sys

from .dtypes import _MODE

_NAMES = {"enable_x64": "enable_x64", "jax_enable_x64": "enable_x64", "num_threads": "num_threads"}


def _pool():
    from .runtime import thread_pool
    return thread_pool


# options kept outside _MODE: (setter, reader); num_threads sizes runtime/thread_pool.py's pool
_EXTERNAL = {"num_threads": (lambda v: _pool().set_num_threads(v), lambda: _pool().num_threads())}


def _option(name):
    if name not in _NAMES:
        raise AttributeError(f"jg.config has no option {name!r}; known options: "
                             + ", ".join(sorted(_NAMES)))
    return _NAMES[name]


def update(name: str, value) -> None:
    """Set an option: jg.config.update("enable_x64", True)."""
    key = _option(name)
    if key in _EXTERNAL:
        _EXTERNAL[key][0](value)
        return
    if not isinstance(value, bool):
        raise TypeError(f"jg.config.update({name!r}, ...) expects True or False, got "
                        f"{type(value).__name__} {value!r}")
    _MODE[key] = value


def read(name: str):
    """An option's current value: jg.config.read("enable_x64")."""
    key = _option(name)
    return _EXTERNAL[key][1]() if key in _EXTERNAL else _MODE[key]


def __getattr__(name):      # jg.config.enable_x64 / jg.config.jax_enable_x64, as in JAX
    if name in _NAMES:
        return read(name)
    raise AttributeError(f"module 'jitgrad.config' has no attribute {name!r}")


class _ConfigModule(type(sys)):
    """Assigning an attribute of jg.config is never silently ignored: an option says to use
    update(), anything else names the options (JAX raises AttributeError for both)."""

    def __setattr__(self, name, value):
        if name in _NAMES:
            raise AttributeError(f"jg.config.{name} can't be assigned; set it with "
                                 f"jg.config.update({name!r}, {value!r})")
        if name not in self.__dict__:
            raise AttributeError(f"jg.config has no option {name!r}; known options: "
                                 + ", ".join(sorted(_NAMES))
                                 + " (set one with jg.config.update(name, value))")
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _ConfigModule
