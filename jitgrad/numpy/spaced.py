"""Evenly spaced values: arange, linspace, logspace, geomspace.

linspace/logspace/geomspace differentiate in their endpoints (tensors that require grad, traced
values under grad/jvp/jit), as JAX: the values are `start + (stop - start) * i / div`, built from
the endpoints with array ops. Plain numbers take NumPy's path. arange's bounds set the shape, so
they must be concrete: under jit a traced bound is a ConcretizationError naming the argument
(JAX's error); under grad or eagerly its value is used (the derivative is zero)."""
from __future__ import annotations

import numpy as np

from ..errors import ConcretizationError
from ..trace.tracer import Tracer
from ..dtypes import canonical_dtype, default_float
from ..runtime.device import device as as_device
from ..eager.tensor import Tensor, tensor
from ._convert import (asarray, astype, device_of, dtype_entry, holds_array, host_array,
                       is_array, result_type)
from .shape import broadcast_arrays, concatenate, expand_dims, moveaxis, reshape
from .ufuncs import add, exp, floor, log, multiply, power, sign, subtract
from ..ir.types import kind_of


def _inexact(*values, dtype=None):
    """(compute dtype, result dtype): the promotion of the values (Python scalars weak), made
    inexact (ints become the default float), as NumPy's and JAX's linspace."""
    weak_np = any(holds_array(v) for v in values)
    dt = result_type(*(dtype_entry(v, weak_np) for v in values))
    compute = dt if kind_of(dt) in "fc" else default_float()
    if dtype is None:
        return compute, compute
    out = canonical_dtype(dtype)
    return (out if out.kind in "fc" else compute), out


def _traced(*values) -> bool:
    return any(holds_array(v) for v in values)


def _concrete(v, name):
    if isinstance(v, Tracer):
        if v._concrete is None:
            raise ConcretizationError(
                f"jnp.arange's argument {name!r} must be a concrete value (it sets the result's "
                f"shape), but it is a traced value of type {v._type} inside a jitted function. "
                "Pass it as a Python number, or mark it static with static_argnums.")
        return v._concrete[()] if v._concrete.ndim == 0 else v._concrete
    if isinstance(v, Tensor):
        return v.detach().numpy()[()]
    return v


def arange(start, stop=None, step=1, dtype=None, device=None):
    """numpy.arange: return evenly spaced values within a given interval."""
    names = ("start", "stop", "step") if stop is not None else ("stop",)
    vals = [_concrete(v, n) for v, n in zip((start, stop, step) if stop is not None else (start,),
                                            names)]
    if stop is None:
        start, stop, step = 0, vals[0], step
    else:
        start, stop, step = vals
    if step == 0:
        raise ZeroDivisionError("jnp.arange: step must not be zero (NumPy: division by zero)")
    if dtype is None:
        floats = any(isinstance(v, (float, np.floating)) for v in (start, stop, step))
        dtype = default_float() if floats else np.int64
        given = [np.asarray(v).dtype for v in (start, stop, step) if isinstance(v, np.generic)]
        if any(kind_of(d) == "f" for d in given):      # a float64 bound keeps its precision
            dtype = np.result_type(dtype, *given)
    return tensor(np.arange(start, stop, step, dtype=canonical_dtype(dtype)),
                  device=device or "cpu")


def _ramp(start, stop, num, endpoint, compute, axis):
    """The linspace values from array endpoints (any shapes that broadcast)."""
    s, e = broadcast_arrays(asarray(start, compute), asarray(stop, compute))
    s, e = astype(s, compute), astype(e, compute)
    div = (num - 1) if endpoint else num
    frac = np.arange(num, dtype=compute) / div if div > 0 else np.zeros(num, compute)
    frac = host_array(frac.reshape((num,) + (1,) * s.ndim), device_of(s, e), compute)
    out = add(expand_dims(s, 0), multiply(frac, expand_dims(subtract(e, s), 0)))
    if endpoint and num > 1:         # the last value is `stop` exactly, as NumPy
        out = concatenate([out[:-1], expand_dims(e, 0)], axis=0)
    step = (subtract(e, s) / div) if div > 0 else None
    out = moveaxis(out, 0, axis) if s.ndim else reshape(out, (num,))
    return out, step


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0,
             device=None):
    """numpy.linspace: return evenly spaced numbers over a specified interval."""
    num = int(num)
    if num < 0:
        raise ValueError(f"linspace: num must be non-negative, got {num}")
    compute, out_dt = _inexact(start, stop, dtype=dtype)
    if not _traced(start, stop):
        y, step = np.linspace(np.asarray(start), np.asarray(stop), num, endpoint=endpoint,
                              retstep=True, dtype=compute, axis=axis)
        if kind_of(out_dt) in "iub":
            y = np.floor(y)
        out = tensor(y.astype(out_dt), device=device or "cpu")
        return (out, step) if retstep else out
    out, step = _ramp(start, stop, num, endpoint, compute, axis)
    if kind_of(out_dt) in "iub":
        out = floor(out)
    out = astype(out, out_dt)
    if device is not None and isinstance(out, Tensor) and as_device(device) != out.device:
        out = out.to(device)
    if retstep:
        return out, (step if step is not None else float("nan"))
    return out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """numpy.logspace: return numbers spaced evenly on a log scale."""
    compute, out_dt = _inexact(start, stop, dtype=dtype)
    if not _traced(start, stop, base):
        y = np.logspace(np.asarray(start), np.asarray(stop), num, endpoint=endpoint,
                        base=np.asarray(base), dtype=compute, axis=axis)
        return tensor(y.astype(out_dt))
    exps = linspace(start, stop, num, endpoint=endpoint, dtype=compute, axis=axis)
    return astype(power(asarray(base, compute) if is_array(base) else base, exps), out_dt)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """NumPy's geomspace: a geometric progression from start to stop (both of one sign, not
    zero); differentiable in the endpoints."""
    compute, out_dt = _inexact(start, stop, dtype=dtype)
    if not _traced(start, stop):
        y = np.geomspace(np.asarray(start), np.asarray(stop), num, endpoint=endpoint,
                         dtype=compute, axis=axis)
        return tensor(y.astype(out_dt))
    s, e = asarray(start, compute), asarray(stop, compute)
    # -1 where both endpoints are negative (NumPy's sign flip), else 1
    flip = 1.0 - (1.0 - sign(s)) * (1.0 - sign(e)) / 2.0
    y = exp(linspace(log(multiply(flip, s)), log(multiply(flip, e)), num, endpoint=endpoint,
                     dtype=compute, axis=axis))
    return astype(multiply(flip if not getattr(flip, "ndim", 0) else
                           _expand_like(flip, y, axis), y), out_dt)


def _expand_like(v, y, axis):
    return expand_dims(v, axis if axis >= 0 else y.ndim + axis)
