"""Reducer semantics, once for every target, written against the `ops` protocol
(codegen/kernel/ops_protocol.py): each reduce op's kind, its identity, the combine step (NaN-propagating
max/min as NumPy's, any/all for bools), argmax/argmin's first-index rule and the accumulator
dtype. The CPU (codegen/cpu/kernels/accumulators.py) and CUDA (codegen/cuda/exprs.py) render them
with their handlers; a target keeps its own combine only where it has a better instruction.
"""
from __future__ import annotations

import numpy as np

from ...ir.ops import Op

BOOL = np.dtype(bool)
# reduce op -> (kind, tracks the index of the winner)
REDUCER_KIND = {Op.reduce_sum: ("sum", False), Op.reduce_prod: ("prod", False),
                Op.reduce_max: ("max", False), Op.reduce_min: ("min", False),
                Op.argmax: ("max", True), Op.argmin: ("min", True)}


def accumulator_dtype(kind, dtype) -> np.dtype:
    """The dtype a reduction of `kind` over `dtype` accumulates in: integer (and bool) sums and
    products in 64 bits, as np.sum and torch.sum widen them (the result, taken back to the op's
    output dtype, is the same modulo 2**bits); everything else in its own dtype."""
    dtype = np.dtype(dtype)
    if kind in ("sum", "prod") and dtype.kind in "iub":
        return np.dtype("uint64" if dtype.kind == "u" else "int64")
    return dtype


def identity(o, kind, dt):
    """The value an empty reduction gives: 0, 1, -inf / +inf, False / True, the int extremes."""
    dt = np.dtype(dt)
    if kind in ("sum", "prod"):
        return o.const(0 if kind == "sum" else 1, dt)
    if dt.kind == "b":          # any / all
        return o.const(kind == "min", dt)
    if dt.kind == "f":
        return o.const(-np.inf if kind == "max" else np.inf, dt)
    info = np.iinfo(dt)
    return o.const(info.min if kind == "max" else info.max, dt)


def combine(o, kind, acc, v, dt):
    """The accumulator after absorbing v: NaN-propagating extrema for floats (NumPy's max/min),
    or / and for bools."""
    dt = np.dtype(dt)
    if kind in ("sum", "prod"):
        return o.binary("add" if kind == "sum" else "mul", acc, v, dt)
    if dt.kind == "b":
        return o.binary("or" if kind == "max" else "and", acc, v, dt)
    return o.select(better(o, kind, v, acc, dt, nan_wins=True), v, acc)


def better(o, kind, v, best, dt, nan_wins=False):
    """Whether v beats `best`: strictly greater (max) or smaller (min); for floats a NaN v also
    wins, always (nan_wins: max/min propagate NaN) or over a non-NaN best only (argmax/argmin
    return the index of the first NaN, as NumPy)."""
    dt = np.dtype(dt)
    strict = o.compare(">" if kind == "max" else "<", v, best, dt)
    if dt.kind != "f":
        return strict
    nan = o.compare("!=", v, v, dt)
    if not nan_wins:
        nan = o.binary("and", nan, o.compare("==", best, best, dt), BOOL)
    return o.binary("or", strict, nan, BOOL)


def tie(o, x, y, dt):
    """Whether two winners are equal (both NaN counts): the smaller index is then argmax's."""
    same = o.compare("==", x, y, dt)
    if np.dtype(dt).kind != "f":
        return same
    both_nan = o.binary("and", o.compare("!=", x, x, dt), o.compare("!=", y, y, dt), BOOL)
    return o.binary("or", same, both_nan, BOOL)
