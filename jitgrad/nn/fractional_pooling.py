"""torch.nn.functional's fractional max pooling (Graham, 2014) over 2 or 3 spatial dimensions:
fractional_max_pool2d / 3d and their _with_indices forms, with torch's arguments (output_size=
or output_ratio=, return_indices=, _random_samples=).

One sample in [0, 1) per (batch, channel, spatial dim) places the windows: ATen's
generate_intervals, start[i] = int((i + u) * alpha) - int(u * alpha) with
alpha = (size - kernel) / (out - 1), the last window at size - kernel, computed in the input's
float dtype as ATen does. The starts are traced values (the samples may be), the shapes are not;
each output is the first maximum of its window (the whole gradient on it, as torch), its index
the flat spatial position. Without `_random_samples` the samples are drawn from jitgrad's global
generator (torch.rand's role), so inside jit pass them.
"""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp
from ..eager.global_rng import global_rng
from ..numpy.window_extremum import first_extremum, first_extremum_position, take_position
from ..trace.tracer import Tracer
from .conv_nd import ntuple


# spatial dim -> its sample's slot: ATen's 2-d kernel reads (W, H), the 3-d one (T, H, W)
_SAMPLE_OF = {2: (1, 0), 3: (0, 1, 2)}


def _output_size(x, nsp, output_size, output_ratio, where):
    if output_size is not None:
        return ntuple(output_size, nsp, f"{where} output_size", 1)
    if output_ratio is None:
        raise ValueError(f"{where} requires specifying either an output_size or an output_ratio")
    ratio = (tuple(output_ratio) if isinstance(output_ratio, (tuple, list))
             else (output_ratio,) * nsp)
    if len(ratio) != nsp:
        raise ValueError(f"{where}: output_ratio must be one number or {nsp} numbers, got "
                         f"{output_ratio!r}")
    return tuple(int(n * r) for n, r in zip(x.shape[-nsp:], ratio))


def _samples(x, nsp, lead, samples, where):
    """(N, C, nsp) samples for the (N, C) or (C,) `lead`: given, or drawn from the generator."""
    n, c = (1,) + lead if len(lead) == 1 else lead
    if samples is None:
        if isinstance(x, Tracer) and x._concrete is None:
            raise ValueError(f"{where} inside jit needs _random_samples= (a ({n}, {c}, {nsp}) "
                             "tensor of uniform [0, 1) draws)")
        dtype = np.float64 if str(x.dtype) == "float64" else np.float32
        return jnp.asarray(global_rng().random((n, c, nsp)).astype(dtype))
    samples = jnp.asarray(samples)
    if tuple(samples.shape) != (n, c, nsp):
        raise ValueError(f"{where}: _random_samples must have shape {(n, c, nsp)} (batch, "
                         f"channels, {nsp}), got {tuple(samples.shape)}")
    return samples


def _starts(u, size, out, kernel, dtype):
    """ATen's generate_intervals for samples u (N, C): the (N, C, out) int64 window starts."""
    last = jnp.full(tuple(u.shape) + (1,), size - kernel, "int64")
    if out == 1:
        return last
    alpha = np.asarray(size - kernel, dtype) / np.asarray(out - 1, dtype)
    u = jnp.expand_dims(u.astype(dtype), -1)
    i = np.arange(out - 1, dtype=dtype)
    first = jnp.subtract(jnp.floor(jnp.multiply(jnp.add(i, u), alpha)),
                         jnp.floor(jnp.multiply(u, alpha))).astype("int64")
    return jnp.concatenate([first, jnp.broadcast_to(last, tuple(u.shape[:-1]) + (1,))], -1)


