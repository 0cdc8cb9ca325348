"""jg.config: the user's view of jitgrad's one option store (ir/config.py, which every layer
reads), JAX style: `jg.config.update(name, value)`, `jg.config.read(name)` or `jg.config.<name>`.

Every option, its environment variable, default and meaning: the README's "Configuration, debug
flags and environment variables" (generated from ir/config.OPTIONS). For example "enable_x64"
(also spelled "jax_enable_x64"; JITGRAD_ENABLE_X64=1) makes Python floats and float results
computed from ints float64, as in JAX; "num_threads" sizes the thread pool of compiled CPU
kernels (JITGRAD_NUM_THREADS); "debug" is JITGRAD_DEBUG's log level."""
from __future__ import annotations

import sys

from .ir import config as _store


def update(name: str, value) -> None:
    """Set an option: jg.config.update("enable_x64", True)."""
    _store.update(name, value)


def read(name: str):
    """An option's current value: jg.config.read("enable_x64")."""
    return _store.read(name)


def reset(name: str) -> None:
    """Forget a value set with update: the environment variable or the default decides again."""
    _store.reset(name)


def __getattr__(name):      # jg.config.enable_x64 / jg.config.jax_enable_x64, as in JAX
    if name in _store.names():
        return _store.read(name)
    raise AttributeError(f"module 'jitgrad.config' has no attribute {name!r}")


class _ConfigModule(type(sys)):
    """Assigning an attribute of jg.config is never silently ignored: an option says to use
    update(), anything else names the options (JAX raises AttributeError for both)."""

    def __setattr__(self, name, value):
        if name in _store.names():
            raise AttributeError(f"jg.config.{name} can't be assigned; set it with "
                                 f"jg.config.update({name!r}, {value!r})")
        if name not in self.__dict__:
            raise AttributeError(f"jg.config has no option {name!r}; known options: "
                                 + ", ".join(_store.names())
                                 + " (set one with jg.config.update(name, value))")
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _ConfigModule
