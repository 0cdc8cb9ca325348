"""torch.nn.functional's pools over 1, 2 or 3 spatial dimensions: max (dilation, ceil_mode,
return_indices), avg (ceil_mode, count_include_pad, divisor_override), LP, adaptive avg/max and
max_unpool, as composites (no new primitive).

A fixed window is the stack of the kernel's strided taps of the padded input (padding fills with
-inf for max, 0 for avg), reduced over the stack; the max gives its whole gradient to the first
maximum in scan order, as PyTorch. The plain 2-D cases go to conv.py's tuned max_pool2d and
avg_pool2d. Indices, window counts and adaptive bins are host constants: they depend on shapes
only. Adaptive max pooling gathers each output's (variable) window padded to the largest one.
"""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp
from ..numpy._convert import asarray
from ..numpy.window_extremum import (first_extremum, first_extremum_position,
                                     take_position)
from . import conv
from .conv_nd import ntuple, pad_spatial, window_taps


def _spatial(x, nsp, where):
    x = asarray(x)
    if x.ndim not in (nsp + 1, nsp + 2):
        raise ValueError(f"{where}: expected a {nsp + 1}D or {nsp + 2}D input ((C, *spatial) or "
                         f"(N, C, *spatial)), got shape {tuple(x.shape)}")
    return x


def _geometry(size, nsp, kernel_size, stride, padding, dilation, ceil_mode, where):
    """(kernel, stride, dilation, pads as (low, high), output extents), PyTorch's output size:
    floor or ceil of (L + 2p - d(k - 1) - 1) / s + 1, a last window starting in the padding
    dropped."""
    kernel = ntuple(kernel_size, nsp, f"{where} kernel_size", 1)
    stride = kernel if stride is None or stride == [] or stride == () \
        else ntuple(stride, nsp, f"{where} stride", 1)
    pad = ntuple(padding, nsp, f"{where} padding")
    dilation = ntuple(dilation, nsp, f"{where} dilation", 1)
    if any(2 * p > k for p, k in zip(pad, kernel)):
        raise ValueError(f"{where}: padding {pad} must be at most half the kernel size {kernel}")
    out, pads = [], []
    for n, k, s, p, d in zip(size, kernel, stride, pad, dilation):
        span = n + 2 * p - d * (k - 1) - 1
        o = (span + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (o - 1) * s >= n + p:
            o -= 1
        if span < 0 or o < 1:
            dilated = "" if set(dilation) == {1} else f" dilated by {dilation}"
            padded = "x".join(str(m + 2 * q) for m, q in zip(size, pad))
            raise ValueError(f"{where}: kernel {kernel}{dilated} is larger than the padded "
                             f"input {padded}")
        out.append(o)
        pads.append((p, (o - 1) * s + d * (k - 1) + 1 - n - p))
    return kernel, stride, dilation, pads, tuple(out)


def _stacked(x, geometry, fill):
    kernel, stride, dilation, pads, out = geometry
    return jnp.stack(window_taps(pad_spatial(x, pads, fill), kernel, stride, dilation, out), 0)


def _flat_indices(size, geometry):
    """(K, P): the flat (unpadded) input index each tap of each output window reads."""
    kernel, stride, dilation, pads, out = geometry
    grids = np.meshgrid(*[np.arange(o) for o in out], indexing="ij")
    rows = []
    for tap in np.ndindex(*kernel):
        pos = [g * s - p + t * d for g, s, (p, _), t, d in zip(grids, stride, pads, tap, dilation)]
        clipped = [np.clip(q, 0, n - 1) for q, n in zip(pos, size)]
        rows.append(np.ravel_multi_index(clipped, size).reshape(-1))
    return np.stack(rows)


def _pick_indices(position, table):
    """The flat input index of each window's first maximum, as int64 (torch's indices), from its
    position in the stacked taps (K, N?, C, *out)."""
    per_tap = position.size         # one tap's slab holds every output once, in output order
    tap = jnp.floor_divide(position, per_tap)
    p = table.shape[1]
    return jnp.take(table.reshape(-1), jnp.add(jnp.multiply(tap, p), jnp.remainder(position, p)),
                    mode="promise_in_bounds")


def max_pool_nd(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nsp,
                where):
    """torch's max_pool{nsp}d: the max of each window (padding is -inf)."""
    x = _spatial(input, nsp, where)
    size = tuple(x.shape[-nsp:])
    geometry = _geometry(size, nsp, kernel_size, stride, padding, dilation, ceil_mode, where)
    kernel, stride_, dilation_, pads, out = geometry
    plain = nsp == 2 and x.ndim == 4 and dilation_ == (1, 1) and not ceil_mode
    if plain and not return_indices:
        return conv.max_pool2d(x, kernel, stride_, tuple(p for p, _ in pads))
    stacked = _stacked(x, geometry, -np.inf)
    if not return_indices:
        return first_extremum(stacked, 0)
    position = first_extremum_position(stacked, 0)
    return (take_position(stacked, position),
            _pick_indices(position, _flat_indices(size, geometry)))


def _window_counts(size, geometry, include_pad):
    """How many input (or, with include_pad, input-or-padding) positions each window covers,
    as PyTorch's avg_pool divides: windows are clipped to the padded extent L + 2p."""
    kernel, stride, _, pads, out = geometry
    counts = np.ones((), np.float64)
    for n, k, s, (p, _), o in zip(size, kernel, stride, pads, out):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if not include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, n)
        counts = np.multiply.outer(counts, end - start)
    return counts


