"""N-d convolution for torch.nn.functional's conv1d, conv3d, conv_transpose1d/2d/3d and conv_tbc.

1-D and 2-D convolutions go through conv2d (conv.py: one GEMM over contiguous runs), a 1-D input
as an image one row high; 3-D stacks the kernel's strided taps (no gather) and contracts them
with the weight in one batched matmul per group. A transposed convolution is the convolution
whose input gradient it is: the input dilated by the stride (zeros between samples), padded by
dilation * (k - 1) - padding (+ output_padding at the end), against the flipped kernel with its
in/out axes swapped per group.
"""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp
from ..numpy._convert import asarray
from .conv import conv2d


def ntuple(v, n, name, least=0):
    """n ints from an int or n of them, each at least `least`."""
    t = (v,) * n if isinstance(v, (int, np.integer)) else tuple(v)
    if len(t) != n or not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool)
                              and i >= least for i in t):
        raise ValueError(f"{name}: expected an int >= {least} or {n} of them, got {v!r}")
    return tuple(int(i) for i in t)


def pad_spatial(x, pads, value=0.0):
    """x padded on its trailing len(pads) axes by (low, high) pairs; negative amounts crop."""
    lead = x.ndim - len(pads)
    crop = (slice(None),) * lead + tuple(slice(max(-lo, 0), x.shape[lead + i] - max(-hi, 0))
                                         for i, (lo, hi) in enumerate(pads))
    x = x[crop]
    widths = [(0, 0)] * lead + [(max(lo, 0), max(hi, 0)) for lo, hi in pads]
    return jnp.pad(x, widths, constant_values=value) if any(map(any, widths)) else x


def dilate(x, factors):
    """Insert factor - 1 zeros between the samples of each trailing axis."""
    lead = x.ndim - len(factors)
    for i, s in enumerate(factors):
        if s == 1:
            continue
        ax = lead + i
        n = x.shape[ax]
        zeros = jnp.zeros(tuple(x.shape[:ax + 1]) + (s - 1,) + tuple(x.shape[ax + 1:]), x.dtype)
        z = jnp.concatenate([jnp.expand_dims(x, ax + 1), zeros], axis=ax + 1)
        z = jnp.reshape(z, tuple(x.shape[:ax]) + (n * s,) + tuple(x.shape[ax + 1:]))
        x = z[(slice(None),) * ax + (slice(0, (n - 1) * s + 1),)]
    return x


