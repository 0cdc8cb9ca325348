"""2-D convolution and pooling over NCHW tensors, as decompositions into primitives.

A k x k window op pads the input and gathers every window with ONE `take` of precomputed flat
indices (im2col). Convolution multiplies the columns by the reshaped weight (one matmul);
pooling reduces over the window axis. Dilation spaces the gathered taps; groups split the
columns by channel group and multiply them by a batched matmul (depthwise is groups == C).
Adaptive average pooling is two matmuls with PyTorch's bins. take, pad, reshape and matmul all
have VJP rules (take's is a scatter_add), so these layers differentiate, fuse and compile like
any other graph, and a conv layer costs a handful of nodes (k*k strided slices would cost k*k
nodes, and their gradient k*k pads).
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


def _padding(padding, kernel, stride, where, dilation=(1, 1)):
    """((top, bottom), (left, right)); 'same' pads asymmetrically for even kernels, as PyTorch."""
    if padding == "valid":
        return (0, 0), (0, 0)
    if padding == "same":
        if stride != (1, 1):
            raise ValueError(f"{where}: padding='same' needs stride 1, got stride={stride}")
        total = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return tuple((t // 2, t - t // 2) for t in total)
    return tuple((p, p) for p in _pair(padding, f"{where} padding"))


def _check_nchw(x, where):
    x = asarray(x)
    if x.ndim != 4:
        raise ValueError(f"{where}: expected an NCHW input of rank 4, got shape {tuple(x.shape)}")
    return x


def _window_index(shape, kernel, stride, channels_last, where, dilation=(1, 1)):
    """Flat indices that gather the windows of a (C, H, W) image (already padded):
    (OH, OW, C, K) into the flattened image when channels_last, else (OH, OW, K) into one
    flattened channel; K runs over kernel offsets (ki, kj) row-major, `dilation` apart."""
    c, h, w = shape
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    eh, ew = dh * (kh - 1) + 1, dw * (kw - 1) + 1      # the dilated kernel's extent
    if h < eh or w < ew:
        extent = kernel if (dh, dw) == (1, 1) else f"{kernel} dilated to {(eh, ew)}"
        raise ValueError(f"{where}: kernel {extent} is larger than the padded input {h}x{w}")
    oh, ow = (h - eh) // sh + 1, (w - ew) // sw + 1
    rows = (np.arange(oh) * sh)[:, None, None, None] + (np.arange(kh) * dh)[None, None, :, None]
    cols = (np.arange(ow) * sw)[None, :, None, None] + (np.arange(kw) * dw)[None, None, None, :]
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


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """x (N, C, H, W) * weight (O, C/groups, KH, KW) [+ bias (O,)] -> (N, O, OH, OW)
    (cross-correlation, as torch.nn.functional.conv2d); padding is an int, a pair, 'valid' or
    'same'; `dilation` spaces the kernel taps; `groups` splits channels into independent
    convolutions (groups == C with O == k*C is depthwise)."""
    x, weight = _check_nchw(x, "conv2d"), asarray(weight)
    if not isinstance(groups, (int, np.integer)) or groups < 1 or x.shape[1] % groups:
        raise ValueError(f"conv2d: groups must be a positive int dividing the input's "
                         f"{x.shape[1]} channels, got groups={groups!r}")
    in_c = x.shape[1] // groups
    if weight.ndim != 4 or weight.shape[1] != in_c or weight.shape[0] % groups:
        raise ValueError(f"conv2d: input has {x.shape[1]} channels in {groups} group(s), so the "
                         f"weight must have shape (out_channels, {in_c}, kh, kw) with out_channels "
                         f"a multiple of {groups}, got {tuple(weight.shape)}")
    out_c, _, kh, kw = weight.shape
    stride = _pair(stride, "conv2d stride", 1)
    dilation = _pair(dilation, "conv2d dilation", 1)
    x = _pad(x, _padding(padding, (kh, kw), stride, "conv2d", dilation), 0.0)
    n, c, h, w = x.shape
    idx = _window_index((c, h, w), (kh, kw), stride, True, "conv2d", dilation)
    oh, ow = idx.shape[:2]
    # rows (N*OH*OW) of C*K features, channel-major as weight.reshape(O, C/groups * K)
    cols = jnp.take(jnp.reshape(x, (n, c * h * w)), idx, axis=1)
    if groups == 1:
        cols = jnp.reshape(cols, (n * oh * ow, in_c * kh * kw))
        out = jnp.matmul(cols, jnp.transpose(jnp.reshape(weight, (out_c, in_c * kh * kw))))
    else:   # one batched matmul over the groups: (G, rows, C/G*K) @ (G, C/G*K, O/G)
        cols = jnp.transpose(jnp.reshape(cols, (n * oh * ow, groups, in_c * kh * kw)), (1, 0, 2))
        w_g = jnp.reshape(weight, (groups, out_c // groups, in_c * kh * kw))
        out = jnp.matmul(cols, jnp.transpose(w_g, (0, 2, 1)))            # (G, rows, O/G)
        out = jnp.reshape(jnp.transpose(out, (1, 0, 2)), (n * oh * ow, out_c))
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


def _bins(length, n, dtype):
    """(n, length): row i averages input positions [floor(i L/n), ceil((i+1) L/n))."""
    m = np.zeros((n, length), dtype)
    for i in range(n):
        lo, hi = (i * length) // n, -((-(i + 1) * length) // n)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def adaptive_avg_pool2d(x, output_size):
    """Average pooling of an (N, C, H, W) or (C, H, W) input to output_size (an int, or a pair
    whose None entries keep the input's size), with PyTorch's bins."""
    x = asarray(x)
    if x.ndim not in (3, 4) or 0 in x.shape[-2:]:
        raise ValueError(f"adaptive_avg_pool2d: expected a 3D or 4D input with non-empty spatial "
                         f"dimensions, got shape {tuple(x.shape)}")
    size = (output_size, output_size) if not isinstance(output_size, (tuple, list)) \
        else tuple(output_size)
    if len(size) != 2 or not all(s is None or (isinstance(s, (int, np.integer)) and s > 0)
                                 for s in size):
        raise ValueError(f"adaptive_avg_pool2d: output_size must be a positive int or a pair of "
                         f"them (None keeps the input's size), got {output_size!r}")
    h, w = x.shape[-2:]
    oh, ow = (h if size[0] is None else int(size[0])), (w if size[1] is None else int(size[1]))
    if (oh, ow) == (h, w):
        return x
    dt = np.dtype(x.dtype.name)
    rows = jnp.matmul(x, jnp.asarray(_bins(w, ow, dt).T))          # (..., H, OW)
    return jnp.matmul(jnp.asarray(_bins(h, oh, dt)), rows)          # (..., OH, OW)


class Conv2d(Module):
    """2-D convolution over NCHW input with PyTorch's default initialization
    (weight and bias uniform in +-1/sqrt(in_channels * kh * kw))."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True):
        super().__init__()
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size = _pair(kernel_size, "Conv2d kernel_size", 1)
        self.stride = _pair(stride, "Conv2d stride", 1)
        self.padding = padding if isinstance(padding, str) else _pair(padding, "Conv2d padding")
        self.dilation = _pair(dilation, "Conv2d dilation", 1)
        if not isinstance(groups, int) or groups < 1 or in_channels % groups or \
                out_channels % groups:
            raise ValueError(f"Conv2d: groups must be a positive int dividing in_channels "
                             f"({in_channels}) and out_channels ({out_channels}), got {groups!r}")
        self.groups = groups
        _padding(self.padding, self.kernel_size, self.stride, "Conv2d", self.dilation)
        shape = (self.out_channels, self.in_channels // groups) + self.kernel_size
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
        return conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                      self.groups)

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding not in ((0, 0), "valid"):
            s += f", padding={self.padding!r}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
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


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, x):
        return adaptive_avg_pool2d(x, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


__all__ = ["conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "Conv2d", "MaxPool2d",
           "AvgPool2d", "AdaptiveAvgPool2d"]
