"""torch.nn.Conv1d, Conv3d and ConvTranspose1d/2d/3d (Conv2d lives in conv.py), with PyTorch's
arguments, parameter shapes, initialization (kaiming_uniform(a=sqrt 5), bias uniform in
+-1/sqrt(fan_in)) and padding_mode ('zeros', 'reflect', 'replicate', 'circular')."""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import default_float
from . import conv_nd as C
from . import init
from .module import Module, Parameter
from .padding import pad

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    nsp, transposed = 1, False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None,
                 output_padding=0):
        super().__init__()
        name, n = type(self).__name__, self.nsp
        if not isinstance(groups, int) or groups < 1 or in_channels % groups or \
                out_channels % groups:
            raise ValueError(f"{name}: groups must be a positive int dividing in_channels "
                             f"({in_channels}) and out_channels ({out_channels}), got {groups!r}")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"{name}: padding_mode must be one of {', '.join(_PADDING_MODES)}, "
                             f"got {padding_mode!r}")
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.groups = groups
        self.kernel_size = C.ntuple(kernel_size, n, f"{name} kernel_size", 1)
        self.stride = C.ntuple(stride, n, f"{name} stride", 1)
        self.dilation = C.ntuple(dilation, n, f"{name} dilation", 1)
        self.padding = padding if isinstance(padding, str) else \
            C.ntuple(padding, n, f"{name} padding")
        self.output_padding = C.ntuple(output_padding, n, f"{name} output_padding")
        self.padding_mode = padding_mode
        # validates 'same' against the stride now, as PyTorch's constructor does
        self.pads = None if self.transposed else tuple(C.conv_padding(
            self.padding, self.kernel_size, self.stride, self.dilation, name))
        lead = (in_channels, out_channels // groups) if self.transposed else \
            (out_channels, in_channels // groups)
        dt = dtype or default_float()
        self.weight = Parameter(np.empty(lead + self.kernel_size, dt))
        self.register_parameter("bias", Parameter(np.empty(out_channels, dt)) if bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = init.fan_in_and_fan_out(self.weight)[0]
            bound = 1 / math.sqrt(fan_in) if fan_in else 0.0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * self.nsp:
            s += f", padding={self.padding!r}"
        if self.dilation != (1,) * self.nsp:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self.nsp:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode!r}"
        return s + ("" if self.bias is not None else ", bias=False")


class _Conv(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, x):
        if self.padding_mode == "zeros":
            return C.conv_nd(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                             self.groups, self.nsp, type(self).__name__)
        flat = tuple(v for lo_hi in reversed(self.pads) for v in lo_hi)
        return C.conv_nd(pad(x, flat, self.padding_mode), self.weight, self.bias, self.stride,
                         0, self.dilation, self.groups, self.nsp, type(self).__name__)


class Conv1d(_Conv):
    """torch.nn.Conv1d over (N, C, L) or (C, L)."""
    nsp = 1


class Conv3d(_Conv):
    """torch.nn.Conv3d over (N, C, D, H, W) or (C, D, H, W)."""
    nsp = 3


class _ConvTranspose(_ConvNd):
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}, got {padding_mode!r}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, output_padding)

    def forward(self, x, output_size=None):
        out_pad = self.output_padding if output_size is None else self._output_padding(
            x, output_size)
        return C.conv_transpose_nd(x, self.weight, self.bias, self.stride, self.padding,
                                   out_pad, self.groups, self.dilation, self.nsp,
                                   type(self).__name__)

    def _output_padding(self, x, output_size):
        """The output_padding that gives `output_size` (its last nsp entries), as PyTorch."""
        size = tuple(output_size)[-self.nsp:]
        extra = []
        for d, want in enumerate(size):
            least = ((x.shape[x.ndim - self.nsp + d] - 1) * self.stride[d] - 2 * self.padding[d]
                     + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            if not least <= want < least + self.stride[d]:
                raise ValueError(f"{type(self).__name__}: requested an output size of {size}, "
                                 f"but dimension {d} can only be in [{least}, "
                                 f"{least + self.stride[d] - 1}]")
            extra.append(want - least)
        return tuple(extra)


class ConvTranspose1d(_ConvTranspose):
    """torch.nn.ConvTranspose1d; weight (in_channels, out_channels/groups, K)."""
    nsp = 1


class ConvTranspose2d(_ConvTranspose):
    """torch.nn.ConvTranspose2d; weight (in_channels, out_channels/groups, KH, KW)."""
    nsp = 2


class ConvTranspose3d(_ConvTranspose):
    """torch.nn.ConvTranspose3d; weight (in_channels, out_channels/groups, KD, KH, KW)."""
    nsp = 3


__all__ = ["Conv1d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]
