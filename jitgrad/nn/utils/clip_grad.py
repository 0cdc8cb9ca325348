"""torch.nn.utils' gradient clipping: clip_grad_norm_ (= get_total_norm, then
clip_grads_with_norm_), clip_grad_value_, and the deprecated clip_grad_norm. Gradients are
changed in place (copy_), as torch's mul_/clamp_ do; parameters without a .grad are skipped."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ...eager.grad_mode import no_grad
from ...eager.tensor import Tensor, tensor
from ... import numpy as jnp


def _tensors(tensors) -> list:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _grads(parameters) -> list:
    return [p.grad for p in _tensors(parameters) if p.grad is not None]


def _check_foreach(foreach, who) -> None:
    if foreach not in (None, True, False):
        raise ValueError(f"{who}: foreach must be None, True or False, got {foreach!r}")


_DOT_CHUNK = 1 << 15


def _sum_of_squares(v) -> float:
    """sum(v * v) of a 1-D array in one pass with no temporary: BLAS dots of chunks of
    _DOT_CHUNK elements summed in float64 (3x faster than square then sum; one dot of a
    4M-element float32 vector was off by 1e-5 relative, the chunked sum by 1e-8)."""
    return sum(float(np.dot(c, c)) for c in (v[i:i + _DOT_CHUNK]
                                              for i in range(0, v.size, _DOT_CHUNK)))


def _host_2norm(tensors):
    """The total 2-norm of CPU float32/float64 tensors of one dtype, computed on their NumPy
    arrays (_sum_of_squares) and no eager op per tensor, as torch's _foreach_norm is one
    kernel; None for any other tensors."""
    dtype = np.dtype(tensors[0].dtype)
    if dtype not in (np.float32, np.float64) or any(
            t.device.type != "cpu" or np.dtype(t.dtype) != dtype for t in tensors):
        return None
    norms = np.array([math.sqrt(_sum_of_squares(np.asarray(t).ravel())) for t in tensors], dtype)
    return tensor(np.asarray(np.sqrt(np.sum(np.square(norms))), dtype))


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """torch.nn.utils.get_total_norm: the norm of the per-tensor norms (the norm of all the
    tensors' elements as one vector), a 0-d tensor on the first tensor's device."""
    _check_foreach(foreach, "get_total_norm")
    tensors, norm_type = _tensors(tensors), float(norm_type)
    if not tensors:
        return tensor(0.0)
    with no_grad():
        total = _host_2norm(tensors) if norm_type == 2.0 else None
        if total is None:
            device = tensors[0].device
            norms = [jnp.linalg.vector_norm(t, ord=norm_type).to(device) for t in tensors]
            dtype = jnp.result_type(*norms)
            total = jnp.linalg.vector_norm(jnp.stack([n.astype(dtype) for n in norms]),
                                           ord=norm_type)
    if error_if_nonfinite and not math.isfinite(float(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable this "
                           "error and scale the gradients by the non-finite norm anyway, set "
                           "`error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None) -> None:
    """torch.nn.utils.clip_grads_with_norm_: grads *= min(1, max_norm / (total_norm + 1e-6))."""
    _check_foreach(foreach, "clip_grads_with_norm_")
    grads = _grads(parameters)
    if not grads:
        return
    with no_grad():
        coef = jnp.minimum(float(max_norm) / (total_norm + 1e-6), 1.0)
        cast = {}                       # (device, dtype) -> coef there: one cast each
        for g in grads:
            key = (g.device, g.dtype)
            if key not in cast:
                cast[key] = coef.to(g.device).astype(g.dtype)
            if not _host_scale(g, cast[key]):
                g.mul_(cast[key])


def _host_scale(g, coef) -> bool:
    """g.mul_(coef) on g's CPU float storage directly, as torch's _foreach_mul_ is one kernel
    over all the grads rather than an op each (GPT's 52 grads: ~1 ms of eager dispatch); the
    same product, version counter and views as mul_. False where it does not apply."""
    d, c = getattr(g, "_data", None), getattr(coef, "_data", None)
    if type(d) is not np.ndarray or g.device.type != "cpu" or d.dtype.kind != "f" \
            or not d.flags.writeable or getattr(c, "dtype", None) != d.dtype:
        return False
    with np.errstate(all="ignore"):     # a non-finite norm scales to NaN silently, as mul_
        np.multiply(d, c, out=d)
    g._version[0] += 1
    g._write_through()
    return True


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """torch.nn.utils.clip_grad_norm_: scales the gradients so that their total norm is at most
    max_norm; returns the total norm before clipping (a 0-d tensor)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        parameters = list(parameters)      # a generator is read once
        if not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=2)
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    """Deprecated (as in torch) in favour of clip_grad_norm_."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None) -> None:
    """torch.nn.utils.clip_grad_value_: clamps every gradient into [-clip_value, clip_value]."""
    _check_foreach(foreach, "clip_grad_value_")
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.copy_(jnp.clip(g, -clip_value, clip_value))
