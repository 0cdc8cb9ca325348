"""torch.nn's activation modules beyond layers.py's (ELU, SELU, Hardtanh, PReLU, GLU, ...): each
holds its options and calls its functional form (activation_fns.py)."""
from __future__ import annotations

import numpy as np

from ..dtypes import default_float
from . import activation_fns as AF
from . import activations as A
from .module import Module, Parameter


class _Elementwise(Module):
    """An activation with keyword options; `inplace` is accepted and ignored (out of place)."""
    fn = staticmethod(A.relu)
    options = {}

    def __init__(self, *args, inplace=False, **kwargs):
        super().__init__()
        names = list(self.options)
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}: expected at most {len(names)} positional "
                            f"options ({', '.join(names)}), got {len(args)}")
        values = dict(self.options, **dict(zip(names, args)))
        unknown = set(kwargs) - set(names)
        if unknown:
            raise TypeError(f"{type(self).__name__}: unexpected option(s) {sorted(unknown)}; "
                            f"it takes {names + ['inplace']}")
        values.update(kwargs)
        for name, value in values.items():
            setattr(self, name, value)
        self.inplace = inplace

    def forward(self, x):
        return type(self).fn(x, **{name: getattr(self, name) for name in self.options})

    def extra_repr(self):
        return ", ".join(f"{k}={getattr(self, k)}" for k in self.options)


def _activation(name, fn, doc, **options):
    return type(name, (_Elementwise,), {"fn": staticmethod(fn), "options": options,
                                        "__doc__": f"torch.nn.{name}: {doc}",
                                        "__module__": __name__})


ELU = _activation("ELU", A.elu, "x if x > 0 else alpha (exp(x) - 1).", alpha=1.0)
CELU = _activation("CELU", AF.celu, "max(0, x) + min(0, alpha (exp(x / alpha) - 1)).",
                   alpha=1.0)
SELU = _activation("SELU", AF.selu, "scale * elu(x, alpha), self-normalizing constants.")
SiLU = _activation("SiLU", A.silu, "x * sigmoid(x).")
Mish = _activation("Mish", AF.mish, "x * tanh(softplus(x)).")
Hardswish = _activation("Hardswish", AF.hardswish, "x * relu6(x + 3) / 6.")
Hardsigmoid = _activation("Hardsigmoid", AF.hardsigmoid, "relu6(x + 3) / 6.")
ReLU6 = _activation("ReLU6", AF.relu6, "min(max(x, 0), 6).")
LeakyReLU = _activation("LeakyReLU", A.leaky_relu, "x if x > 0 else negative_slope * x.",
                        negative_slope=0.01)
Softplus = _activation("Softplus", A.softplus, "log(1 + exp(beta x)) / beta.", beta=1.0,
                       threshold=20.0)
Softsign = _activation("Softsign", AF.softsign, "x / (1 + |x|).")
LogSigmoid = _activation("LogSigmoid", AF.logsigmoid, "log(sigmoid(x)).")
Tanhshrink = _activation("Tanhshrink", AF.tanhshrink, "x - tanh(x).")
Softshrink = _activation("Softshrink", AF.softshrink, "x -+ lambd outside [-lambd, lambd].",
                         lambd=0.5)
Hardshrink = _activation("Hardshrink", AF.hardshrink, "x outside [-lambd, lambd], else 0.",
                         lambd=0.5)
Threshold = _activation("Threshold", AF.threshold, "x if x > threshold else value.",
                        threshold=None, value=None)
GLU = _activation("GLU", AF.glu, "a * sigmoid(b) of the halves of `dim`.", dim=-1)
Softmin = _activation("Softmin", AF.softmin, "softmax(-x) along `dim`.", dim=None)


class Hardtanh(_Elementwise):
    """torch.nn.Hardtanh: clamp to [min_val, max_val] (min_value/max_value: old names)."""
    fn = staticmethod(AF.hardtanh)
    options = {"min_val": -1.0, "max_val": 1.0}

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__(min_val if min_value is None else min_value,
                         max_val if max_value is None else max_value, inplace=inplace)
        if self.min_val > self.max_val:
            raise ValueError(f"Hardtanh: min_val ({self.min_val}) must not exceed max_val "
                             f"({self.max_val})")


class RReLU(_Elementwise):
    """torch.nn.RReLU: a random negative slope in [lower, upper] while training (`key=k`
    under jit), their mean in eval mode."""
    options = {"lower": 1.0 / 8, "upper": 1.0 / 3}

    def forward(self, x, key=None):
        return AF.rrelu(x, self.lower, self.upper, self.training, key=key)


class Softmax2d(Module):
    """torch.nn.Softmax2d: softmax over the channels of a (N, C, H, W) or (C, H, W) input."""

    def forward(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected a 3-D or 4-D input, got shape "
                             f"{tuple(x.shape)}")
        return AF.softmax(x, -3)


class PReLU(Module):
    """torch.nn.PReLU: x if x > 0 else a * x with a learned `weight` of num_parameters
    values (one, or one per channel), initialized to `init`."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = int(num_parameters), init
        self.weight = Parameter(np.full(self.num_parameters, init, dtype or default_float()))

    def reset_parameters(self):
        self.weight = Parameter(np.full(self.num_parameters, self.init, self.weight.dtype))

    def forward(self, x):
        return AF.prelu(x, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


__all__ = ["ELU", "CELU", "SELU", "SiLU", "Mish", "Hardswish", "Hardsigmoid", "ReLU6",
           "LeakyReLU", "Softplus", "Softsign", "LogSigmoid", "Tanhshrink", "Softshrink",
           "Hardshrink", "Threshold", "GLU", "Softmin", "Hardtanh", "RReLU", "Softmax2d", "PReLU"]
