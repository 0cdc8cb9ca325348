"""torch.return_types: the named tuples (values, indices) that torch's dim-wise max, min, sort,
topk, ... return. They are pytrees (namedtuples), so jitted functions may return them."""
from __future__ import annotations

from collections import namedtuple

_VALUES_INDICES = ("max", "min", "sort", "topk", "median", "nanmedian", "mode", "kthvalue",
                   "cummax", "cummin")

globals().update({name: namedtuple(name, ("values", "indices")) for name in _VALUES_INDICES})
aminmax = namedtuple("aminmax", ("min", "max"))
frexp = namedtuple("frexp", ("mantissa", "exponent"))

__all__ = [*_VALUES_INDICES, "aminmax", "frexp"]
