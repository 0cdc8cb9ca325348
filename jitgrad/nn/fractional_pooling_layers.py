"""torch.nn.FractionalMaxPool2d / FractionalMaxPool3d: the modules over fractional_pooling.py's
functional (output_size= or output_ratio=, return_indices=, a fixed _random_samples buffer)."""
from __future__ import annotations

from .conv_nd import ntuple
from .fractional_pooling import fractional_max_pool_nd
from .module import Module


def _ratio(output_ratio, nsp, where):
    """output_ratio as nsp numbers, each strictly between 0 and 1 (torch's check)."""
    ratio = (tuple(output_ratio) if isinstance(output_ratio, (tuple, list))
             else (output_ratio,) * nsp)
    if len(ratio) != nsp or not all(0 < r < 1 for r in ratio):
        raise ValueError(f"{where}: output_ratio must be between 0 and 1 (one number or {nsp} of "
                         f"them), got {output_ratio!r}")
    return ratio


class _FractionalMaxPoolNd(Module):
    nsp = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        where = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(f"{where} requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError(f"{where}: only one of output_size and output_ratio may be "
                             f"specified, got output_size={output_size!r} and "
                             f"output_ratio={output_ratio!r}")
        self.kernel_size = ntuple(kernel_size, self.nsp, f"{where} kernel_size", 1)
        self.output_size = (None if output_size is None else
                            ntuple(output_size, self.nsp, f"{where} output_size", 1))
        self.output_ratio = (None if output_ratio is None else
                             _ratio(output_ratio, self.nsp, where))
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)

    def forward(self, input):
        return fractional_max_pool_nd(input, self.kernel_size, self.output_size,
                                      self.output_ratio, self.return_indices,
                                      self._random_samples, self.nsp, type(self).__name__)

    def extra_repr(self):
        size = (f"output_size={self.output_size}" if self.output_size is not None
                else f"output_ratio={self.output_ratio}")
        return f"kernel_size={self.kernel_size}, {size}, return_indices={self.return_indices}"


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """torch.nn.FractionalMaxPool2d: F.fractional_max_pool2d with fixed arguments; the windows
    are drawn per call from jitgrad's generator unless _random_samples ((N, C, 2)) is given."""
    nsp = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """torch.nn.FractionalMaxPool3d: F.fractional_max_pool3d with fixed arguments; the windows
    are drawn per call from jitgrad's generator unless _random_samples ((N, C, 3)) is given."""
    nsp = 3


__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]