def avg_pool_nd(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                divisor_override, nsp, where):
    """torch's avg_pool{nsp}d: window sums over their counts (or divisor_override)."""
    x = _spatial(input, nsp, where)
    size = tuple(x.shape[-nsp:])
    geometry = _geometry(size, nsp, kernel_size, stride, padding, 1, ceil_mode, where)
    kernel, stride_, _, pads, out = geometry
    if nsp == 2 and x.ndim == 4 and not ceil_mode and divisor_override is None:
        return conv.avg_pool2d(x, kernel, stride_, tuple(p for p, _ in pads), count_include_pad)
    total = jnp.sum(_stacked(x, geometry, 0.0), axis=0)
    if divisor_override is not None:
        if divisor_override == 0:
            raise ValueError(f"{where}: divisor_override must be non-zero")
        return jnp.true_divide(total, divisor_override)
    return jnp.true_divide(total, _window_counts(size, geometry, count_include_pad)
                           .astype(np.dtype(x.dtype.name)))


def lp_pool_nd(input, norm_type, kernel_size, stride, ceil_mode, nsp, where):
    """torch's lp_pool{nsp}d: (sum of x^p over each window)^(1/p), computed as PyTorch does
    (an average of x^p times the kernel size); p = inf is the max pool."""
    if norm_type == np.inf:
        return max_pool_nd(input, kernel_size, stride, 0, 1, ceil_mode, False, nsp, where)
    kernel = ntuple(kernel_size, nsp, f"{where} kernel_size", 1)
    avg = avg_pool_nd(jnp.power(asarray(input), norm_type), kernel, stride, 0, ceil_mode, True,
                      None, nsp, where)
    positive = jnp.multiply(jnp.sign(avg), jnp.maximum(jnp.abs(avg), 0))
    return jnp.power(jnp.multiply(positive, math.prod(kernel)), 1.0 / norm_type)


def _adaptive_size(output_size, size, nsp, where):
    out = (output_size,) * nsp if not isinstance(output_size, (tuple, list)) \
        else tuple(output_size)
    if len(out) != nsp or not all(o is None or (isinstance(o, (int, np.integer)) and o > 0)
                                  for o in out):
        raise ValueError(f"{where}: output_size must be a positive int or {nsp} of them (None "
                         f"keeps the input's size), got {output_size!r}")
    if 0 in size:
        raise ValueError(f"{where}: expected non-empty spatial dimensions, got {size}")
    return tuple(n if o is None else int(o) for o, n in zip(out, size))


