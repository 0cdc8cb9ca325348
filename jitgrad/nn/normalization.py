"""Functional normalization with PyTorch's equations: batch_norm, instance_norm, group_norm.

Inputs are (N, C, *); float16/bfloat16 inputs are normalized in float32 and rounded once, as
PyTorch's kernels do; a float32 batch's statistics accumulate in float64 and are rounded once,
as PyTorch's CPU kernels accumulate in double. The statistics of the batch are biased (divided
by n) where they normalize and unbiased (n - 1) where they update running_var, as in PyTorch.
`*_with_stats` return the output AND the new running statistics (None when nothing is updated);
the modules (norm_layers.py) assign those to their buffers, which jit and grad turn into outputs
(jitgrad/module_state.py). The public forms update `running_mean`/`running_var` in place as
PyTorch's do, which works on eager tensors only; under jit use the modules.
"""
from __future__ import annotations

import math

from .. import numpy as jnp
from ..trace.tracer import Tracer
from ..eager.grad_mode import no_grad
from ..numpy._convert import asarray
from ..numpy.half_compute import narrowed, widened
from ..transforms.autodiff import stop_gradient


def _check(x, where):
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError(f"{where}: expected an input of shape (N, C, ...), got shape "
                         f"{tuple(x.shape)}")
    return x


def _per_channel(v, ndim):
    """(C,) -> (1, C, 1, ...) to broadcast against an (N, C, ...) input."""
    return jnp.reshape(v, (1, -1) + (1,) * (ndim - 2))


def _check_vectors(where, channels, **vectors):
    for name, v in vectors.items():
        if v is not None and tuple(asarray(v).shape) != (channels,):
            raise ValueError(f"{where}: expected {name} of shape ({channels},) for an input with "
                             f"{channels} channels, got shape {tuple(asarray(v).shape)}")


def _affine(y, weight, bias):
    if weight is not None:
        y = jnp.multiply(y, _per_channel(weight, y.ndim))
    return y if bias is None else jnp.add(y, _per_channel(bias, y.ndim))


def _accurate_mean(x, axes):
    """Mean over `axes` (kept); of float32, float64 and close to correctly rounded, as PyTorch's
    CPU kernels accumulate in double: the trailing run of reduced axes is summed in float32 (a
    contiguous run: NumPy's pairwise sum, the compiled kernels' blocked one), those partial sums
    in float64 over the other reduced axes (BatchNorm's batch axis). Accumulating the whole input
    in float64 would copy it to float64 eagerly and in the backward."""
    if x.dtype != jnp.float32:
        return jnp.mean(x, axis=axes, keepdims=True)
    inner = tuple(a for a in range(x.ndim) if set(range(a, x.ndim)) <= set(axes))
    outer = tuple(a for a in axes if a not in inner)
    partial = (jnp.sum(x, axis=inner, keepdims=True) if inner else x).astype(jnp.float64)
    total = jnp.sum(partial, axis=outer, keepdims=True) if outer else partial
    return jnp.divide(total, math.prod(x.shape[a] for a in axes))


def _moments(x, axes):
    """(mean, biased variance) over `axes` (kept), in _accurate_mean's dtype, and the input
    centered on the mean rounded to x's dtype."""
    mean = _accurate_mean(x, axes)
    centered = jnp.subtract(x, mean.astype(x.dtype))
    return mean, _accurate_mean(jnp.square(centered), axes), centered


def _normalized(centered, var, eps):
    """centered / sqrt(var + eps), the factor computed in var's dtype and rounded once."""
    return jnp.multiply(centered, jnp.rsqrt(jnp.add(var, eps)).astype(centered.dtype))


def _updated(running, batch_stat, momentum):
    """(1 - momentum) * running + momentum * stat, without gradient, computed in the dtype both
    promote to and rounded once to running's dtype."""
    stat = stop_gradient(batch_stat)
    with no_grad():     # eagerly no autograd record: a buffer must not hold each step's graph
        wide = running.astype(jnp.promote_types(running.dtype, stat.dtype))
        return jnp.add(jnp.multiply(wide, 1.0 - momentum),          # a float or a tensor
                       jnp.multiply(stat, momentum)).astype(running.dtype)


def batch_norm_with_stats(input, running_mean, running_var, weight=None, bias=None,
                          training=False, momentum=0.1, eps=1e-5):
    """(output, new_running_mean, new_running_var) of batch_norm; momentum may be a tensor."""
    x = _check(input, "batch_norm")
    c = x.shape[1]
    _check_vectors("batch_norm", c, running_mean=running_mean, running_var=running_var,
                   weight=weight, bias=bias)
    axes = (0,) + tuple(range(2, x.ndim))
    if not training:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: running_mean and running_var must be given when not "
                             "training (or pass training=True to use the batch's statistics)")
        (x, mean, var, weight, bias), dtype = widened(x, running_mean, running_var, weight, bias)
        y = jnp.multiply(jnp.subtract(x, _per_channel(mean, x.ndim)),
                         jnp.rsqrt(jnp.add(_per_channel(var, x.ndim), eps)))
        return narrowed(_affine(y, weight, bias), dtype), None, None
    n = x.size // c if c else 0
    if n <= 1:
        raise ValueError(f"batch_norm: expected more than 1 value per channel when training, got "
                         f"input shape {tuple(x.shape)}")
    (x, weight, bias), dtype = widened(x, weight, bias)
    mean, var, centered = _moments(x, axes)
    y = narrowed(_affine(_normalized(centered, var, eps), weight, bias), dtype)
    if running_mean is None:
        return y, None, None
    new_mean = _updated(running_mean, jnp.reshape(mean, (c,)), momentum)
    new_var = _updated(running_var, jnp.multiply(jnp.reshape(var, (c,)), n / (n - 1)), momentum)
    return y, new_mean, new_var


