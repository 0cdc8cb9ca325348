"""Trimmed tracebacks: an error raised inside jitgrad is shown from the user's call, with
jitgrad's internal frames removed (JITGRAD_TRACEBACK=full keeps them), as JAX does."""
from __future__ import annotations

import functools
import os
import sys
import types

from .ir import config


class ConcretizationError(TypeError):
    """A traced (abstract) value was used where Python needs a concrete one."""


class DeviceMismatchError(RuntimeError):
    """An op got tensors on two different devices."""


_ROOTS = None


def _internal_roots():
    global _ROOTS
    if _ROOTS is None:
        roots = {os.path.dirname(os.path.abspath(__file__))}        # jitgrad/
        for name in ("jitgrad.ir", "jitgrad.runtime", "jitgrad.codegen"):   # installed beside it
            mod = sys.modules.get(name)
            if mod is not None:
                roots.add(os.path.dirname(os.path.abspath(mod.__file__)))
        if "jitgrad.codegen" in sys.modules:    # codegen loads later: computed again then
            _ROOTS = tuple(r + os.sep for r in roots)
        return tuple(r + os.sep for r in roots)
    return _ROOTS


def _trim(tb):
    """The traceback without jitgrad's frames (the last frame is kept if all are internal)."""
    frames = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    roots = _internal_roots()
    keep = [f for f in frames if not f.tb_frame.f_code.co_filename.startswith(roots)]
    if not keep:
        return None
    out = None
    for f in reversed(keep):
        out = types.TracebackType(out, f.tb_frame, f.tb_lasti, f.tb_lineno)
    return out


def trimmed(e: BaseException) -> BaseException:
    """`e` with jitgrad's frames trimmed from its traceback, as a public entry point raises it
    (`raise trimmed(e) from e.__cause__`); as it is with the full traceback option."""
    # trimming again at an outer boundary drops the internal frames added since
    return e if config.full_traceback() else e.with_traceback(_trim(e.__traceback__))


def api_boundary(fn):
    """Decorate a public entry point: errors leave it with jitgrad's frames trimmed."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            raise trimmed(e) from e.__cause__
    wrapper.__wrapped_by_api_boundary__ = True
    return wrapper


def wrap_public_functions(namespace: dict, package: str) -> None:
    """Put an api_boundary around every function in `namespace` defined inside `package`."""
    for name, obj in list(namespace.items()):
        if (isinstance(obj, types.FunctionType) and not name.startswith("_")
                and obj.__module__.startswith(package)
                and not getattr(obj, "__wrapped_by_api_boundary__", False)):
            namespace[name] = api_boundary(obj)
