"""Strided views a matmul kernel reads its operands through, in place.

A chain of slices (positive steps), transposes (any permutation) and reshapes from a kernel input
to a matmul operand selects elements of the input's row-major buffer at an offset plus a stride
per axis: a View. The GEMM reads such an operand where it lies when one of its two matrix axes
has stride 1: the other's stride is the leading dimension (BLAS's lda), the operand transposed
when the stride-1 axis is the rows; the batch axes may have any strides. Attention's
`qkv[..., h*d:(h+1)*d].reshape(b, t, h, d).transpose(0, 2, 1, 3)` is such a view (batch strides
t*3*h*d and d, leading dimension 3*h*d): no copy kernel runs before the product.

A reshape keeps a view only where the axes it merges are contiguous with each other (NumPy's
no-copy reshape); `(att @ v).transpose(0, 2, 1, 3).reshape(b, t, h*d)` is not one (its new last
axis has two strides) and stays a copy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..ops import Op


VIEW_OPS = (Op.slice, Op.transpose, Op.reshape)     # what View.apply follows


@dataclass(frozen=True)
class View:
    offset: int         # elements from the buffer's start to element (0, ..., 0)
    shape: tuple
    strides: tuple      # elements between neighbours along each axis

    @staticmethod
    def of(shape) -> "View":
        """The whole row-major buffer of `shape`."""
        strides, acc = [], 1
        for d in reversed(shape):
            strides.append(acc)
            acc *= d
        return View(0, tuple(shape), tuple(strides[::-1]))

    def apply(self, node) -> "View | None":
        """The view after `node` (a slice, transpose or reshape of this view), or None when the
        result is not one strided view."""
        p = node.params
        if node.op == Op.slice:
            return View(self.offset + sum(a * s for a, s in zip(p["start"], self.strides)),
                        tuple(node.output.type.shape),
                        tuple(s * k for s, k in zip(self.strides, p["step"])))
        if node.op == Op.transpose:
            return View(self.offset, tuple(self.shape[a] for a in p["perm"]),
                        tuple(self.strides[a] for a in p["perm"]))
        if node.op == Op.reshape:
            strides = reshaped_strides(self.shape, self.strides, tuple(node.output.type.shape))
            return None if strides is None else View(self.offset, tuple(node.output.type.shape),
                                                     strides)
        return None


def reshaped_strides(shape, strides, new) -> tuple | None:
    """Strides of `new` over the same elements as (shape, strides) in row-major order, or None
    where a merged group of axes is not contiguous with itself (or the view is empty). Size-1
    axes take stride 0."""
    if math.prod(shape) != math.prod(new) or math.prod(new) == 0:
        return None
    old = [(d, s) for d, s in zip(shape, strides) if d != 1]
    tgt = [k for k, d in enumerate(new) if d != 1]
    out = [0] * len(new)
    oi = ni = 0
    while oi < len(old):
        po, pn, oj, nj = old[oi][0], new[tgt[ni]], oi + 1, ni + 1
        while po != pn:             # the smallest groups of equal size
            if po < pn:
                po, oj = po * old[oj][0], oj + 1
            else:
                pn, nj = pn * new[tgt[nj]], nj + 1
        if any(old[k][1] != old[k + 1][1] * old[k + 1][0] for k in range(oi, oj - 1)):
            return None
        s = old[oj - 1][1]
        for k in range(nj - 1, ni - 1, -1):
            out[tgt[k]] = s
            s *= new[tgt[k]]
        oi, ni = oj, nj
    return tuple(out)


def gemm_layout(view: View, prefer_transposed: bool):
    """(stored shape, transposed, leading dimension, batch strides) of the matrices `view` holds
    as a GEMM reads them, or None when neither matrix axis has stride 1. The stored shape has
    the last two axes swapped when transposed (element [i, j] at j*ld + i); batch strides are 0
    on size-1 axes. Where both orientations fit (a size-1 axis), `prefer_transposed` picks."""
    *batch, r, c = view.shape
    *bs, sr, sc = view.strides
    plain = c == 1 or sc == 1
    flipped = r == 1 or sr == 1
    if plain and not (flipped and prefer_transposed):
        stored, trans, ld, width = view.shape, False, sr if r > 1 else c, c
    elif flipped:
        stored, trans, ld, width = (*batch, c, r), True, sc if c > 1 else r, r
    else:
        return None
    if ld < width:
        return None                 # overlapping rows: not a matrix BLAS reads
    return (tuple(stored), trans, max(ld, 1),
            tuple(0 if d == 1 else s for d, s in zip(batch, bs)))
