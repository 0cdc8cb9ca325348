"""Parameter: the tensor a Module registers as trainable (torch.nn.parameter.Parameter)."""
from __future__ import annotations

import numpy as np

from ..eager.tensor import Tensor
from ..ir.types import kind_of


class Parameter(Tensor):
    """A float tensor that a Module registers as trainable (`requires_grad=True`).

    Under jit and grad a Parameter is an ordinary pytree leaf like any tensor."""
    __slots__ = ()

    def __new__(cls, data, requires_grad=True):
        arr = np.array(np.asarray(data), copy=True)
        if kind_of(arr.dtype) != "f":
            raise TypeError(f"Parameter: expected float data, got {arr.dtype}")
        p = cls._wrap(arr)
        p.requires_grad = bool(requires_grad)
        return p

    @classmethod
    def of(cls, tensor, requires_grad=True):
        """A Parameter holding `tensor`'s storage on its device (Module.to)."""
        p = cls._wrap(tensor._data, tensor.device)
        p._meta_type = tensor._meta_type            # shape and dtype of a meta tensor
        p.requires_grad = bool(requires_grad)
        return p

    def __reduce_ex__(self, protocol):   # copy.deepcopy and pickle (a copy of the data)
        return Parameter, (self._host("pickling a Parameter"), self.requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__
