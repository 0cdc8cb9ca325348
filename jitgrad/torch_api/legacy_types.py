"""torch's type objects that programs still name: the legacy tensor types (torch.FloatTensor,
torch.LongTensor, ...: a constructor, an isinstance check and x.type()'s argument), torch.dtype,
torch.layout / torch.strided and the memory formats (torch.channels_last, ...: accepted by
x.to() and x.contiguous(); jitgrad's tensors have no user-visible strides, so a memory format
changes no value).

>>> import jitgrad as jg
>>> isinstance(jg.FloatTensor([1.0, 2.0]), jg.FloatTensor), jg.LongTensor(2, 3).dtype
(True, dtype('int64'))
"""
from __future__ import annotations

import numpy as np

from ..eager.tensor import Tensor, tensor
from .conversion import TYPE_NAMES
from .creation import zeros

dtype = np.dtype        # isinstance(x.dtype, torch.dtype)


class _Named:
    """A named constant of torch's (a layout or memory format): compared by identity."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


class layout(_Named):  # noqa: N801 - torch's name
    """torch.layout: jitgrad's tensors are dense and strided."""


class memory_format(_Named):  # noqa: N801 - torch's name
    """torch.memory_format: a layout hint; jitgrad's tensors have no user-visible strides."""


strided = layout("strided")
contiguous_format, channels_last, channels_last_3d, preserve_format = (
    memory_format(n) for n in ("contiguous_format", "channels_last", "channels_last_3d",
                               "preserve_format"))


class _LegacyType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and str(obj.dtype) == cls.dtype_name

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


def _new(cls, *args, device=None):
    """torch.FloatTensor(data) copies data; torch.FloatTensor(*sizes) is uninitialized there,
    zeros here."""
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        return tensor(args[0], dtype=cls.dtype_name, device=device or "cpu")
    return zeros(tuple(int(a) for a in args), dtype=cls.dtype_name, device=device)


LEGACY = {name: _LegacyType(name, (), {"dtype_name": dt, "__new__": _new,
                                       "__doc__": f"torch.{name}: a {dt} tensor's type."})
          for dt, name in TYPE_NAMES.items()}
