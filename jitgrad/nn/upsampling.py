"""torch.nn.functional.interpolate / upsample* and the pixel and channel shuffles, with their
modules (Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, PixelShuffle, PixelUnshuffle,
ChannelShuffle).

Every interpolation mode torch has for resizing ('nearest', 'nearest-exact', 'linear',
'bilinear', 'bicubic', 'trilinear', 'area') is separable: each spatial axis is resized by a
matmul with a host (in, out) matrix of PyTorch's source coordinates and weights, so the forward
and its gradient are GEMMs whatever the mode."""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp
from ..numpy._convert import asarray
from .module import Module
from .pooling import adaptive_bins

_LINEAR = {"linear": 1, "bilinear": 2, "trilinear": 3}
_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
_CUBIC_A = -0.75


def _cubic_weights(t):
    """Keys' cubic convolution weights (A = -0.75, PyTorch's) of the 4 taps around t in [0, 1)."""
    a = _CUBIC_A

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], -1)


def _source(out, size, scale, align_corners):
    """PyTorch's source coordinate of each output index of a linear or cubic resize."""
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        return dst * ((size - 1) / (out - 1) if out > 1 else 0.0)
    return (dst + 0.5) * scale - 0.5


def _matrix(mode, size, out, scale, align_corners):
    """(size, out): column j holds the weights output j gives each input position."""
    m = np.zeros((size, out))
    cols = np.arange(out)
    if mode in ("nearest", "nearest-exact"):
        shift = 0.5 if mode == "nearest-exact" else 0.0
        src = np.minimum(np.floor((cols + shift) * scale).astype(np.int64), size - 1)
        m[src, cols] = 1.0
    elif mode == "area":
        for j, (lo, hi) in enumerate(adaptive_bins(size, out)):
            m[lo:hi, j] = 1.0 / (hi - lo)
    elif mode == "bicubic":
        src = _source(out, size, scale, align_corners)
        base = np.floor(src).astype(np.int64)
        w = _cubic_weights(src - base)
        for k in range(4):
            np.add.at(m, (np.clip(base - 1 + k, 0, size - 1), cols), w[:, k])
    else:
        src = np.maximum(_source(out, size, scale, align_corners), 0.0)
        lo = np.minimum(np.floor(src).astype(np.int64), size - 1)
        hi = np.minimum(lo + 1, size - 1)
        frac = src - lo
        np.add.at(m, (lo, cols), 1.0 - frac)
        np.add.at(m, (hi, cols), frac)
    return m


