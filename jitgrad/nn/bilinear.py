"""torch.nn.functional.bilinear and nn.Bilinear: y_o = x1^T W_o x2 + b_o."""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp
from ..dtypes import default_float
from ..numpy._convert import asarray
from . import init
from .module import Module, Parameter


def bilinear(input1, input2, weight, bias=None):
    """torch.nn.functional.bilinear: x1 (*, I1), x2 (*, I2), weight (O, I1, I2) -> (*, O)."""
    x1, x2, w = asarray(input1), asarray(input2), asarray(weight)
    if w.ndim != 3 or x1.shape[-1] != w.shape[1] or x2.shape[-1] != w.shape[2]:
        raise ValueError(f"bilinear: expected inputs (*, {w.shape[1] if w.ndim == 3 else 'I1'}) "
                         f"and (*, {w.shape[2] if w.ndim == 3 else 'I2'}) with a weight "
                         f"(O, I1, I2), got {tuple(x1.shape)}, {tuple(x2.shape)} and "
                         f"{tuple(w.shape)}")
    t = jnp.einsum("...i,oij->...oj", x1, w)
    y = jnp.sum(jnp.multiply(t, jnp.expand_dims(x2, -2)), axis=-1)
    return y if bias is None else jnp.add(y, bias)


class Bilinear(Module):
    """torch.nn.Bilinear(in1_features, in2_features, out_features, bias=True): weight and bias
    uniform in +-1/sqrt(in1_features), as PyTorch."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = int(in1_features), int(in2_features)
        self.out_features = int(out_features)
        dt = dtype or default_float()
        self.weight = Parameter(np.empty((self.out_features, self.in1_features,
                                          self.in2_features), dt))
        self.register_parameter("bias", Parameter(np.empty(self.out_features, dt))
                                if bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


__all__ = ["bilinear", "Bilinear"]
