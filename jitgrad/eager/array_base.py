"""The base class of eager Tensors and traced values: what needs no array function.

Operators and methods that compute (x + y, x.sum(), x.reshape(...), x[i], x.relu()) are
installed by the modules that define them, with `register_methods`: jitgrad.numpy registers its
operators and methods (jitgrad/numpy/methods.py) and nn.functional its activations, when they
are imported (jitgrad's __init__ imports both), as JAX installs its array methods from
jax.numpy. So this module, and everything below the front end, imports neither of them.
"""
from __future__ import annotations

from ..runtime.device import device as as_device
from .torch_size import ElementCount


def register_methods(methods: dict, cls=None) -> None:
    """Install `methods` (name -> function or property) on `cls` (default ArrayOps: eager
    Tensors and traced values alike)."""
    cls = cls or ArrayOps
    for name, fn in methods.items():
        setattr(cls, name, fn)


class ArrayOps:
    """numpy.ndarray: an array object represents a multidimensional, homogeneous array of fixed-size
    items."""
    __slots__ = ()
    __hash__ = object.__hash__

    ndim = property(lambda self: len(self.shape))

    @property
    def size(self) -> ElementCount:
        """NumPy's element count, an int that called is torch's x.size() / x.size(dim)."""
        return ElementCount(self.shape)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __pos__(self):
        return self

    def __complex__(self):
        return complex(self.item())

    def to_device(self, device, /, *, stream=None):
        """The Array API's x.to_device(device): this array on `device` (itself if already there)."""
        if stream is not None:
            raise ValueError("to_device: jitgrad has no streams to choose from; pass stream=None")
        dev = as_device(device)
        if dev == self.device:
            return self
        if not hasattr(self, "_device"):     # a traced value: it runs where its trace runs
            raise ValueError(f"to_device: a traced value stays on {self.device} inside the "
                             f"function; move the argument to {dev} before calling it")
        return self.to(dev)
