"""2-D convolution and pooling over NCHW tensors, as decompositions into primitives.

A k x k window op never gathers: its windows are the k*k slices of the padded input, one slice
per kernel tap. Convolution is ONE batched GEMM weight (O, C*K) @ columns (N, C*K, P) -> (N, O,
P), already NCHW, with the bias add as the matmul's epilogue. With one group each tap is a
single contiguous run of the image flattened per channel (strided: of one of its stride phases;
the output computed on full-width rows, the few spare columns cropped after the GEMM), so the
taps joined on axis 1 are the GEMM's operand as they are; with groups the taps are 2-D strided
slices joined and relabelled to (N, C*K, OH*OW), one GEMM per group. The gradients are the two
transposed GEMMs and, for the input, the transposes of the slices: pads summed by one
elementwise kernel (dense copies with affine indices, no scatter_add). Measured on the model
benchmark's CNN and ResNet (README "Models"): the old gather (`take`) + `scatter_add` lowering
took 74 ms per CNN step, this one 22-28 ms; a channel-major variant (x transposed to (C, N, H,
W), one GEMM over N*OH*OW) measured the same as the batched GEMM and costs two transposes per
layer; the contiguous runs save the relabelling copies of the columns and their gradient (ResNet
step 10-20% faster) and make a strided tap's gradient one pad instead of an interleave (a
stride-2 conv's value_and_grad: 87 -> 54 kernels, 28.6 -> 17.8 ms).
Pooling with stride == kernel and no padding (the common 2x2/2) is a reshape to
(N, C, OH, kh, OW, kw) reduced over its window axes (average: one sum; max: the first maximum's
position, then one take, its gradient one scatter: window_extremum.py); overlapping or padded
pooling reduces its k*k taps stacked on a leading axis. Adaptive average pooling is two
matmuls with PyTorch's bins.
Eagerly, a one-group convolution and a pooling run as one compiled call each once their
signature is hot (fused_eager.py), recorded as one op whose backward is their VJP (max pooling's
from the first maxima's positions its forward saved, as PyTorch's max_pool2d_with_indices).
"""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp
from ..dtypes import default_float
from ..lax.convolution import conv_runs
from ..numpy.window_extremum import first_extremum_position, take_position
from ..numpy._convert import asarray
from . import init
from ..transforms.autodiff import vjp
from ..transforms.fused_eager import fused_in_eager
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


def _out_size(hw, kernel, stride, dilation, where):
    """(OH, OW) of a window op over a padded (H, W) image; an error if the kernel does not fit."""
    (h, w), (kh, kw), (sh, sw), (dh, dw) = hw, kernel, stride, dilation
    eh, ew = dh * (kh - 1) + 1, dw * (kw - 1) + 1      # the dilated kernel's extent
    if h < eh or w < ew:
        extent = kernel if (dh, dw) == (1, 1) else f"{kernel} dilated to {(eh, ew)}"
        raise ValueError(f"{where}: kernel {extent} is larger than the padded input {h}x{w}")
    return (h - eh) // sh + 1, (w - ew) // sw + 1


def _taps(x, kernel, stride, dilation, out_hw):
    """The kh*kw strided slices x[..., i*dh :: sh, j*dw :: sw] of the last two axes, each of
    extent out_hw, taps row-major (the order of weight.reshape(O, C, kh*kw))."""
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = kernel, stride, dilation, out_hw
    lead = (slice(None),) * (x.ndim - 2)
    return [x[lead + (slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                      slice(j * dw, j * dw + sw * (ow - 1) + 1, sw))]
            for i in range(kh) for j in range(kw)]


