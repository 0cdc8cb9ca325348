"""torch.nn's dict and list containers: ModuleDict, ParameterList, ParameterDict. Entries are
registered under their keys ("0", "1", ... for a list), so parameters(), state_dict() and the
pytree of the owning model see them as PyTorch's do."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..eager.array_base import ArrayOps
from .module import Module, Parameter


def _parameter(value, where):
    """A Parameter as torch stores it: tensors become Parameters, None stays."""
    if value is None or isinstance(value, Parameter):
        return value
    if isinstance(value, ArrayOps):
        return Parameter.of(value)
    if isinstance(value, np.ndarray):
        return Parameter(value)
    raise TypeError(f"{where}: expected a Parameter or a tensor, got {type(value).__name__}")


def _pairs(items, where):
    if isinstance(items, Mapping):
        return list(items.items())
    pairs = list(items)
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"{where}: element #{i} of the iterable should be a (key, value) "
                            f"pair, got {pair!r}")
    return pairs


class ModuleDict(Module):
    """torch.nn.ModuleDict: modules by string key, in insertion order."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        delattr(self, key)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def clear(self):
        for key in list(self._modules):
            del self[key]

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def update(self, modules):
        for key, module in _pairs(modules, "ModuleDict.update"):
            self[key] = module


class ParameterList(Module):
    """torch.nn.ParameterList: parameters registered as "0", "1", ...; tensors are wrapped
    in Parameters."""

    def __init__(self, values=None):
        super().__init__()
        for v in values or ():
            self.append(v)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList(list(self)[idx])
        return list(self._parameters.values())[idx]

    def __setitem__(self, idx, value):
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"ParameterList index {idx} out of range for length {n}")
        self.register_parameter(str(idx % n), _parameter(value, "ParameterList"))

    def append(self, value):
        self.register_parameter(str(len(self)), _parameter(value, "ParameterList.append"))
        return self

    def extend(self, values):
        for v in values:
            self.append(v)
        return self

    def extra_repr(self):
        return "\n".join(f"({i}): Parameter containing: {tuple(p.shape)}"
                         for i, p in enumerate(self))


class ParameterDict(Module):
    """torch.nn.ParameterDict: parameters by string key, in insertion order."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, value):
        self.register_parameter(key, _parameter(value, "ParameterDict"))

    def __delitem__(self, key):
        delattr(self, key)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def get(self, key, default=None):
        return self._parameters.get(key, default)

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def clear(self):
        for key in list(self._parameters):
            del self[key]

    def update(self, parameters):
        for key, value in _pairs(parameters, "ParameterDict.update"):
            self[key] = value


__all__ = ["ModuleDict", "ParameterList", "ParameterDict"]