def instance_norm_with_stats(input, running_mean=None, running_var=None, weight=None, bias=None,
                             use_input_stats=True, momentum=0.1, eps=1e-5):
    """(output, new_running_mean, new_running_var) of instance_norm: each (sample, channel)
    normalized over its spatial dimensions; running statistics move towards the batch's average
    of the per-instance statistics (PyTorch's rule)."""
    x = _check(input, "instance_norm")
    c = x.shape[1]
    _check_vectors("instance_norm", c, running_mean=running_mean, running_var=running_var,
                   weight=weight, bias=bias)
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise ValueError("instance_norm: use_input_stats=False needs running_mean and "
                             "running_var")
        return batch_norm_with_stats(x, running_mean, running_var, weight, bias, False, 0.0, eps)
    axes = tuple(range(2, x.ndim))
    n = x.size // (x.shape[0] * c) if x.shape[0] * c else 0
    if n <= 1:
        raise ValueError(f"instance_norm: expected more than 1 spatial element per channel, got "
                         f"input shape {tuple(x.shape)}")
    (x, weight, bias), dtype = widened(x, weight, bias)
    mean, var, centered = _moments(x, axes)
    y = narrowed(_affine(_normalized(centered, var, eps), weight, bias), dtype)
    if running_mean is None:
        return y, None, None
    batch_mean = jnp.mean(jnp.reshape(mean, (x.shape[0], c)), axis=0)
    batch_var = jnp.mean(jnp.reshape(var, (x.shape[0], c)), axis=0)
    return (y, _updated(running_mean, batch_mean, momentum),
            _updated(running_var, jnp.multiply(batch_var, n / (n - 1)), momentum))


def _update_in_place(where, pairs):
    """PyTorch's functional forms write the new running statistics into the given tensors."""
    for running, new in pairs:
        if new is None:
            continue
        if isinstance(running, Tracer) or isinstance(new, Tracer):
            raise ValueError(f"{where}: updating running_mean/running_var in place needs eager "
                             "tensors, but this call is traced (jit, grad or vmap); use the module "
                             "(nn.BatchNorm2d, nn.InstanceNorm2d), whose running statistics are "
                             "buffers that jit returns and writes back, or call "
                             f"{where}_with_stats, which returns them")
        with no_grad():
            running.copy_(new)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """torch.nn.functional.batch_norm: normalize each channel of an (N, C, ...) input by the
    batch's statistics (training) or by running_mean/running_var; training with running
    statistics given updates them in place with `momentum` (eager tensors)."""
    if momentum is None:
        raise ValueError("batch_norm: momentum must be a number here; the cumulative average "
                         "(momentum=None) is nn.BatchNorm's, which counts the batches")
    y, new_mean, new_var = batch_norm_with_stats(input, running_mean, running_var, weight, bias,
                                                 training, momentum, eps)
    _update_in_place("batch_norm", ((running_mean, new_mean), (running_var, new_var)))
    return y


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """torch.nn.functional.instance_norm: normalize each (sample, channel) over its spatial
    dimensions; running statistics, when given, are updated in place (eager tensors)."""
    y, new_mean, new_var = instance_norm_with_stats(input, running_mean, running_var, weight,
                                                    bias, use_input_stats, momentum, eps)
    _update_in_place("instance_norm", ((running_mean, new_mean), (running_var, new_var)))
    return y


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """torch.nn.functional.group_norm: split the C channels into num_groups groups and normalize
    each (sample, group) over its channels and spatial dimensions; then a per-channel affine."""
    x = _check(input, "group_norm")
    n, c = x.shape[0], x.shape[1]
    if not isinstance(num_groups, int) or num_groups <= 0 or c % num_groups:
        raise ValueError(f"group_norm: num_groups must be a positive int dividing the {c} "
                         f"channels, got {num_groups!r}")
    _check_vectors("group_norm", c, weight=weight, bias=bias)
    (x, weight, bias), dtype = widened(x, weight, bias)
    grouped = jnp.reshape(x, (n, num_groups, -1))
    _, var, centered = _moments(grouped, (2,))
    y = jnp.reshape(_normalized(centered, var, eps), tuple(x.shape))
    return narrowed(_affine(y, weight, bias), dtype)


__all__ = ["batch_norm", "instance_norm", "group_norm", "batch_norm_with_stats",
           "instance_norm_with_stats"]