def _sizes(x, nsp, size, scale_factor, recompute_scale_factor):
    """(output sizes, the coordinate scales in/out PyTorch uses)."""
    shape = tuple(x.shape[2:])
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: exactly one of size or scale_factor must be given, got "
                         f"size={size!r}, scale_factor={scale_factor!r}")
    if size is not None:
        out = (size,) * nsp if isinstance(size, (int, np.integer)) else tuple(size)
        if len(out) != nsp:
            raise ValueError(f"interpolate: size must be an int or {nsp} ints for a "
                             f"{x.ndim}-D input, got {size!r}")
        return tuple(int(o) for o in out), tuple(n / o for n, o in zip(shape, out))
    factors = (scale_factor,) * nsp if isinstance(scale_factor, (int, float)) \
        else tuple(scale_factor)
    if len(factors) != nsp:
        raise ValueError(f"interpolate: scale_factor must be a number or {nsp} numbers for a "
                         f"{x.ndim}-D input, got {scale_factor!r}")
    out = tuple(int(math.floor(n * f)) for n, f in zip(shape, factors))
    if recompute_scale_factor:
        return out, tuple(n / o for n, o in zip(shape, out))
    return out, tuple(1.0 / f for f in factors)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """torch.nn.functional.interpolate of an (N, C, *spatial) input with 1 to 3 spatial
    dimensions: 'nearest', 'nearest-exact', 'linear' (3-D), 'bilinear' (4-D), 'bicubic' (4-D),
    'trilinear' (5-D) or 'area' (adaptive average), with PyTorch's coordinates."""
    x = asarray(input)
    if mode not in _MODES:
        raise ValueError(f"interpolate: mode must be one of {', '.join(_MODES)}, got {mode!r}")
    nsp = x.ndim - 2
    if nsp not in (1, 2, 3):
        raise ValueError(f"interpolate: expected a 3-D, 4-D or 5-D input (N, C, *spatial), got "
                         f"shape {tuple(x.shape)}")
    if mode in _LINEAR and _LINEAR[mode] != nsp or mode == "bicubic" and nsp != 2:
        raise ValueError(f"interpolate: mode {mode!r} needs a {(_LINEAR.get(mode, 2)) + 2}-D "
                         f"input, got shape {tuple(x.shape)}")
    smooth = mode in _LINEAR or mode == "bicubic"
    if align_corners is not None and not smooth:
        raise ValueError("interpolate: align_corners only applies to linear, bilinear, bicubic "
                         f"and trilinear modes, got mode {mode!r}")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    out, scales = _sizes(x, nsp, size, scale_factor, recompute_scale_factor)
    dt = np.dtype(x.dtype.name)
    for i, (n, o, s) in enumerate(zip(x.shape[2:], out, scales)):
        if n == o and (s == 1.0 or align_corners or mode == "area"):
            continue        # the identity
        m = _matrix(mode, n, o, s, bool(align_corners)).astype(dt)
        x = jnp.moveaxis(jnp.matmul(jnp.moveaxis(x, 2 + i, -1), m), -1, 2 + i)
    return x


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """torch.nn.functional.upsample: the deprecated name of interpolate."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """torch.nn.functional.upsample_nearest: interpolate(mode='nearest')."""
    return interpolate(input, size, scale_factor, "nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """torch.nn.functional.upsample_bilinear: bilinear with align_corners=True."""
    return interpolate(input, size, scale_factor, "bilinear", True)


def pixel_shuffle(input, upscale_factor):
    """torch.nn.functional.pixel_shuffle: (*, C r^2, H, W) -> (*, C, H r, W r)."""
    x, r = asarray(input), int(upscale_factor)
    if x.ndim < 3 or x.shape[-3] % (r * r):
        raise ValueError(f"pixel_shuffle: expected (*, C * {r}^2, H, W), got shape "
                         f"{tuple(x.shape)}")
    *lead, c, h, w = x.shape
    lead = tuple(lead)
    y = jnp.reshape(x, lead + (c // (r * r), r, r, h, w))
    k = len(lead)
    y = jnp.transpose(y, tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return jnp.reshape(y, lead + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """torch.nn.functional.pixel_unshuffle: (*, C, H r, W r) -> (*, C r^2, H, W)."""
    x, r = asarray(input), int(downscale_factor)
    if x.ndim < 3 or x.shape[-1] % r or x.shape[-2] % r:
        raise ValueError(f"pixel_unshuffle: expected (*, C, H * {r}, W * {r}), got shape "
                         f"{tuple(x.shape)}")
    *lead, c, h, w = x.shape
    lead, k = tuple(lead), len(lead)
    y = jnp.reshape(x, lead + (c, h // r, r, w // r, r))
    y = jnp.transpose(y, tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return jnp.reshape(y, lead + (c * r * r, h // r, w // r))


def channel_shuffle(input, groups):
    """torch.nn.functional.channel_shuffle: (N, g * k, *) -> channels interleaved across the
    g groups."""
    x, g = asarray(input), int(groups)
    if x.ndim < 3 or g < 1 or x.shape[1] % g:
        raise ValueError(f"channel_shuffle: expected (N, C, *) with C divisible by groups={g}, "
                         f"got shape {tuple(x.shape)}")
    n, c = x.shape[:2]
    rest = tuple(x.shape[2:])
    y = jnp.swapaxes(jnp.reshape(x, (n, g, c // g) + rest), 1, 2)
    return jnp.reshape(y, (n, c) + rest)


native_channel_shuffle = channel_shuffle


class Upsample(Module):
    """torch.nn.Upsample(size, scale_factor, mode='nearest', align_corners,
    recompute_scale_factor)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def forward(self, x):
        return interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                           self.recompute_scale_factor)

    def extra_repr(self):
        what = f"scale_factor={self.scale_factor}" if self.size is None else f"size={self.size}"
        return f"{what}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """torch.nn.UpsamplingNearest2d: Upsample(mode='nearest')."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, "nearest")


class UpsamplingBilinear2d(Upsample):
    """torch.nn.UpsamplingBilinear2d: Upsample(mode='bilinear', align_corners=True)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, "bilinear", True)


class PixelShuffle(Module):
    """torch.nn.PixelShuffle(upscale_factor)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = int(upscale_factor)

    def forward(self, x):
        return pixel_shuffle(x, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """torch.nn.PixelUnshuffle(downscale_factor)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = int(downscale_factor)

    def forward(self, x):
        return pixel_unshuffle(x, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """torch.nn.ChannelShuffle(groups)."""

    def __init__(self, groups):
        super().__init__()
        self.groups = int(groups)

    def forward(self, x):
        return channel_shuffle(x, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "Upsample",
           "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle",
           "ChannelShuffle"]