def adaptive_bins(length, n):
    """PyTorch's adaptive bins: output i covers [floor(i L / n), ceil((i + 1) L / n))."""
    return [((i * length) // n, -((-(i + 1) * length) // n)) for i in range(n)]


def adaptive_avg_pool_nd(input, output_size, nsp, where):
    """torch's adaptive_avg_pool{nsp}d: one averaging matmul per spatial axis."""
    x = _spatial(input, nsp, where)
    size = tuple(x.shape[-nsp:])
    out = _adaptive_size(output_size, size, nsp, where)
    dt = np.dtype(x.dtype.name)
    for i, (n, o) in enumerate(zip(size, out)):
        if n == o:
            continue
        m = np.zeros((n, o), dt)
        for j, (lo, hi) in enumerate(adaptive_bins(n, o)):
            m[lo:hi, j] = 1.0 / (hi - lo)
        ax = x.ndim - nsp + i
        x = jnp.moveaxis(jnp.matmul(jnp.moveaxis(x, ax, -1), m), -1, ax)
    return x


def adaptive_max_pool_nd(input, output_size, return_indices, nsp, where):
    """torch's adaptive_max_pool{nsp}d: each output's window gathered (padded with -inf to the
    largest window), its first maximum taken."""
    x = _spatial(input, nsp, where)
    size = tuple(x.shape[-nsp:])
    out = _adaptive_size(output_size, size, nsp, where)
    bins = [adaptive_bins(n, o) for n, o in zip(size, out)]
    widest = [max(hi - lo for lo, hi in b) for b in bins]
    table = np.zeros(out + tuple(widest), np.int64)
    valid = np.zeros(out + tuple(widest), bool)
    for cell in np.ndindex(*out):
        ranges = [np.arange(*bins[d][c]) for d, c in enumerate(cell)]
        idx = np.ravel_multi_index(np.meshgrid(*ranges, indexing="ij"), size)
        table[cell + tuple(slice(0, len(r)) for r in ranges)] = idx
        valid[cell + tuple(slice(0, len(r)) for r in ranges)] = True
    p, k = math.prod(out), math.prod(widest)
    lead = tuple(x.shape[:x.ndim - nsp])
    flat = jnp.reshape(x, lead + (math.prod(size),))
    windows = jnp.reshape(jnp.take(flat, table.reshape(-1), axis=-1), lead + (p, k))
    windows = jnp.where(valid.reshape(p, k), windows, -np.inf)
    if not return_indices:
        return jnp.reshape(first_extremum(windows, -1), lead + out)
    position = first_extremum_position(windows, -1)       # lead * p * k + window * k + entry
    index = jnp.take(table.reshape(-1), jnp.remainder(position, p * k), mode="promise_in_bounds")
    return (jnp.reshape(take_position(windows, position), lead + out),
            jnp.reshape(index, lead + out))


def max_unpool_nd(input, indices, kernel_size, stride, padding, output_size, nsp, where):
    """torch's max_unpool{nsp}d: zeros with each value written at its flat spatial index (an
    index outside the output plane is dropped)."""
    x, idx = _spatial(input, nsp, where), asarray(indices)
    if tuple(idx.shape) != tuple(x.shape):
        raise ValueError(f"{where}: indices must have the input's shape {tuple(x.shape)}, got "
                         f"{tuple(idx.shape)}")
    kernel = ntuple(kernel_size, nsp, f"{where} kernel_size", 1)
    stride = kernel if stride is None else ntuple(stride, nsp, f"{where} stride", 1)
    pad = ntuple(padding, nsp, f"{where} padding")
    size = tuple(x.shape[-nsp:])
    if output_size is None:
        out = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(size, stride, pad, kernel))
    else:
        out = tuple(int(o) for o in tuple(output_size)[-nsp:])
    lead = tuple(x.shape[:x.ndim - nsp])
    rows, s_out = math.prod(lead), math.prod(out)
    offsets = np.arange(rows, dtype=np.int64).reshape(lead + (1,) * nsp) * s_out
    idx = idx.astype("int64")
    # an index outside its plane is dropped (torch raises; the values are not known under jit),
    # never written into the next plane
    inside = jnp.logical_and(jnp.greater_equal(idx, 0), jnp.less(idx, s_out))
    flat = jnp.reshape(jnp.where(inside, jnp.add(idx, offsets), rows * s_out), (-1,))
    result = jnp.zeros((rows * s_out,), x.dtype).at[flat].set(jnp.reshape(x, (-1,)), mode="drop")
    return jnp.reshape(result, lead + out)


def _family(nsp):
    """The public functions of one rank, with torch's signatures and names."""
    def max_pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                 return_indices=False):
        return max_pool_nd(input, kernel_size, stride, padding, dilation, ceil_mode,
                           return_indices, nsp, f"max_pool{nsp}d")

    def max_pool_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                              ceil_mode=False, return_indices=True):
        return max_pool_nd(input, kernel_size, stride, padding, dilation, ceil_mode, True, nsp,
                           f"max_pool{nsp}d_with_indices")

    def avg_pool(input, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        return avg_pool_nd(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override, nsp, f"avg_pool{nsp}d")

    def lp_pool(input, norm_type, kernel_size, stride=None, ceil_mode=False):
        return lp_pool_nd(input, norm_type, kernel_size, stride, ceil_mode, nsp,
                          f"lp_pool{nsp}d")

    def adaptive_avg_pool(input, output_size):
        return adaptive_avg_pool_nd(input, output_size, nsp, f"adaptive_avg_pool{nsp}d")

    def adaptive_max_pool(input, output_size, return_indices=False):
        return adaptive_max_pool_nd(input, output_size, return_indices, nsp,
                                    f"adaptive_max_pool{nsp}d")

    def adaptive_max_pool_with_indices(input, output_size, return_indices=True):
        return adaptive_max_pool_nd(input, output_size, True, nsp,
                                    f"adaptive_max_pool{nsp}d_with_indices")

    def max_unpool(input, indices, kernel_size, stride=None, padding=0, output_size=None):
        return max_unpool_nd(input, indices, kernel_size, stride, padding, output_size, nsp,
                             f"max_unpool{nsp}d")

    fns = {}
    for fn, name in ((max_pool, "max_pool"), (max_pool_with_indices, "max_pool"),
                     (avg_pool, "avg_pool"), (lp_pool, "lp_pool"),
                     (adaptive_avg_pool, "adaptive_avg_pool"),
                     (adaptive_max_pool, "adaptive_max_pool"),
                     (adaptive_max_pool_with_indices, "adaptive_max_pool"),
                     (max_unpool, "max_unpool")):
        public = f"{name}{nsp}d" + ("_with_indices" if fn.__name__.endswith("indices") else "")
        fn.__name__ = fn.__qualname__ = public
        fn.__doc__ = f"torch.nn.functional.{public}."
        fns[public] = fn
    return fns


for _rank in (1, 2, 3):
    globals().update(_family(_rank))

__all__ = [f"{name}{n}d{tail}" for n in (1, 2, 3) for name, tail in
           (("max_pool", ""), ("max_pool", "_with_indices"), ("avg_pool", ""), ("lp_pool", ""),
            ("adaptive_avg_pool", ""), ("adaptive_max_pool", ""),
            ("adaptive_max_pool", "_with_indices"), ("max_unpool", ""))]
