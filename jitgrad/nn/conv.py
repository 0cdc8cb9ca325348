"""2-D convolution and pooling over NCHW tensors, as decompositions into primitives.

A k x k window op pads the input and gathers every window with ONE `take` of precomputed flat
indices (im2col). Convolution multiplies the columns by the reshaped weight (one matmul);
pooling reduces over the window axis. take, pad, reshape and matmul all have VJP rules (take's
is a scatter_add), so these layers differentiate, fuse and compile like any other graph, and a
conv layer costs a handful of nodes (k*k strided slices would cost k*k nodes, and their
gradient k*k pads).
"""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp
from ..dtypes import default_float
from ..numpy._convert import asarray
from . import init
from .module import Module, Parameter


def _pair(v, name, least=0):
    """(a, b) from an int or a pair of ints, each at least `least`."""
    pair = (v, v) if isinstance(v, (int, np.integer)) else tuple(v)
    if len(pair) != 2 or not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool)
                                 and i >= least for i in pair):
        what = "a non-negative" if least == 0 else "a positive"
        raise ValueError(f"{name}: expected {what} int or a pair of them, got {v!r}")
    return tuple(int(i) for i in pair)


def _padding(padding, kernel, stride, where):
    """((top, bottom), (left, right)); 'same' pads asymmetrically for even kernels, as PyTorch."""
    if padding == "valid":
        return (0, 0), (0, 0)
    if padding == "same":
        if stride != (1, 1):
            raise ValueError(f"{where}: padding='same' needs stride 1, got stride={stride}")
        return tuple(((k - 1) // 2, k - 1 - (k - 1) // 2) for k in kernel)
    return tuple((p, p) for p in _pair(padding, f"{where} padding"))


def _check_nchw(x, where):
    x = asarray(x)
    if x.ndim != 4:
        raise ValueError(f"{where}: expected an NCHW input of rank 4, got shape {tuple(x.shape)}")
    return x


def _window_index(shape, kernel, stride, channels_last, where):
    """Flat indices that gather the windows of a (C, H, W) image (already padded):
    (OH, OW, C, K) into the flattened image when channels_last, else (OH, OW, K) into one
    flattened channel; K runs over kernel offsets (ki, kj) row-major."""
    c, h, w = shape
    (kh, kw), (sh, sw) = kernel, stride
    if h < kh or w < kw:
        raise ValueError(f"{where}: kernel {kernel} is larger than the padded input {h}x{w}")
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    rows = (np.arange(oh) * sh)[:, None, None, None] + np.arange(kh)[None, None, :, None]
    cols = (np.arange(ow) * sw)[None, :, None, None] + np.arange(kw)[None, None, None, :]
    idx = (rows * w + cols).reshape(oh, ow, kh * kw)
    if channels_last:
        idx = idx[:, :, None, :] + (np.arange(c) * h * w)[None, None, :, None]
    return idx


def _pad(x, pads, fill):
    return x if pads == ((0, 0), (0, 0)) else jnp.pad(x, ((0, 0), (0, 0)) + pads,
                                                       constant_values=fill)


def _windows(x, kernel, stride, pads, fill, where):
    """(N, C, OH, OW, K): every k x k window of padded x, gathered by one take."""
    x = _pad(x, pads, fill)
    n, c, h, w = x.shape
    idx = _window_index((c, h, w), kernel, stride, False, where)
    return jnp.take(jnp.reshape(x, (n, c, h * w)), idx, axis=2)


def conv2d(x, weight, bias=None, stride=1, padding=0):
    """x (N, C, H, W) * weight (O, C, KH, KW) [+ bias (O,)] -> (N, O, OH, OW) (cross-correlation,
    as torch.nn.functional.conv2d); padding is an int, a pair, 'valid' or 'same'."""
    x, weight = _check_nchw(x, "conv2d"), asarray(weight)
    if weight.ndim != 4 or weight.shape[1] != x.shape[1]:
        raise ValueError(f"conv2d: input has {x.shape[1]} channels, so the weight must have shape "
                         f"(out_channels, {x.shape[1]}, kh, kw), got {tuple(weight.shape)}")
    out_c, in_c, kh, kw = weight.shape
    stride = _pair(stride, "conv2d stride", 1)
    x = _pad(x, _padding(padding, (kh, kw), stride, "conv2d"), 0.0)
    n, _, h, w = x.shape
    idx = _window_index((in_c, h, w), (kh, kw), stride, True, "conv2d")
    oh, ow = idx.shape[:2]
    # rows (N*OH*OW) of C*K features, matching weight.reshape(O, C*K)
    cols = jnp.reshape(jnp.take(jnp.reshape(x, (n, in_c * h * w)), idx, axis=1),
                       (n * oh * ow, in_c * kh * kw))
    out = jnp.matmul(cols, jnp.transpose(jnp.reshape(weight, (out_c, in_c * kh * kw))))
    if bias is not None:
        out = jnp.add(out, bias)
    return jnp.transpose(jnp.reshape(out, (n, oh, ow, out_c)), (0, 3, 1, 2))


def _pool_args(kernel_size, stride, padding, where):
    kernel = _pair(kernel_size, f"{where} kernel_size", 1)
    stride = kernel if stride is None else _pair(stride, f"{where} stride", 1)
    pad = _pair(padding, f"{where} padding")
    if any(2 * p > k for p, k in zip(pad, kernel)):
        raise ValueError(f"{where}: padding {pad} must be at most half the kernel size {kernel}")
    return kernel, stride, tuple((p, p) for p in pad)


def max_pool2d(x, kernel_size, stride=None, padding=0):
    """Max over k x k windows (stride defaults to the kernel size; padding counts as -inf)."""
    x = _check_nchw(x, "max_pool2d")
    kernel, stride, pads = _pool_args(kernel_size, stride, padding, "max_pool2d")
    return jnp.max(_windows(x, kernel, stride, pads, -np.inf, "max_pool2d"), axis=-1)


def avg_pool2d(x, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Mean over k x k windows; with count_include_pad=False padded zeros are not counted."""
    x = _check_nchw(x, "avg_pool2d")
    kernel, stride, pads = _pool_args(kernel_size, stride, padding, "avg_pool2d")
    total = jnp.sum(_windows(x, kernel, stride, pads, 0.0, "avg_pool2d"), axis=-1)
    if count_include_pad or pads == ((0, 0), (0, 0)):
        return jnp.true_divide(total, math.prod(kernel))
    # how many real (unpadded) pixels each window covers, from the same index
    h, w = x.shape[2] + sum(pads[0]), x.shape[3] + sum(pads[1])
    real = np.pad(np.ones(x.shape[2:], x.dtype), pads).reshape(-1)
    counts = real[_window_index((1, h, w), kernel, stride, False, "avg_pool2d")].sum(-1)
    return jnp.true_divide(total, counts)


class Conv2d(Module):
    """2-D convolution over NCHW input with PyTorch's default initialization
    (weight and bias uniform in +-1/sqrt(in_channels * kh * kw))."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, bias=True):
        super().__init__()
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size = _pair(kernel_size, "Conv2d kernel_size", 1)
        self.stride = _pair(stride, "Conv2d stride", 1)
        self.padding = padding if isinstance(padding, str) else _pair(padding, "Conv2d padding")
        _padding(self.padding, self.kernel_size, self.stride, "Conv2d")   # validate now
        shape = (self.out_channels, self.in_channels) + self.kernel_size
        self.weight = Parameter(np.empty(shape, default_float()))
        self.register_parameter("bias", Parameter(np.empty(out_channels, default_float()))
                                if bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(init.fan_in_and_fan_out(self.weight)[0])
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x):
        return conv2d(x, self.weight, self.bias, self.stride, self.padding)

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding not in ((0, 0), "valid"):
            s += f", padding={self.padding!r}"
        return s + ("" if self.bias is not None else ", bias=False")


class _Pool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding
        _pool_args(kernel_size, stride, padding, type(self).__name__)   # validate now

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool2d(_Pool2d):
    def forward(self, x):
        return max_pool2d(x, self.kernel_size, self.stride, self.padding)


class AvgPool2d(_Pool2d):
    def __init__(self, kernel_size, stride=None, padding=0, count_include_pad=True):
        super().__init__(kernel_size, stride, padding)
        self.count_include_pad = count_include_pad

    def forward(self, x):
        return avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.count_include_pad)


__all__ = ["conv2d", "max_pool2d", "avg_pool2d", "Conv2d", "MaxPool2d", "AvgPool2d"]
