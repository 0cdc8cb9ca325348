"""torch.nn's RMSNorm, LocalResponseNorm and CrossMapLRN2d with their functional forms
rms_norm and local_response_norm, as composites of primitives."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..dtypes import default_float
from ..numpy._convert import asarray
from ..numpy.half_compute import narrowed, widened
from .module import Module, Parameter


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """torch.nn.functional.rms_norm: x / sqrt(mean(x^2) + eps) over the trailing
    `normalized_shape` dimensions, times weight; eps defaults to the dtype's machine epsilon."""
    x = asarray(input)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(x.shape[x.ndim - len(shape):]) != shape:
        raise ValueError(f"rms_norm: expected an input whose trailing dimensions are {shape}, "
                         f"got shape {tuple(x.shape)}")
    eps = float(np.finfo(np.dtype(x.dtype.name)).eps) if eps is None else eps
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    (x, weight), dtype = widened(x, weight)      # float16/bfloat16: in float32, rounded once
    y = jnp.multiply(x, jnp.rsqrt(jnp.add(jnp.mean(jnp.multiply(x, x), axis=axes,
                                                   keepdims=True), eps)))
    return narrowed(y if weight is None else jnp.multiply(y, weight), dtype)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """torch.nn.functional.local_response_norm: x / (k + alpha * mean of x^2 over `size`
    neighbouring channels (zero padded))^beta, over (N, C, *)."""
    x = asarray(input)
    if x.ndim < 3:
        raise ValueError(f"local_response_norm: expected an input of 3 or more dimensions, got "
                         f"shape {tuple(x.shape)}")
    sq = jnp.multiply(x, x)
    c = x.shape[1]
    widths = [(0, 0)] * x.ndim
    widths[1] = (size // 2, (size - 1) // 2)
    sq = jnp.pad(sq, widths)
    total = None
    for i in range(size):
        part = sq[:, i:i + c]
        total = part if total is None else jnp.add(total, part)
    div = jnp.power(jnp.add(jnp.multiply(total, alpha / size), k), beta)
    return jnp.true_divide(x, div)


class RMSNorm(Module):
    """torch.nn.RMSNorm(normalized_shape, eps=None, elementwise_affine=True)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) \
            else tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.elementwise_affine = elementwise_affine
        self.register_parameter("weight", Parameter(np.ones(shape, dtype or default_float()))
                                if elementwise_affine else None)

    def forward(self, x):
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """torch.nn.LocalResponseNorm(size, alpha=1e-4, beta=0.75, k=1.0)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, x):
        return local_response_norm(x, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _cross_map_windows(channels, size):
    """(C, C): which channels' squares Lua Torch's CrossMapLRN2d sums for each channel, by its
    running-sum recurrence (channel 0 is never taken out again, as in PyTorch)."""
    pre = int((size - 1) / 2 + 1)
    m = np.zeros((channels, channels))
    m[0, :min(pre, channels)] = 1
    for c in range(1, channels):
        m[c] = m[c - 1]
        if c < channels - pre + 1:
            m[c, c + pre - 1] += 1
        if c > pre:
            m[c, c - pre] -= 1
    return m


class CrossMapLRN2d(LocalResponseNorm):
    """torch.nn.CrossMapLRN2d: Lua Torch's cross-channel LRN of a 4-D input,
    x * (k + alpha / size * windowed sum of x^2)^-beta with its running-sum windows."""

    def forward(self, x):
        x = asarray(x)
        if x.ndim != 4:
            raise ValueError(f"CrossMapLRN2d: expected a 4-D input, got shape {tuple(x.shape)}")
        m = _cross_map_windows(x.shape[1], self.size).astype(np.dtype(x.dtype.name))
        sums = jnp.moveaxis(jnp.matmul(jnp.moveaxis(jnp.multiply(x, x), 1, -1), m.T), -1, 1)
        scale = jnp.add(jnp.multiply(sums, self.alpha / self.size), self.k)
        return jnp.multiply(x, jnp.power(scale, -self.beta))


__all__ = ["rms_norm", "local_response_norm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"]
