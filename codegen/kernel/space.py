"""Iteration spaces: how a kernel's loop indices address each flat operand array.

Every array reaching a generated kernel is a flat, C-contiguous 1-d view, so an operand is read at
one offset expression. An operand whose size equals the space's size is read at the space's flat
offset (whatever its shape: a reshape never moves an element of a C-ordered array); a one-element
operand at 0; any other operand broadcasts NumPy-style (right-aligned) against the space's shape
and is read at the dot product of the indices of the dims it spans with its own strides.
`offset_terms` is that rule, once: Space renders it as source (the CUDA generators),
codegen/cpu/kernels/function.LoopOffsets as LLVM IR.

Extents and strides are ints (jit kernels: shapes baked into the source as constants) or parameter
names (CUDA's eager kernels, one per op/dtype/rank: extents and each operand's strides are kernel
arguments, read through `Space.strided`); the unravel and the offset's dot product are the same
code for both.
"""
from __future__ import annotations

import functools
import math


def at(offset: str) -> str:
    """An offset as an array index. numba wraps negative signed indices around (i < 0 -> i + n),
    which LLVM cannot rule out for an index built from runtime loop bounds (a prange chunk, a
    row): the loads become gathers and a 4M-element sum ran 45x slower. Offsets here are never
    negative, and an unsigned index carries no wraparound."""
    return offset if offset.isdigit() else f"np.uint64({offset})"


def times(a, b):
    """a * b for extents that are ints or parameter names: an int when both are, else source."""
    if not isinstance(a, str) and not isinstance(b, str):
        return a * b
    if a == 1 or b == 1:
        return b if a == 1 else a
    return f"{a} * {b}"


def factor(e) -> str:
    """An extent or stride as an operand of `//`, `%` or `*` (a product in parentheses)."""
    return str(e) if not isinstance(e, str) or e.isidentifier() else f"({e})"


def c_strides(shape) -> tuple:
    """Element strides of a C-contiguous array of `shape` (ints, or source over parameter names)."""
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc = times(acc, d)
    return tuple(out[::-1])


def offset_terms(space_shape, shape) -> list:
    """(dim of the space, element stride) of each term of the offset at which an operand of
    `shape` is read at a point of a space of `space_shape`: the space's own dims and strides when
    the operand fills it, none for one element, else the dims it spans, right-aligned (NumPy
    broadcasting), with its own strides. Dims of extent 1 add no term."""
    shape, space_shape = tuple(shape), tuple(space_shape)
    if shape == space_shape or math.prod(shape) == math.prod(space_shape):
        shape = space_shape
    lead = len(space_shape) - len(shape)
    return [(lead + k, s) for k, (e, s) in enumerate(zip(shape, c_strides(shape))) if e != 1]


class Space:
    """`index[d]` is an expression (or a thunk producing one) for the loop index along dim d."""

    def __init__(self, shape, index, cse, flat=None):
        self.shape = tuple(shape)
        self.size = functools.reduce(times, self.shape, 1)
        self._index = list(index)
        self.cse = cse
        self._flat = flat

    def index(self, d) -> str:
        i = self._index[d]
        if callable(i):
            i = self._index[d] = i()
        return i

    @property
    def flat(self) -> str:
        if self._flat is None:
            self._flat = self._terms(self.shape)
        return self._flat

    def dot(self, dims, strides, base=None) -> str:
        """base + the sum of index(d) * stride over `dims` (dims of extent 1 add no term)."""
        terms = ([base] if base else []) + \
            [self.index(d) if s == 1 else f"{self.index(d)} * {factor(s)}"
             for d, s in zip(dims, strides) if self.shape[d] != 1]
        return self.cse.get(" + ".join(terms)) if terms else "0"

    def strided(self, strides, base=None) -> str:
        """The offset of an operand laid out by explicit per-dim element strides (ints or
        parameter names; 0 along a broadcast dim) from `base`: CUDA's eager kernels, whose
        operands' layouts are runtime arguments."""
        return self.dot(range(len(self.shape)), strides, base)

    def offset(self, shape) -> str:
        shape = tuple(shape)
        size = math.prod(shape)
        if size == self.size:
            return self.flat
        if size == 1:
            return "0"
        gap = broadcast_gap(self.shape, shape)
        if gap is not None:       # a generator's coverage check (why_not) let this kernel through
            raise AssertionError(f"codegen: {gap}")
        return self._terms(shape)

    def _terms(self, shape) -> str:
        terms = offset_terms(self.shape, shape)
        return self.dot([d for d, _ in terms], [s for _, s in terms])


def broadcast_gap(space_shape, shape) -> str | None:
    """None when an operand of `shape` is read in a space of `space_shape` (the space's size, one
    element, or NumPy broadcasting, right-aligned), else why not: the rule `Space.offset` follows,
    for the checks that run before any code is written."""
    size = math.prod(shape)
    if size in (1, math.prod(space_shape)):
        return None
    lead = len(space_shape) - len(shape)
    if lead < 0 or any(e not in (1, space_shape[lead + k]) for k, e in enumerate(shape)):
        return (f"operand shape {tuple(shape)} does not broadcast to the iteration space "
                f"{tuple(space_shape)}")
    return None


def bare(shape) -> Space:
    """A space without loop indices: its shape, size and identity, for those checks."""
    return Space(shape, (), None)


def _unravel(shape, var, cse) -> list:
    """Per-dim index getters for a flat C-order index `var` over `shape` (divmod, on demand)."""
    strides = c_strides(shape)

    def idx(d):
        e = f"{var} // {factor(strides[d])}" if strides[d] != 1 else var
        if d > 0:
            e = f"({e}) % {factor(shape[d])}"
        return lambda: cse.get(e)
    return [idx(d) for d in range(len(shape))]


def flat_space(shape, var, cse):
    """A space walked by one flat index `var`; per-dim indices are derived by divmod on demand."""
    shape = tuple(shape)
    return Space(shape, _unravel(shape, var, cse), cse, flat=var)


def rows_space(shape, row, col, cse):
    """A (..., L) space walked by a row index over the leading dims and a column index `col`."""
    shape = tuple(shape)
    flat = cse.get(f"{row} * {factor(shape[-1])} + {col}") if shape[-1] != 1 else row
    return Space(shape, _unravel(shape[:-1], row, cse) + [col], cse, flat=flat)


def collapse(shape, operand_shapes):
    """Merge adjacent dims over which every operand broadcasts alike; drop unit dims.
    Returns (collapsed shape, each operand's collapsed shape)."""
    nd = len(shape)
    pats = []
    for s in operand_shapes:
        s = (1,) * (nd - len(s)) + tuple(s)
        pats.append([e != 1 for e in s])
    keep = [d for d in range(nd) if shape[d] != 1]
    groups = []
    for d in keep:
        if groups and all(p[groups[-1][-1]] == p[d] for p in pats):
            groups[-1].append(d)
        else:
            groups.append([d])
    out = tuple(math.prod(shape[d] for d in g) for g in groups)
    ops = [tuple(out[k] if p[g[0]] else 1 for k, g in enumerate(groups)) for p in pats]
    return out, ops