def out_size(size, kernel, stride, dilation, where):
    """Output extents of a window op over padded `size`; an error if a kernel does not fit."""
    out = []
    for n, k, s, d in zip(size, kernel, stride, dilation):
        extent = d * (k - 1) + 1
        if n < extent:
            raise ValueError(f"{where}: kernel {tuple(kernel)} (dilation {tuple(dilation)}) is "
                             f"larger than the padded input {tuple(size)}")
        out.append((n - extent) // s + 1)
    return tuple(out)


def window_taps(x, kernel, stride, dilation, out):
    """The prod(kernel) strided slices of x's trailing axes, one per kernel tap (row-major),
    each of extent `out`."""
    lead = (slice(None),) * (x.ndim - len(kernel))
    taps = []
    for tap in np.ndindex(*kernel):
        taps.append(x[lead + tuple(slice(t * d, t * d + s * (o - 1) + 1, s)
                                   for t, s, d, o in zip(tap, stride, dilation, out))])
    return taps


def conv_padding(padding, kernel, stride, dilation, where):
    """torch's conv padding as (low, high) per axis from an int, ints, 'valid' or 'same' (the
    odd extra at the end)."""
    n = len(kernel)
    if padding == "valid":
        return [(0, 0)] * n
    if padding == "same":
        if any(s != 1 for s in stride):
            raise ValueError(f"{where}: padding='same' needs stride 1, got stride={stride}")
        total = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return [(t // 2, t - t // 2) for t in total]
    if isinstance(padding, str):
        raise ValueError(f"{where}: padding must be 'valid', 'same' or ints, got {padding!r}")
    return [(p, p) for p in ntuple(padding, n, f"{where} padding")]


def _batched(x, nsp, where):
    """(x with a batch axis, whether it was added): torch accepts unbatched (C, *spatial)."""
    x = asarray(x)
    if x.ndim == nsp + 1:
        return x[None], True
    if x.ndim != nsp + 2:
        raise ValueError(f"{where}: expected a {nsp + 1}-D (unbatched) or {nsp + 2}-D (batched) "
                         f"input, got shape {tuple(x.shape)}")
    return x, False


def _conv_taps(x, w, stride, dilation, groups):
    """(N, C, *S) padded x (O, C/g, *K) -> (N, O, *out) by stacked taps and a batched matmul."""
    n, c = x.shape[:2]
    o, ci = w.shape[:2]
    kernel = tuple(w.shape[2:])
    k = math.prod(kernel)
    out = out_size(tuple(x.shape[2:]), kernel, stride, dilation, "conv")
    p = math.prod(out)
    taps = window_taps(x, kernel, stride, dilation, out)
    cols = jnp.stack(taps, axis=2)                                     # (N, C, K, *out)
    cols = jnp.reshape(cols, (n, groups, ci * k, p))
    y = jnp.matmul(jnp.reshape(w, (groups, o // groups, ci * k)), cols)  # (N, G, O/G, P)
    return jnp.reshape(y, (n, o) + out)


def conv_nd(input, weight, bias, stride, padding, dilation, groups, nsp, where):
    """torch's conv{nsp}d: cross-correlation of (N, C, *S) (or unbatched) with (O, C/g, *K)."""
    x, unbatched = _batched(input, nsp, where)
    w = asarray(weight)
    if not isinstance(groups, (int, np.integer)) or groups < 1 or x.shape[1] % groups:
        raise ValueError(f"{where}: groups must be a positive int dividing the input's "
                         f"{x.shape[1]} channels, got groups={groups!r}")
    if w.ndim != nsp + 2 or w.shape[1] != x.shape[1] // groups or w.shape[0] % groups:
        raise ValueError(f"{where}: input has {x.shape[1]} channels in {groups} group(s), so the "
                         f"weight must have shape (out_channels, {x.shape[1] // groups}, "
                         f"{', '.join('k' * nsp)}) with out_channels a multiple of {groups}, got "
                         f"{tuple(w.shape)}")
    kernel = tuple(w.shape[2:])
    stride = ntuple(stride, nsp, f"{where} stride", 1)
    dilation = ntuple(dilation, nsp, f"{where} dilation", 1)
    x = pad_spatial(x, conv_padding(padding, kernel, stride, dilation, where))
    if nsp <= 2:
        lift = (lambda a: a) if nsp == 2 else (lambda a: jnp.expand_dims(a, 2))
        one = () if nsp == 2 else (1,)
        y = conv2d(lift(x), lift(w), None, one + stride, 0, one + dilation, groups)
        y = y if nsp == 2 else y[:, :, 0]
    else:
        y = _conv_taps(x, w, stride, dilation, groups)
    if bias is not None:
        y = jnp.add(y, jnp.reshape(asarray(bias), (-1,) + (1,) * nsp))
    return y[0] if unbatched else y


def conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation,
                      nsp, where):
    """torch's conv_transpose{nsp}d: weight (C_in, C_out/g, *K); the gradient of conv{nsp}d
    with respect to its input."""
    x, unbatched = _batched(input, nsp, where)
    w = asarray(weight)
    c = x.shape[1]
    if not isinstance(groups, (int, np.integer)) or groups < 1 or c % groups:
        raise ValueError(f"{where}: groups must be a positive int dividing the input's {c} "
                         f"channels, got groups={groups!r}")
    if w.ndim != nsp + 2 or w.shape[0] != c:
        raise ValueError(f"{where}: expected a weight of shape ({c}, out_channels/groups, "
                         f"{', '.join('k' * nsp)}), got {tuple(w.shape)}")
    kernel = tuple(w.shape[2:])
    stride = ntuple(stride, nsp, f"{where} stride", 1)
    pad = ntuple(padding, nsp, f"{where} padding")
    out_pad = ntuple(output_padding, nsp, f"{where} output_padding")
    dilation = ntuple(dilation, nsp, f"{where} dilation", 1)
    if any(op >= max(s, d) for op, s, d in zip(out_pad, stride, dilation)):
        raise ValueError(f"{where}: output_padding {out_pad} must be smaller than either stride "
                         f"{stride} or dilation {dilation}")
    x = dilate(x, stride)
    x = pad_spatial(x, [(d * (k - 1) - p, d * (k - 1) - p + op)
                        for k, d, p, op in zip(kernel, dilation, pad, out_pad)])
    co = w.shape[1]
    wt = jnp.reshape(w, (groups, c // groups, co) + kernel)
    wt = jnp.swapaxes(wt, 1, 2)
    wt = jnp.flip(jnp.reshape(wt, (groups * co, c // groups) + kernel),
                  axis=tuple(range(2, nsp + 2)))
    y = conv_nd(x, wt, bias, 1, 0, dilation, groups, nsp, where)
    return y[0] if unbatched else y


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv1d: (N, C, L) (or (C, L)) with weight (O, C/groups, K)."""
    return conv_nd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv3d: (N, C, D, H, W) with weight (O, C/groups, KD, KH, KW)."""
    return conv_nd(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """torch.nn.functional.conv_transpose1d: weight (C_in, C_out/groups, K)."""
    return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 1, "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """torch.nn.functional.conv_transpose2d: weight (C_in, C_out/groups, KH, KW)."""
    return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 2, "conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """torch.nn.functional.conv_transpose3d: weight (C_in, C_out/groups, KD, KH, KW)."""
    return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 3, "conv_transpose3d")


def conv_tbc(input, weight, bias, pad=0):
    """torch.conv_tbc: a 1-D convolution of a (time, batch, channels) input with weight
    (K, C_in, C_out) and bias (C_out,), padded by `pad` on both ends of time."""
    x = jnp.transpose(asarray(input), (1, 2, 0))                      # (B, C, T)
    w = jnp.transpose(asarray(weight), (2, 1, 0))                     # (O, C, K)
    return jnp.transpose(conv1d(x, w, bias, 1, pad), (2, 0, 1))


__all__ = ["conv1d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           "conv_tbc", "conv_nd", "conv_padding", "conv_transpose_nd", "ntuple", "pad_spatial",
           "dilate",
           "out_size", "window_taps"]
