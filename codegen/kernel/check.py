"""The checking handler of the ops protocol (codegen/kernel/ops_protocol.py): runs a shared rule
(codegen/kernel/exprs.py) on dtypes instead of values and answers whether a target builds it,
and if not why (the first basic op the target lacks at that dtype).

A target describes itself by `kinds` (basic op -> the dtype kinds it computes: f float, i
signed, u unsigned, b bool), `dtypes` (those it computes in), `stored` (those it also loads,
stores and converts) and `has_math(name, dtype)`.

`gap` answers for one op; `CheckWalk` for a kernel body: the body walk every target renders
(codegen/kernel/walk.py) run with this handler, by the rules the source-writing walk follows
(space.broadcast_gap, evaluator.relabel), writing no code."""
from __future__ import annotations

import copy

import numpy as np

from .evaluator import relabel
from .space import broadcast_gap
from .walk import BodyWalk

BOOL = np.dtype(bool)


class CheckOps:
    """The ops protocol on dtypes: every value is its dtype, every op checks the target."""

    def __init__(self, kinds, dtypes, stored, has_math):
        self.kinds, self.dtypes, self.stored, self.has_math = kinds, dtypes, stored, has_math
        self.missing = None     # the first basic op a walk found the target lacks

    def _miss(self, what, dtype):
        """Note a basic op the target lacks and go on with the dtype it would give (the walk
        finishes; gap() reports the first one)."""
        self.missing = self.missing or what
        return np.dtype(dtype)

    def _need(self, name, dtype, *xs):
        dtype = np.dtype(dtype)
        if any(np.dtype(x) != dtype for x in xs):
            return self._miss(f"{name} of {', '.join(np.dtype(x).name for x in xs)} "
                              "(operands of different dtypes)", dtype)
        if dtype.name not in self.dtypes or dtype.kind not in self.kinds[name]:
            return self._miss(f"{name} of {dtype.name}", dtype)
        return dtype

    def const(self, value, dtype):
        return np.dtype(dtype)

    def binary(self, name, x, y, dtype):
        if name == "pow" and np.dtype(dtype).kind == "f":
            return self.math("pow", dtype, x, y)
        return self._need(name, dtype, x, y)

    def unary(self, name, x, dtype):
        return self._need(name, dtype, x)

    def compare(self, pred, x, y, dtype):
        self._need("compare", dtype, x, y)
        return BOOL

    def select(self, c, x, y):
        if np.dtype(c) != BOOL or np.dtype(x) != np.dtype(y):
            return self._miss(f"select of {np.dtype(x).name} and {np.dtype(y).name}", x)
        return np.dtype(x)

    def convert(self, x, src, dst):
        if np.dtype(src).name not in self.stored or np.dtype(dst).name not in self.stored:
            return self._miss(f"convert {np.dtype(src).name} -> {np.dtype(dst).name}", dst)
        return np.dtype(dst)

    def math(self, name, dtype, *xs):
        if any(np.dtype(x) != np.dtype(dtype) for x in xs) or not self.has_math(name, dtype):
            return self._miss(f"{name} of {np.dtype(dtype).name}", dtype)
        return np.dtype(dtype)


def gap(rule, target: CheckOps, in_dtypes, out_dtype) -> str | None:
    """None when `target` computes `rule` at these dtypes, else why not."""
    return _gap(rule, target, [np.dtype(d) for d in in_dtypes], in_dtypes, out_dtype)


def _gap(rule, target, args, in_dtypes, out_dtype):
    """gap with the operands' dtypes as a walk computed them (`args`)."""
    walk = copy.copy(target)
    walk.missing = None
    got = rule(walk, args, [np.dtype(d) for d in in_dtypes], np.dtype(out_dtype))
    if walk.missing:
        return f"no {walk.missing}"
    if np.dtype(got) != np.dtype(out_dtype):
        return f"gives {np.dtype(got).name}, not {np.dtype(out_dtype).name}"
    return None


class CheckWalk(BodyWalk):
    """The body walk on dtypes: `why` is None when a target computes the walked values at a point
    of the spaces `space_of` gives (bare ones do: space.bare), else the first reason it does not:
    an operand that does not broadcast to its space, a reshape a point cannot read, an op the
    target's scalar `rules` lack or its handler `target` (a CheckOps) cannot compute at these
    dtypes. `given`: values computed elsewhere (accumulators, scratch rows)."""

    def __init__(self, body, arrays, space_of, rules, target, given=()):
        super().__init__(body, arrays, {v: v.type.dtype for v in given})
        self.space_of, self.rules, self.target = space_of, rules, target
        self.why = None

    def check(self, values) -> str | None:
        for v in values:
            self.expr(v)
        return self.why

    def _note(self, why):
        self.why = self.why or why

    def load(self, v, shape=None):
        self._note(broadcast_gap(self.space_of(v).shape, shape or v.type.shape))
        return v.type.dtype

    def constant(self, node, v):
        return v.type.dtype if node.params["value"].size == 1 else self.load(v)

    def reshaped(self, node, v):
        (x,) = node.inputs
        how = relabel(node, v, self.space_of, self.arrays)
        if how is None:
            self._note(f"{node.op} {x.type} -> {v.type} inside a kernel")
        elif how == "reload":
            self._note(broadcast_gap(self.space_of(x).shape, v.type.shape))
        else:
            self.expr(x)
        return v.type.dtype

    def apply(self, node, args):
        rule, out = self.rules.get(node.op), node.output.type.dtype
        if rule is None:
            self._note(f"{node.op} has no scalar rule")
        else:
            why = _gap(rule, self.target, args, [x.type.dtype for x in node.inputs], out)
            self._note(why and f"{node.op}: {why}")
        return out
