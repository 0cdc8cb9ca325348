"""2-D convolution and pooling over NCHW tensors, as decompositions into primitives.

A k x k window op reads k*k strided slices of the padded input, one per kernel offset. Pooling
combines them elementwise (max/add: one fusible chain); convolution stacks them into columns
(im2col) and does one matmul. Slices, pads and matmuls all have VJP rules, so these layers
differentiate, fuse and compile like any other graph.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .. import numpy as jnp
from ..numpy._convert import asarray
from . import init
from .module import Module, Parameter


def _pair(v, name):
    pair = (v, v) if isinstance(v, (int, np.integer)) else tuple(v)
    if len(pair) != 2 or not all(isinstance(i, (int, np.integer)) and i >= 0 for i in pair):
        raise ValueError(f"{name}: expected a non-negative int or a pair of them, got {v!r}")
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


def _windows(x, kernel, stride, pads, fill, where):
    """The kernel-offset slices of padded x, each (N, C, OH, OW), in (ki, kj) row-major order."""
    (kh, kw), (sh, sw) = kernel, stride
    if pads != ((0, 0), (0, 0)):
        x = jnp.pad(x, ((0, 0), (0, 0)) + pads, constant_values=fill)
    h, w = x.shape[2], x.shape[3]
    if h < kh or w < kw:
        raise ValueError(f"{where}: kernel {kernel} is larger than the padded input "
                         f"{h}x{w}")
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    return [x[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]
            for i in range(kh) for j in range(kw)]


def conv2d(x, weight, bias=None, stride=1, padding=0):
    """x (N, C, H, W) * weight (O, C, KH, KW) [+ bias (O,)] -> (N, O, OH, OW) (cross-correlation,
    as torch.nn.functional.conv2d); padding is an int, a pair, 'valid' or 'same'."""
    x, weight = _check_nchw(x, "conv2d"), asarray(weight)
    if weight.ndim != 4 or weight.shape[1] != x.shape[1]:
        raise ValueError(f"conv2d: input has {x.shape[1]} channels, so the weight must have shape "
                         f"(out_channels, {x.shape[1]}, kh, kw), got {tuple(weight.shape)}")
    out_c, in_c, kh, kw = weight.shape
    stride = _pair(stride, "conv2d stride")
    cols = _windows(x, (kh, kw), stride, _padding(padding, (kh, kw), stride, "conv2d"), 0.0, "conv2d")
    n, _, oh, ow = cols[0].shape
    # (N, C, OH, OW, K) -> rows (N*OH*OW) of C*K features, matching weight.reshape(O, C*K)
    cols = jnp.transpose(jnp.stack(cols, axis=-1), (0, 2, 3, 1, 4))
    out = jnp.matmul(jnp.reshape(cols, (n * oh * ow, in_c * kh * kw)),
                     jnp.transpose(jnp.reshape(weight, (out_c, in_c * kh * kw))))
    if bias is not None:
        out = jnp.add(out, bias)
    return jnp.transpose(jnp.reshape(out, (n, oh, ow, out_c)), (0, 3, 1, 2))


def _pool_args(kernel_size, stride, padding, where):
    kernel = _pair(kernel_size, f"{where} kernel_size")
    stride = kernel if stride is None else _pair(stride, f"{where} stride")
    pad = _pair(padding, f"{where} padding")
    if any(2 * p > k for p, k in zip(pad, kernel)):
        raise ValueError(f"{where}: padding {pad} must be at most half the kernel size {kernel}")
    return kernel, stride, tuple((p, p) for p in pad)


def max_pool2d(x, kernel_size, stride=None, padding=0):
    """Max over k x k windows (stride defaults to the kernel size; padding counts as -inf)."""
    x = _check_nchw(x, "max_pool2d")
    kernel, stride, pads = _pool_args(kernel_size, stride, padding, "max_pool2d")
    return functools.reduce(jnp.maximum, _windows(x, kernel, stride, pads, -np.inf, "max_pool2d"))


def avg_pool2d(x, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Mean over k x k windows; with count_include_pad=False padded zeros are not counted."""
    x = _check_nchw(x, "avg_pool2d")
    kernel, stride, pads = _pool_args(kernel_size, stride, padding, "avg_pool2d")
    total = functools.reduce(jnp.add, _windows(x, kernel, stride, pads, 0.0, "avg_pool2d"))
    if count_include_pad or pads == ((0, 0), (0, 0)):
        return jnp.true_divide(total, math.prod(kernel))
    ones = np.ones((1, 1) + tuple(x.shape[2:]), dtype=x.dtype)
    counts = functools.reduce(np.add, [np.asarray(w) for w in _windows(
        jnp.asarray(ones), kernel, stride, pads, 0.0, "avg_pool2d")])
    return jnp.true_divide(total, counts)


class Conv2d(Module):
    """2-D convolution over NCHW input with PyTorch's default initialization
    (weight and bias uniform in +-1/sqrt(in_channels * kh * kw))."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, bias=True):
        super().__init__()
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size = _pair(kernel_size, "Conv2d kernel_size")
        self.stride = _pair(stride, "Conv2d stride")
        self.padding = padding if isinstance(padding, str) else _pair(padding, "Conv2d padding")
        _padding(self.padding, self.kernel_size, self.stride, "Conv2d")   # validate now
        shape = (self.out_channels, self.in_channels) + self.kernel_size
        self.weight = Parameter(np.empty(shape, np.float32))
        self.register_parameter("bias", Parameter(np.empty(out_channels, np.float32)) if bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(init.fan_in_and_fan_out(self.weight)[0])
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x):
        return conv2d(x, self.weight, self.bias, self.stride, self.padding)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding not in ((0, 0), "valid"):
            s += f", padding={self.padding!r}" if isinstance(self.padding, str) else f", padding={self.padding}"
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
