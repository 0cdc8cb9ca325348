"""torch.nn.functional.unfold / fold (im2col and its transpose, col2im) and the modules Unfold
and Fold, over (N, C, H, W) or unbatched inputs: unfold stacks the kernel's strided taps, fold
places each tap's block back (dilated by the stride, padded to its offset) and sums them."""
from __future__ import annotations

import math

from .. import numpy as jnp
from ..numpy._convert import asarray
from .conv_nd import dilate, ntuple, out_size, pad_spatial, window_taps
from .module import Module


def _args(kernel_size, dilation, padding, stride, where):
    return (ntuple(kernel_size, 2, f"{where} kernel_size", 1),
            ntuple(dilation, 2, f"{where} dilation", 1), ntuple(padding, 2, f"{where} padding"),
            ntuple(stride, 2, f"{where} stride", 1))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """torch.nn.functional.unfold: (N, C, H, W) -> (N, C * kh * kw, L), L the window count."""
    x = asarray(input)
    if x.ndim not in (3, 4):
        raise ValueError(f"unfold: expected a 3-D or 4-D input, got shape {tuple(x.shape)}")
    kernel, dilation, padding, stride = _args(kernel_size, dilation, padding, stride, "unfold")
    x = pad_spatial(x, [(p, p) for p in padding])
    out = out_size(tuple(x.shape[-2:]), kernel, stride, dilation, "unfold")
    cols = jnp.stack(window_taps(x, kernel, stride, dilation, out), axis=-3)   # (.., C, K, *out)
    lead = tuple(x.shape[:-2])
    return jnp.reshape(cols, lead[:-1] + (lead[-1] * math.prod(kernel), math.prod(out)))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """torch.nn.functional.fold: (N, C * kh * kw, L) -> (N, C, H, W), overlapping values
    summed (the transpose of unfold)."""
    x = asarray(input)
    kernel, dilation, padding, stride = _args(kernel_size, dilation, padding, stride, "fold")
    size = ntuple(output_size, 2, "fold output_size", 1)
    k = math.prod(kernel)
    padded = tuple(s + 2 * p for s, p in zip(size, padding))
    out = out_size(padded, kernel, stride, dilation, "fold")
    if x.ndim not in (2, 3) or x.shape[-2] % k or x.shape[-1] != math.prod(out):
        raise ValueError(f"fold: expected an input (N, C * {k}, {math.prod(out)}) for kernel "
                         f"{kernel} and output_size {size}, got shape {tuple(x.shape)}")
    lead = tuple(x.shape[:-2]) + (x.shape[-2] // k,)
    blocks = jnp.reshape(x, lead + (k,) + out)
    total = None
    for t, (i, j) in enumerate((i, j) for i in range(kernel[0]) for j in range(kernel[1])):
        block = dilate(blocks[(slice(None),) * len(lead) + (t,)], stride)
        lo = (i * dilation[0], j * dilation[1])
        placed = pad_spatial(block, [(a, n - a - b) for a, n, b in
                                     zip(lo, padded, block.shape[-2:])])
        total = placed if total is None else jnp.add(total, placed)
    return pad_spatial(total, [(-p, -p) for p in padding])


class Unfold(Module):
    """torch.nn.Unfold(kernel_size, dilation=1, padding=0, stride=1)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, x):
        return unfold(x, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Unfold):
    """torch.nn.Fold(output_size, kernel_size, dilation=1, padding=0, stride=1)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__(kernel_size, dilation, padding, stride)
        self.output_size = output_size

    def forward(self, x):
        return fold(x, self.output_size, self.kernel_size, self.dilation, self.padding,
                    self.stride)

    def extra_repr(self):
        return f"output_size={self.output_size}, " + super().extra_repr()


__all__ = ["unfold", "fold", "Unfold", "Fold"]
