"""jitgrad.scipy: jax.scipy's commonly used parts (special, linalg, stats, signal's convolutions),
written in jitgrad ops so they run eagerly, under jit, grad and vmap.

`import jitgrad` does not load this package; `jitgrad.scipy` (or `import jitgrad.scipy.special`)
does, on first use. Each submodule is loaded when first named."""
import importlib

SUBMODULES = ("linalg", "signal", "special", "stats")


def __getattr__(name):
    if name not in SUBMODULES:
        raise AttributeError(f"module 'jitgrad.scipy' has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{name}")
    globals()[name] = module
    return module


def __dir__():
    return sorted(set(globals()) | set(SUBMODULES))
