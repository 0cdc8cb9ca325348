"""NumPy's `out=` argument: eager results are written into the given array (a jitgrad tensor or
a NumPy array, cast as NumPy's same-kind rule allows); traced arrays are immutable, so there it
is an error that says to use the returned value."""
from __future__ import annotations

import functools

import numpy as np

from ..trace.tracer import Tracer
from ..trace.source_info import user_source_info
from ..eager.tensor import Tensor
from ._convert import astype


def write_out(result, out, name):
    if out is None:
        return result
    if isinstance(out, tuple) and len(out) == 1:
        (out,) = out
    where = user_source_info()
    at = f" (at {where})" if where else ""
    if isinstance(result, Tracer) or isinstance(out, Tracer):
        raise TypeError(f"{name}(out=...): arrays inside jg.jit / grad are immutable; use the "
                        f"returned value instead of out={at}")
    if not isinstance(out, (Tensor, np.ndarray)):
        raise TypeError(f"{name}(out=...): expected a jitgrad tensor or a NumPy array, got "
                        f"{type(out).__name__}{at}")
    if tuple(out.shape) != tuple(result.shape):
        raise ValueError(f"{name}(out=...): out has shape {tuple(out.shape)}, the result has "
                         f"shape {tuple(result.shape)}{at}")
    if not np.can_cast(result.dtype, out.dtype, "same_kind"):
        raise TypeError(f"{name}(out=...): cannot cast the {result.dtype} result to out's "
                        f"{out.dtype} (NumPy's same_kind rule){at}")
    if isinstance(out, np.ndarray):
        np.copyto(out, result.numpy(), casting="same_kind")
        return out
    return out.copy_(astype(result, out.dtype))


def accepts_out(fn):
    """fn with a keyword-only out=None, as NumPy's ufuncs and reductions have."""
    @functools.wraps(fn)
    def with_out(*args, out=None, **kwargs):
        if out is None:                 # the common case, one call less
            return fn(*args, **kwargs)
        return write_out(fn(*args, **kwargs), out, fn.__name__)
    return with_out
