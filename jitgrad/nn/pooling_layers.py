"""torch.nn's pooling modules (AdaptiveAvgPool2d lives in conv.py): options and pooling.py's
functions."""
from __future__ import annotations

from . import pooling as P
from .module import Module


class _MaxPoolNd(Module):
    nsp = 1

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, x):
        return P.max_pool_nd(x, self.kernel_size, self.stride, self.padding, self.dilation,
                             self.ceil_mode, self.return_indices, self.nsp,
                             type(self).__name__)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """torch.nn.MaxPool1d."""
    nsp = 1


class MaxPool2d(_MaxPoolNd):
    """torch.nn.MaxPool2d."""
    nsp = 2


class MaxPool3d(_MaxPoolNd):
    """torch.nn.MaxPool3d."""
    nsp = 3


class _AvgPoolNd(Module):
    nsp = 1

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, x):
        return P.avg_pool_nd(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad, self.divisor_override, self.nsp,
                             type(self).__name__)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """torch.nn.AvgPool1d (no divisor_override, as in PyTorch)."""
    nsp = 1

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)


class AvgPool2d(_AvgPoolNd):
    """torch.nn.AvgPool2d."""
    nsp = 2


class AvgPool3d(_AvgPoolNd):
    """torch.nn.AvgPool3d."""
    nsp = 3


class _LPPoolNd(Module):
    nsp = 1

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride = norm_type, kernel_size, stride
        self.ceil_mode = ceil_mode

    def forward(self, x):
        return P.lp_pool_nd(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode,
                            self.nsp, type(self).__name__)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """torch.nn.LPPool1d."""
    nsp = 1


class LPPool2d(_LPPoolNd):
    """torch.nn.LPPool2d."""
    nsp = 2


class LPPool3d(_LPPoolNd):
    """torch.nn.LPPool3d."""
    nsp = 3


class _AdaptivePoolNd(Module):
    nsp = 1

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, x):
        return P.adaptive_avg_pool_nd(x, self.output_size, self.nsp, type(self).__name__)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePoolNd):
    """torch.nn.AdaptiveAvgPool1d."""
    nsp = 1


class AdaptiveAvgPool3d(_AdaptivePoolNd):
    """torch.nn.AdaptiveAvgPool3d."""
    nsp = 3


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, x):
        return P.adaptive_max_pool_nd(x, self.output_size, self.return_indices, self.nsp,
                                      type(self).__name__)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """torch.nn.AdaptiveMaxPool1d."""
    nsp = 1


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """torch.nn.AdaptiveMaxPool2d."""
    nsp = 2


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """torch.nn.AdaptiveMaxPool3d."""
    nsp = 3


class _MaxUnpoolNd(Module):
    nsp = 1

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding = padding

    def forward(self, input, indices, output_size=None):
        return P.max_unpool_nd(input, indices, self.kernel_size, self.stride, self.padding,
                               output_size, self.nsp, type(self).__name__)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """torch.nn.MaxUnpool1d."""
    nsp = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """torch.nn.MaxUnpool2d."""
    nsp = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """torch.nn.MaxUnpool3d."""
    nsp = 3


__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]
