"""Updates that share a position: what `x.at[idx].set / multiply / min / max` combine where an
index repeats, as JAX does on CPU (its scatter runs the updates in order): set keeps the last
write, multiply composes the updates (their product; its rounding may differ from JAX's
left-to-right product by an ulp), min / max keep the extreme one (NaN wins; among equal values
the last). Written with primitives (one or two stable argsorts, takes, a scatter_add of integer
indices, log2(m) products for multiply), so gradients (to the chosen update only; the product
rule over composed updates), vmap and every backend follow; unique indices skip the sort."""
from __future__ import annotations

import numpy as np

from ..eager.dispatch import apply
from ..ir import Op
from ..ir.types import kind_of
from ._convert import device_of, host_array
from .elementwise import invert, where
from .host_values import concrete
from .shape import concatenate
from .ufuncs import add, equal, maximum, multiply, negative, not_equal


def _argsort(a):
    return apply(Op.argsort, [a], {"axis": 0})


def _take(a, idx):
    return apply(Op.take, [a, idx], {"axis": 0})


def _reversed_order(v):
    """An order-reversing key of v: sorting by it puts the smallest value last (NaN still last)."""
    return negative(v) if kind_of(v.dtype) == "f" else invert(v)     # ~v: -v - 1, or not v


# combining rule -> the key that sorts each position's chosen update last (None: keep the order)
_SORT_KEY = {"set": None, "multiply": None, "max": lambda v: v, "min": _reversed_order}


def _known_unique(p):
    """Whether the flat positions p are known (not traced) to hit no slot twice (the slot where
    dropped updates go included: two drops there must not add up their update indices)."""
    c = concrete(p)
    if c is None:
        return False
    c = np.asarray(c)
    return len(np.unique(c)) == c.size


def _segment_products(sp, sv):
    """The running product within each run of equal sorted positions sp (Hillis-Steele: after
    the step of distance d each entry holds the product of up to 2d entries of its run ending
    there), so the last entry of a run holds the run's product."""
    m, d = sv.shape[0], 1
    while d < m:
        same = concatenate([host_array(np.zeros(d, bool), device_of(sp)),
                            equal(sp[d:], sp[:-d])])
        earlier = concatenate([host_array(np.ones(d, sv.dtype), device_of(sv)), sv[:-d]])
        sv = multiply(where(same, earlier, host_array(np.ones((), sv.dtype), device_of(sv))), sv)
        d *= 2
    return sv


def combine(p, v, slots, how, unique=False):
    """(combined (slots,), hit (slots,) bool): per slot of a flat array, the updates v (m,) at
    flat positions p (m,) combined by `how` ("set", "multiply", "min", "max"), and whether any
    update reached it. unique: the caller promises no position repeats."""
    dev = device_of(p, v)
    m = p.shape[0]
    if m == 0:
        return (host_array(np.zeros(slots, v.dtype), dev), host_array(np.zeros(slots, bool), dev))
    if unique or m == 1 or _known_unique(p):
        sp, sv, last = p, v, None
    else:
        key = _SORT_KEY[how]
        if key is None:
            order = _argsort(p)
        else:       # by position, then by key: a stable sort by key, then by position
            by_key = _argsort(key(v))
            order = _take(by_key, _argsort(_take(p, by_key)))
        sp, sv = _take(p, order), _take(v, order)
        last = concatenate([not_equal(sp[:-1], sp[1:]), host_array(np.ones(1, bool), dev)])
        if how == "multiply":
            sv = _segment_products(sp, sv)
    ones = host_array(np.arange(1, m + 1, dtype=np.int64), dev)
    chosen = ones if last is None else where(last, ones, 0)
    # per slot, 1 + the sorted index of its chosen update (each slot receives at most one)
    k = apply(Op.scatter_add, [sp, chosen], {"shape": (slots,), "axis": 0})
    hit = not_equal(k, 0)
    return _take(sv, maximum(add(k, -1), 0)), hit
