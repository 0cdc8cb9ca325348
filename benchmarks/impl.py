"""One implementation (framework) of the workloads, and how to load it by name."""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from .workloads import WORKLOADS


def tree_map(fn: Callable, tree: Any) -> Any:
    """Map over the leaves of nested tuples/lists/dicts (enough for params + loss)."""
    if isinstance(tree, (tuple, list)):
        return type(tree)(tree_map(fn, t) for t in tree)
    if isinstance(tree, dict):
        return {k: tree_map(fn, v) for k, v in tree.items()}
    return fn(tree)


def tree_leaves(tree: Any) -> list:
    out: list = []
    tree_map(out.append, tree)
    return out


def _same(x):
    return x


@dataclass(frozen=True)
class Impl:
    name: str
    version: str
    fns: Mapping[str, Callable] = field(default_factory=dict)  # workload name -> function
    to_framework: Callable = _same  # numpy leaf -> framework array, once, outside timing
    block: Callable = _same         # wait for asynchronous results (jax dispatches async)
    to_numpy: Callable = np.asarray  # framework leaf -> numpy, only for checking
    error: str | None = None        # set when the framework imports but cannot run at all

    def prepare(self, inputs: tuple) -> tuple:
        return tree_map(self.to_framework, inputs)

    def call(self, workload: str, args: tuple) -> Any:
        return self.block(self.fns[workload](*args))

    def numpy(self, out: Any) -> Any:
        return tree_map(lambda leaf: np.asarray(self.to_numpy(leaf)), out)


def collect(namespace: Mapping[str, Any]) -> dict[str, Callable]:
    """The functions in a module's namespace named after a workload."""
    return {w.name: namespace[w.name] for w in WORKLOADS if w.name in namespace}


# impl name -> module in this package that defines it (in its IMPLS list)
MODULES = {
    "jitgrad": "impl_jitgrad",
    "numpy": "impl_numpy",
    "numba": "impl_numba",
    "torch": "impl_torch",
    "torch.compile": "impl_torch",
    "jax": "impl_jax",
}
PEERS = [name for name in MODULES if name != "jitgrad"]
# --compare names that stand for several impls
GROUPS = {"torch": ("torch", "torch.compile")}


def expand(names: list[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        for impl in GROUPS.get(name, (name,)):
            if impl not in MODULES:
                raise ValueError(f"unknown implementation {impl!r}; choose from {', '.join(PEERS)}")
            if impl not in out:
                out.append(impl)
    return out


def load(name: str) -> Impl:
    """Import the module defining `name`; ImportError means the framework is not installed."""
    module = importlib.import_module(f"{__package__}.{MODULES[name]}")
    return next(impl for impl in module.IMPLS if impl.name == name)


def load_all(names: list[str]) -> tuple[list[Impl], dict[str, str]]:
    """Loaded impls in order, and {name: reason} for those not installed.

    jitgrad is never skipped: while its core is unfinished, any failure to import it becomes an
    error row, so the rest of the table still gets measured."""
    impls, skipped = [], {}
    for name in names:
        try:
            impls.append(load(name))
        except ImportError as e:
            if name != "jitgrad":
                skipped[name] = str(e)
                continue
            impls.append(Impl(name, "?", error=f"import failed: {e}"))
        except Exception as e:  # noqa: BLE001 - a broken framework must not stop the run
            impls.append(Impl(name, "?", error=f"import failed: {type(e).__name__}: {e}"))
    return impls, skipped
