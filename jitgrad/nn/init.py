"""Initializers, as torch.nn.init: each fills a tensor in place and returns it.

Random draws come from `generator=` (a jg.Generator) or else jitgrad's default generator, so
`jg.manual_seed(s)` makes models reproducible the way `torch.manual_seed` does (the numbers
differ from PyTorch's)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..eager.global_rng import rng_of
from ..eager.grad_mode import no_grad

_GAINS = {"linear": 1.0, "identity": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0,
          "sigmoid": 1.0, "tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 3.0 / 4}


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for a nonlinearity (torch.nn.init.calculate_gain)."""
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity not in _GAINS:
        raise ValueError(f"calculate_gain: unknown nonlinearity {nonlinearity!r}; expected one of "
                         f"{', '.join(sorted(_GAINS) + ['leaky_relu'])}")
    return _GAINS[nonlinearity]


def fan_in_and_fan_out(tensor) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight laid out (out, in, *kernel), as PyTorch computes them."""
    if len(tensor.shape) < 2:
        raise ValueError(f"fan in and fan out need a tensor with at least 2 dimensions, got "
                         f"shape {tuple(tensor.shape)}")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fill(tensor, values):
    with no_grad():
        tensor.copy_(np.asarray(values, dtype=tensor.dtype))
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """torch.nn.init.uniform_: fill with U(a, b) samples, in place."""
    return _fill(tensor, rng_of(generator).uniform(a, b, tensor.shape))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """torch.nn.init.normal_: fill with N(mean, std^2) samples, in place."""
    return _fill(tensor, rng_of(generator).normal(mean, std, tensor.shape))


def constant_(tensor, val):
    """torch.nn.init.constant_: fill the tensor with `val`, in place."""
    return _fill(tensor, np.full(tensor.shape, val))


def zeros_(tensor):
    """torch.nn.init.zeros_: fill with zeros, in place."""
    return constant_(tensor, 0.0)


def ones_(tensor):
    """torch.nn.init.ones_: fill with ones, in place."""
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """torch.nn.init.xavier_uniform_: Glorot uniform initialization, in place."""
    if _zero_element(tensor):
        return tensor
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """torch.nn.init.xavier_normal_: Glorot normal initialization, in place."""
    if _zero_element(tensor):
        return tensor
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    fans = dict(zip(("fan_in", "fan_out"), fan_in_and_fan_out(tensor)))
    if mode not in fans:
        raise ValueError(f"kaiming init: mode must be 'fan_in' or 'fan_out', got {mode!r}")
    return calculate_gain(nonlinearity, a) / math.sqrt(fans[mode])


def _zero_element(tensor) -> bool:
    """A tensor with no elements is left as it is, with PyTorch's warning (its fan is 0)."""
    if tensor.size:
        return False
    warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
    return True


def kaiming_uniform_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """torch.nn.init.kaiming_uniform_: He uniform initialization (bound gain*sqrt(3/fan)), in place."""
    if _zero_element(tensor):
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """torch.nn.init.kaiming_normal_: He normal initialization (std gain/sqrt(fan)), in place."""
    if _zero_element(tensor):
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """torch.nn.init.trunc_normal_: N(mean, std^2) samples redrawn until inside [a, b]."""
    rng, out = rng_of(generator), np.empty(tensor.shape)
    todo = np.ones(tensor.shape, bool)
    while todo.any():
        out[todo] = rng.normal(mean, std, int(todo.sum()))
        todo = (out < a) | (out > b)
    return _fill(tensor, out)


def orthogonal_(tensor, gain=1.0, generator=None):
    """torch.nn.init.orthogonal_: a (semi-)orthogonal matrix from the QR decomposition of a
    normal draw, rows x (numel / rows), signs fixed by R's diagonal, times gain."""
    if len(tensor.shape) < 2:
        raise ValueError(f"orthogonal_: only tensors with 2 or more dimensions are supported, got "
                         f"shape {tuple(tensor.shape)}")
    if _zero_element(tensor):
        return tensor
    rows = tensor.shape[0]
    flat = rng_of(generator).normal(0.0, 1.0, (rows, tensor.size // rows))
    wide = rows < flat.shape[1]
    q, r = np.linalg.qr(flat.T if wide else flat)
    q = q * np.sign(np.diag(r))
    return _fill(tensor, gain * (q.T if wide else q).reshape(tensor.shape))


def eye_(tensor):
    """torch.nn.init.eye_: the identity matrix (2-D tensors), in place."""
    if len(tensor.shape) != 2:
        raise ValueError(f"eye_: only 2-D tensors are supported, got shape {tuple(tensor.shape)}")
    return _fill(tensor, np.eye(*tensor.shape))


def dirac_(tensor, groups=1):
    """torch.nn.init.dirac_: a convolution weight (3-5 dims) that passes its input channels
    through (per group), in place."""
    if len(tensor.shape) not in (3, 4, 5):
        raise ValueError(f"dirac_: only 3, 4 and 5-D tensors are supported, got shape "
                         f"{tuple(tensor.shape)}")
    out_per_group = tensor.shape[0] // groups
    if tensor.shape[0] % groups:
        raise ValueError(f"dirac_: dim 0 ({tensor.shape[0]}) must be divisible by groups ({groups})")
    w = np.zeros(tensor.shape)
    centre = tuple(k // 2 for k in tensor.shape[2:])
    for g in range(groups):
        for d in range(min(out_per_group, tensor.shape[1])):
            w[(g * out_per_group + d, d) + centre] = 1.0
    return _fill(tensor, w)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """torch.nn.init.sparse_: a 2-D tensor of N(0, std^2) samples with ceil(sparsity * rows) zeros
    in each column, in place."""
    if len(tensor.shape) != 2:
        raise ValueError(f"sparse_: only 2-D tensors are supported, got shape {tuple(tensor.shape)}")
    rows, cols = tensor.shape
    rng = rng_of(generator)
    w = rng.normal(0.0, std, (rows, cols))
    for c in range(cols):
        w[rng.permutation(rows)[:math.ceil(sparsity * rows)], c] = 0.0
    return _fill(tensor, w)


def _deprecated(new):
    """torch's old names without the trailing underscore: the same function, with its warning."""
    old = new.__name__[:-1]

    def fn(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new.__name__}`.",
                      FutureWarning, stacklevel=2)
        return new(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = old
    fn.__doc__ = f"torch.nn.init.{old}: deprecated spelling of {new.__name__}."
    return fn


uniform, normal, constant, xavier_uniform, xavier_normal, kaiming_uniform, kaiming_normal, \
    orthogonal, sparse, eye, dirac = (_deprecated(f) for f in (
        uniform_, normal_, constant_, xavier_uniform_, xavier_normal_, kaiming_uniform_,
        kaiming_normal_, orthogonal_, sparse_, eye_, dirac_))

__all__ = ["calculate_gain", "fan_in_and_fan_out", "uniform_", "normal_", "constant_", "zeros_",
           "ones_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "trunc_normal_", "orthogonal_", "eye_", "dirac_", "sparse_", "uniform", "normal",
           "constant", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
           "orthogonal", "sparse", "eye", "dirac"]
