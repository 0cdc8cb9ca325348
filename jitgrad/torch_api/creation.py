"""PyTorch-style creation in jg (torch.zeros, torch.randn, ...): jg.zeros(2, 3), jg.ones(()),
jg.randn(4, 5, dtype=..., device=...)."""
from __future__ import annotations

import numpy as np

from ..dtypes import canonical_dtype, default_float
from ..eager.global_rng import (Generator, default_generator, global_rng, initial_seed,  # noqa: F401 (torch.*)
                                manual_seed, rng_of, seed)
from ..eager.tensor import Tensor, tensor
from ..numpy import creation as _c
from ..numpy._convert import shape_tuple
from ..ir.types import TensorType
from ..runtime.device import device as as_device


def _size(size, keyword=None):
    """The shape from torch's spellings: f(2, 3), f((2, 3)), f([2, 3]) or f(size=(2, 3))."""
    if keyword is not None:
        if size:
            raise TypeError(f"got the size both positionally {size} and as size={keyword}")
        size = (keyword,)
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        return shape_tuple(size[0], "size")
    return shape_tuple(size, "size")


def zeros(*shape, size=None, dtype=None, device=None, requires_grad=False):
    """numpy.empty: return a new array of given shape and type, without initializing entries."""
    return _grad(_c.zeros(_size(shape, size), dtype, device), requires_grad)


def ones(*shape, size=None, dtype=None, device=None, requires_grad=False):
    """numpy.ones: return a new array of given shape and type, filled with ones."""
    return _grad(_c.ones(_size(shape, size), dtype, device), requires_grad)


empty = zeros


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    """numpy.full: return a new array of given shape and type, filled with `fill_value`."""
    return _grad(_c.full(size, fill_value, dtype, device), requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """numpy.arange: return evenly spaced values within a given interval."""
    return _grad(_c.arange(start, end, step, dtype, device), requires_grad)


def _drawn(draw, size, dtype, device):
    """A tensor of draws; on 'meta' nothing is drawn (the shape may be far too large)."""
    dt, dev = canonical_dtype(dtype or default_float()), as_device(device)
    if dev.type == "meta":
        return Tensor._meta(TensorType(size, dt))
    return tensor(draw(size).astype(dt), device=dev)


def randn(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """torch.randn: a tensor of standard normal samples of the given shape."""
    return _grad(_drawn(rng_of(generator).standard_normal, _size(shape, size), dtype, device),
                 requires_grad)


def rand(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """torch.rand: a tensor of uniform [0, 1) samples of the given shape."""
    return _grad(_drawn(rng_of(generator).random, _size(shape, size), dtype, device),
                 requires_grad)


def randint(low, high=None, size=(), *, generator=None, dtype=None, device=None):
    """torch.randint: a tensor of integers uniform in [low, high)."""
    if high is None:
        low, high = 0, low
    return tensor(rng_of(generator).integers(low, high, size), dtype=dtype or "int64",
                  device=device or "cpu")


def _grad(t, requires_grad):
    return t.requires_grad_(True) if requires_grad else t
