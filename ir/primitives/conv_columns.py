"""Records of im2col and col2im: a convolution's columns gathered from shifted runs of the
(padded, flattened) image in one copy, and their adjoint, the runs' gradients summed back in
one kernel.

x (..., R, L) -> im2col -> (..., K*rows, length): block t is x[..., r_t:r_t+rows, c_t:c_t+length]
for params["starts"][t] = (r_t, c_t). col2im is its transpose: zeros of (..., *params["size"])
with block t of its input added at (r_t, c_t), taps in order. jitgrad.nn's conv2d builds its
GEMM operand with im2col; before this pair, the same was K slices and a concatenate (forward)
and K slices, K pads and a K-way sum (backward): three times the memory traffic (issue 25).
"""
from __future__ import annotations

import numpy as np

from ..autodiff import jvp_rules as J
from ..autodiff import vjp_rules as V
from ..batching import rules as B
from ..errors import ShapeError
from ..ops import Op
from ..registry import Primitive
from ..types import TensorType, is_bool


def _check(op, t, starts, rows, length, size):
    if t.ndim < 2:
        raise ShapeError(f"{op}: expected an input of rank >= 2, got {t}")
    if not starts or rows < 0 or length < 0:
        raise ShapeError(f"{op}: expected at least one start and non-negative rows/length, "
                         f"got starts={starts!r}, rows={rows}, length={length}")
    R, L = size
    for r, c in starts:
        if not (0 <= r and r + rows <= R and 0 <= c and c + length <= L):
            raise ShapeError(f"{op}: the block at ({r}, {c}) of {rows}x{length} does not fit "
                             f"in the last two axes {R}x{L}")


def im2col_rule(op, types, params):
    (t,) = types
    starts, rows, length = params["starts"], params["rows"], params["length"]
    _check(op, t, starts, rows, length, t.shape[-2:])
    return [TensorType(t.shape[:-2] + (len(starts) * rows, length), t.dtype)]


def col2im_rule(op, types, params):
    (t,) = types
    starts, rows, length, size = params["starts"], params["rows"], params["length"], params["size"]
    if is_bool(t.dtype):
        raise ShapeError(f"{op}: expected a numeric input, got {t}")
    _check(op, t, starts, rows, length, size)
    if t.shape[-2:] != (len(starts) * rows, length):
        raise ShapeError(f"{op}: expected the last two axes ({len(starts) * rows}, {length}) "
                         f"for {len(starts)} blocks of {rows}x{length}, got {t}")
    return [TensorType(t.shape[:-2] + tuple(size), t.dtype)]


def im2col(x, *, starts, rows, length):
    return np.concatenate([x[..., r:r + rows, c:c + length] for r, c in starts], axis=-2)


def col2im(y, *, starts, rows, length, size):
    out = np.zeros(y.shape[:-2] + tuple(size), y.dtype)
    for t, (r, c) in enumerate(starts):
        out[..., r:r + rows, c:c + length] += y[..., t * rows:(t + 1) * rows, :]
    return out


@V.single
def im2col_vjp(e, node, g):
    return [e(Op.col2im, g, **node.params, size=node.inputs[0].type.shape[-2:])]


@V.single
def col2im_vjp(e, node, g):
    p = node.params
    return [e(Op.im2col, g, starts=p["starts"], rows=p["rows"], length=p["length"])]


RECORDS = [
    Primitive(Op.im2col, "shape", im2col_rule, im2col, vjp=im2col_vjp, jvp=J.linear,
              batch=B.prepend(), group="shape",
              doc="the blocks x[..., r:r+rows, c:c+length] for (r, c) in params['starts'], "
                  "joined on axis -2"),
    Primitive(Op.col2im, "shape", col2im_rule, col2im, vjp=col2im_vjp, jvp=J.linear,
              batch=B.prepend(), group="shape", accepts="numeric",
              doc="zeros of params['size'] with block t of x (rows x length) added at "
                  "params['starts'][t]: im2col's transpose"),
]