def _pad(x, pads, fill):
    return x if pads == ((0, 0), (0, 0)) else jnp.pad(x, ((0, 0), (0, 0)) + pads,
                                                       constant_values=fill)


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
    pads = _padding(padding, (kh, kw), stride, "conv2d", dilation)
    n, c = x.shape[:2]
    h, w = x.shape[2] + sum(pads[0]), x.shape[3] + sum(pads[1])
    oh, ow = _out_size((h, w), (kh, kw), stride, dilation, "conv2d")
    k = kh * kw
    if groups == 1:
        return conv_runs(x, weight, bias, pads, (oh, ow), stride, dilation)
    x = _pad(x, pads, 0.0)
    # the taps of (N, C, H, W) joined on axis 2 are (N, C, K, OH, OW): per image, the im2col
    # matrix (C*K, OH*OW) with rows ordered as weight.reshape(O, C*K)'s columns
    taps = _taps(x, (kh, kw), stride, dilation, (oh, ow))
    cols = taps[0] if k == 1 else jnp.concatenate(taps, axis=2)
    cols = jnp.reshape(cols, (n, c * k, oh * ow))
    if groups == 1:     # (O, C*K) @ (N, C*K, OH*OW): the output comes out NCHW, no transpose
        out = jnp.matmul(jnp.reshape(weight, (out_c, in_c * k)), cols)
    else:               # (G, O/G, C/G*K) @ (N, G, C/G*K, OH*OW)
        out = jnp.matmul(jnp.reshape(weight, (groups, out_c // groups, in_c * k)),
                         jnp.reshape(cols, (n, groups, in_c * k, oh * ow)))
        out = jnp.reshape(out, (n, out_c, oh * ow))
    if bias is not None:    # on the GEMM's own output shape: the matmul's epilogue
        out = jnp.add(out, jnp.reshape(asarray(bias), (out_c, 1)))
    return jnp.reshape(out, (n, out_c, oh, ow))


def _pool_args(kernel_size, stride, padding, where):
    kernel = _pair(kernel_size, f"{where} kernel_size", 1)
    stride = kernel if stride is None else _pair(stride, f"{where} stride", 1)
    pad = _pair(padding, f"{where} padding")
    if any(2 * p > k for p, k in zip(pad, kernel)):
        raise ValueError(f"{where}: padding {pad} must be at most half the kernel size {kernel}")
    return kernel, stride, tuple((p, p) for p in pad)


def _windows(x, kernel, stride, pads, fill, where):
    """(windows, their axes) of every k x k window of x padded with `fill`. Non-overlapping
    unpadded windows are a reshape (the rows and columns past the last window cropped first);
    otherwise the k*k strided taps stacked on a leading axis."""
    x = _pad(x, pads, fill)
    n, c, h, w = x.shape
    (kh, kw), (oh, ow) = kernel, _out_size((h, w), kernel, stride, (1, 1), where)
    if stride == kernel:
        if (oh * kh, ow * kw) != (h, w):
            x = x[:, :, :oh * kh, :ow * kw]
        return jnp.reshape(x, (n, c, oh, kh, ow, kw)), (3, 5)
    taps = _taps(x, kernel, stride, (1, 1), (oh, ow))
    stacked = jnp.concatenate(taps, axis=0)                      # (K*N, C, OH, OW)
    return jnp.reshape(stacked, (len(taps), n, c, oh, ow)), (0,)


@fused_in_eager("x")                       # eagerly: one compiled call once hot
def _avg_pool(x, kernel, stride, pads):
    windows, axes = _windows(x, kernel, stride, pads, 0.0, "avg_pool2d")
    return jnp.sum(windows, axis=axes)


def _max_pool_fwd(x, kernel, stride, pads):
    """The pooled maxima and, for the backward, each window's first maximum's flat position in
    the windows (PyTorch's max_pool2d_with_indices saves its indices likewise)."""
    windows, axes = _windows(x, kernel, stride, pads, -np.inf, "max_pool2d")
    position = first_extremum_position(windows, axes)
    return take_position(windows, position), (position,)


def _max_pool_bwd(args, residuals, g):
    """The cotangent scattered to the saved positions: no window reductions run again."""
    x, kernel, stride, pads = args
    (position,) = residuals
    _, pull = vjp(lambda x: take_position(_windows(x, kernel, stride, pads, -np.inf,
                                                   "max_pool2d")[0], position), x)
    return pull(g)


# eagerly: one compiled call once hot; under autograd the backward reads the saved positions
@fused_in_eager("x", fwd=_max_pool_fwd, bwd=_max_pool_bwd)
def _max_pool(x, kernel, stride, pads):
    return _max_pool_fwd(x, kernel, stride, pads)[0]


def max_pool2d(x, kernel_size, stride=None, padding=0):
    """Max over k x k windows (stride defaults to the kernel size; padding counts as -inf). As
    in PyTorch, a window's gradient goes to its first maximum (row-major), not split among ties."""
    x = _check_nchw(x, "max_pool2d")
    kernel, stride, pads = _pool_args(kernel_size, stride, padding, "max_pool2d")
    return _max_pool(x, kernel, stride, pads)


def avg_pool2d(x, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Mean over k x k windows; with count_include_pad=False padded zeros are not counted."""
    x = _check_nchw(x, "avg_pool2d")
    kernel, stride, pads = _pool_args(kernel_size, stride, padding, "avg_pool2d")
    total = _avg_pool(x, kernel, stride, pads)
    if count_include_pad or pads == ((0, 0), (0, 0)):
        return jnp.true_divide(total, math.prod(kernel))
    # how many real (unpadded) pixels each window covers: the same taps over a NumPy mask
    real = np.pad(np.ones(x.shape[2:], x.dtype), pads)
    oh, ow = total.shape[2:]
    counts = sum(real[i::stride[0]][:oh, j::stride[1]][:, :ow]
                 for i in range(kernel[0]) for j in range(kernel[1]))
    return jnp.true_divide(total, counts.astype(x.dtype))


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


class AdaptiveAvgPool2d(Module):
    """torch.nn.AdaptiveAvgPool2d: average pooling to a fixed output size."""
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, x):
        return adaptive_avg_pool2d(x, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


__all__ = ["conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "Conv2d",
           "AdaptiveAvgPool2d"]