def fractional_max_pool_nd(input, kernel_size, output_size, output_ratio, return_indices,
                           samples, nsp, where):
    """torch's fractional_max_pool{nsp}d: (output, flat spatial indices) or the output."""
    x = jnp.asarray(input)
    if x.ndim not in (nsp + 1, nsp + 2):
        raise ValueError(f"{where}: expected a {nsp + 1}D or {nsp + 2}D input ((C, *spatial) or "
                         f"(N, C, *spatial)), got shape {tuple(x.shape)}")
    kernel = ntuple(kernel_size, nsp, f"{where} kernel_size", 1)
    out = _output_size(x, nsp, output_size, output_ratio, where)
    size = tuple(x.shape[-nsp:])
    for d, (n, o, k) in enumerate(zip(size, out, kernel)):
        if o + k - 1 > n:
            raise ValueError(f"{where}: output_size[{d}] + kernel_size[{d}] - 1 = {o + k - 1} is "
                             f"larger than the input's size {n} there")
    lead = tuple(x.shape[:x.ndim - nsp])
    u = _samples(x, nsp, lead, samples, where)
    if len(lead) == 1:
        u = u[0]
    dtype = np.float64 if str(x.dtype) == "float64" else np.float32
    flat_strides = [math.prod(size[d + 1:]) for d in range(nsp)]
    windows, index = x, 0
    for d in range(nsp):
        starts = _starts(u[..., _SAMPLE_OF[nsp][d]], size[d], out[d], kernel[d], dtype)
        taps = jnp.add(jnp.expand_dims(starts, -1), np.arange(kernel[d]))    # lead + (out_d, k_d)
        axis = len(lead) + d
        flat = jnp.reshape(taps, lead + (1,) * d + (out[d] * kernel[d],) + (1,) * (nsp - d - 1))
        windows = jnp.take_along_axis(windows, flat, axis=axis)
        spread = lead + tuple(out[e] if e == d else 1 for e in range(nsp)) + tuple(
            kernel[e] if e == d else 1 for e in range(nsp))
        index = jnp.add(index, jnp.reshape(jnp.multiply(taps, flat_strides[d]), spread))
    split = jnp.reshape(windows, lead + tuple(v for d in range(nsp) for v in (out[d], kernel[d])))
    order = tuple(range(len(lead))) + tuple(len(lead) + 2 * d for d in range(nsp)) + tuple(
        len(lead) + 2 * d + 1 for d in range(nsp))
    windows = jnp.reshape(jnp.transpose(split, order), lead + out + (math.prod(kernel),))
    if not return_indices:
        return first_extremum(windows, -1)
    position = first_extremum_position(windows, -1)
    index = jnp.reshape(jnp.broadcast_to(index, lead + out + kernel), windows.shape)
    return (jnp.reshape(take_position(windows, position), lead + out),
            jnp.reshape(take_position(index, position), lead + out))


def _family(nsp):
    def pool(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
             _random_samples=None):
        return fractional_max_pool_nd(input, kernel_size, output_size, output_ratio,
                                      return_indices, _random_samples, nsp,
                                      f"fractional_max_pool{nsp}d")

    def pool_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
        return fractional_max_pool_nd(input, kernel_size, output_size, output_ratio, True,
                                      _random_samples, nsp,
                                      f"fractional_max_pool{nsp}d_with_indices")

    fns = {}
    for fn, tail in ((pool, ""), (pool_with_indices, "_with_indices")):
        fn.__name__ = fn.__qualname__ = f"fractional_max_pool{nsp}d{tail}"
        fn.__doc__ = (f"torch.nn.functional.{fn.__name__}: the first maximum of each of the "
                      f"output_size (or output_ratio * input size) pseudo-random windows of "
                      f"kernel_size, placed by _random_samples ((N, C, {nsp}) uniform draws; "
                      f"drawn from jitgrad's generator when omitted, so pass them under jit); "
                      + ("always returns (output, flat indices)." if tail else
                         "with return_indices=True also the flat spatial indices."))
        fns[fn.__name__] = fn
    return fns


for _rank in (2, 3):
    globals().update(_family(_rank))

__all__ = [f"fractional_max_pool{n}d{tail}" for n in (2, 3) for tail in ("", "_with_indices")]
