"""Records of the ops that make values from nothing but params (a literal)."""
from __future__ import annotations

from ..ops import Op
from ..registry import Primitive
from . import type_rules as T

RECORDS = [
    Primitive(Op.constant, "constant", T.constant_rule, lambda *, value: value.array, 0,
              nondiff="a constant", unbatchable="it takes no inputs, so its result is never batched",
              doc="the literal params['value']"),
]
