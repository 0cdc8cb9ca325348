"""jitgrad.errors (jax.errors' place): every exception jitgrad raises on purpose, to catch; and
trimmed tracebacks: an error raised inside jitgrad is shown from the user's call, with
jitgrad's internal frames removed (JITGRAD_TRACEBACK=full keeps them), as JAX does.

Exceptions of the IR layer live in ir/errors.py; those of modules that load slowly (codegen,
the native toolchain, datasets) stay there and are imported here on first use."""
from __future__ import annotations

import functools
import importlib
import os
import sys
import types

from .ir import config
from .ir.errors import MissingRuleError, ParseError, ShapeError, UnsupportedOpError, VerifyError


class ConcretizationError(TypeError):
    """A traced (abstract) value was used where Python needs a concrete one."""


class UnexpectedTracerError(TypeError):
    """A traced value was used after the trace that made it ended (it leaked out of a jitted
    or transformed function through a list, a global or an attribute): JAX's
    UnexpectedTracerError."""


class DeviceMismatchError(RuntimeError):
    """An op got tensors on two different devices."""


class ArtifactError(ValueError):
    """An AOT artifact (jg.load) is missing, truncated, tampered with, or from an incompatible
    format."""


ConcretizationTypeError = ConcretizationError      # JAX's name (jax.errors)

# name -> the module that defines it, imported when the name is first read
_ELSEWHERE = {
    "DataError": "jitgrad.data",
    "DistributedError": "jitgrad.distributed.world",
    "DeletedArrayError": "jitgrad.runtime.deleted_storage",
    "CudaUnavailableError": "jitgrad.runtime.cuda_device",
    "CacheError": "jitgrad.runtime.cache",
    "CacheWarning": "jitgrad.codegen.disk_cache",
    "CudaToolchainError": "jitgrad.codegen.cuda.toolchain",
    "NativeBuildError": "jitgrad.codegen.native.link",
    "NativeToolMissing": "jitgrad.codegen.native.link",
    "UnresolvedSymbolsError": "jitgrad.codegen.native.link",
    "NotPortableError": "jitgrad.codegen.native.link",
    "NativeExportError": "jitgrad.codegen.native.export",
}


def __getattr__(name):
    if name not in _ELSEWHERE:
        raise AttributeError(f"module 'jitgrad.errors' has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(_ELSEWHERE[name]), name)
    return value


def __dir__():
    return sorted(set(globals()) | set(_ELSEWHERE))


__all__ = ["ConcretizationError", "ConcretizationTypeError", "UnexpectedTracerError",
           "DeviceMismatchError", "ArtifactError", "ShapeError", "VerifyError", "ParseError",
           "MissingRuleError", "UnsupportedOpError", *_ELSEWHERE]


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
            wrapped = namespace[name] = api_boundary(obj)
            # pickle finds a function by module and name (torch.save of a model holding F.relu)
            wrapped.__module__, wrapped.__qualname__ = namespace["__name__"], name
