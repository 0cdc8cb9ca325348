"""Records of the ops that make values from nothing but params (and a PRNG key)."""
from __future__ import annotations

from .. import reference
from ..batching import rules as B
from ..ops import Op
from ..registry import Primitive
from . import type_rules as T

RECORDS = [
    Primitive(Op.constant, "constant", T.constant_rule, lambda *, value: value.array, 0,
              nondiff="a constant", unbatchable="it takes no inputs, so its result is never batched",
              doc="the literal params['value']"),
    Primitive(Op.random, "random", T.random_rule, reference.random, 1,
              nondiff="a draw from a PRNG key: integer key, no derivative (as in JAX)",
              batch=B.random, gaps={"llvm": "NumPy's generator runs as a host step",
                                    "numba": "NumPy's generator runs as a host step"},
              doc="params['shape'] values of params['dist'] from the Philox key"),
]
