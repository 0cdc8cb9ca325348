"""What the jg.lax modules share: JAX's argument checks (lax is strict where jnp promotes)."""
from __future__ import annotations

import numbers

import numpy as np

from ..dtypes import result_type, scalar_dtype
from ..numpy._convert import asarray, is_array


def is_python_scalar(x) -> bool:
    """A Python bool, int, float or complex (weakly typed); NumPy scalars carry their dtype."""
    return isinstance(x, numbers.Number) and not isinstance(x, (np.generic, np.ndarray)) \
        and not is_array(x)


def check_same(name, *operands):
    """lax's binary ops take arrays of one dtype and one shape (Python scalars are weak and
    adapt; rank-0 arrays broadcast, as in JAX); a mismatch is a TypeError naming both, as
    jax.lax's "lax.add requires arguments to have the same dtypes, got float32, int32". A
    Python scalar must keep its kind in the operands' dtype (2.5 does not become an int)."""
    arrays = [asarray(x) for x in operands if not is_python_scalar(x)]
    dtypes = {str(a.dtype) for a in arrays}
    if len(dtypes) > 1:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(str(a.dtype) for a in arrays)}. (jitgrad.numpy's functions and "
                        "the operators promote their operands)")
    shapes = {tuple(a.shape) for a in arrays if a.ndim}
    if len(shapes) > 1:
        raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                        f"{', '.join(str(tuple(a.shape)) for a in arrays)}.")
    dtype = arrays[0].dtype if arrays else None
    for x in operands:
        if dtype is not None and is_python_scalar(x) and \
                result_type((np.dtype(dtype), False), (scalar_dtype(x), True)) != dtype:
            raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                            f"{dtype} and the Python {type(x).__name__} {x!r}, which {dtype} "
                            "cannot hold")
    return [asarray(x) if not is_python_scalar(x) or dtype is None else asarray(x, dtype=dtype)
            for x in operands]


def axes_tuple(axes, ndim, name, what="axes"):
    """Non-negative, in-range, distinct dimension indices (JAX does not wrap negatives in most
    lax ops, but it accepts them in a few; we accept -ndim..ndim-1)."""
    out = tuple(int(a) for a in (axes if isinstance(axes, (tuple, list)) else (axes,)))
    for a in out:
        if not -ndim <= a < ndim:
            raise ValueError(f"lax.{name}: {what} {out} out of range for an operand of rank "
                             f"{ndim}")
    out = tuple(a % ndim for a in out)
    if len(set(out)) != len(out):
        raise ValueError(f"lax.{name}: {what} must be distinct, got {out}")
    return out
