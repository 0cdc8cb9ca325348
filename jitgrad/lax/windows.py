"""Windows over N-d arrays: padding strings as JAX resolves them, the flat indices of every
(strided, dilated) window, and lax.reduce_window.

A window op pads (with the init value; base dilation as interior padding), then gathers every
window with ONE `take` of precomputed flat indices, and reduces over the window axis: a handful
of graph nodes whatever the window size, differentiable through take (a scatter-add)."""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp
from ..ir.types import kind_of
from ..numpy._convert import asarray
from ..numpy.host_values import concrete
from . import elementwise as lax_elementwise
from .data_movement import pad
from ..numpy.window_extremum import first_extremum


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """'VALID' -> no padding; 'SAME' -> output size ceil(in / stride), the odd pixel of padding
    at the end; 'SAME_LOWER' -> the odd pixel at the start."""
    if not isinstance(padding, str):
        raise TypeError(f"padding must be 'SAME', 'SAME_LOWER' or 'VALID', or a sequence of "
                        f"(low, high) pairs, got {padding!r}")
    mode = padding.upper()
    if mode == "VALID":
        return [(0, 0)] * len(in_shape)
    if mode not in ("SAME", "SAME_LOWER"):
        raise RuntimeError(f"Unrecognized padding type: expected 'VALID', 'SAME' or "
                           f"'SAME_LOWER', got {padding}.")
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides):
        out = -(-n // s)
        total = max((out - 1) * s + k - n, 0)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if mode == "SAME" else (big, small))
    return pads


def dilate(size, dilation):
    return 0 if size == 0 else 1 + dilation * (size - 1)


def window_indices(shape, window, strides, dilation):
    """(*out_shape, K): for each output position, the flat (row-major) indices into an array of
    `shape` of its window's K = prod(window) elements (window offsets row-major)."""
    out_shape, per_dim = [], []
    for n, k, s, d in zip(shape, window, strides, dilation):
        span = dilate(k, d)
        if n < span:
            raise ValueError(f"window of size {tuple(window)} (dilated: {span} along one "
                             f"dimension) is larger than the padded input of shape "
                             f"{tuple(shape)}")
        out = (n - span) // s + 1
        out_shape.append(out)
        per_dim.append(np.arange(out)[:, None] * s + np.arange(k)[None, :] * d)  # (out, k)
    rank = len(shape)
    flat = np.zeros((1,) * (2 * rank), np.int64)
    stride = 1
    for i in reversed(range(rank)):
        shape_i = [1] * (2 * rank)
        shape_i[i], shape_i[rank + i] = per_dim[i].shape
        flat = flat + per_dim[i].reshape(shape_i) * stride
        stride *= shape[i]
    return flat.reshape(tuple(out_shape) + (math.prod(window),))


_SUM_PROD = ((lax_elementwise.add, jnp.add, jnp.sum), (lax_elementwise.mul, jnp.multiply, jnp.prod))
# max / min: the derivative goes to the first extremum of each window (JAX's select_and_scatter)
_CHOOSERS = ((lax_elementwise.max, jnp.maximum, True), (lax_elementwise.min, jnp.minimum, False))


def _window_reducer(computation):
    for lax_fn, jnp_fn, reduce in _SUM_PROD:
        if computation is lax_fn or computation is jnp_fn:
            return lambda w: reduce(w, axis=-1)
    for lax_fn, jnp_fn, largest in _CHOOSERS:
        if computation is lax_fn or computation is jnp_fn:
            return lambda w: first_extremum(w, -1, largest)

    def fold(w):        # any binary computation, applied along the window axis
        acc = w[..., 0]
        for i in range(1, w.shape[-1]):
            acc = computation(acc, w[..., i])
        return acc
    return fold


def _is_identity(computation, init):
    """Whether init is max's identity (the dtype's lowest) or min's (its highest): then, as in
    JAX's reduce_window_max / _min, it is left out (it would share a tie's gradient)."""
    value, kind = concrete(init), kind_of(init.dtype)
    if value is None or kind not in "biuf":
        return False
    if kind in "iu":
        info = np.iinfo(np.dtype(str(init.dtype)))
        low, high = info.min, info.max
    else:
        low, high = (False, True) if kind == "b" else (-np.inf, np.inf)
    want = {lax_elementwise.max: low, jnp.maximum: low, lax_elementwise.min: high,
            jnp.minimum: high}.get(computation)
    return want is not None and bool(np.asarray(value) == want)


def _tuple(v, n, name, what):
    out = (1,) * n if v is None else tuple(int(i) for i in v)
    if len(out) != n or any(i < 1 for i in out):
        raise TypeError(f"lax.{name}: {what} must be {n} positive ints (one per operand "
                        f"dimension), got {v!r}")
    return out


def reduce_window(operand, init_value, computation, window_dimensions, window_strides,
                  padding, base_dilation=None, window_dilation=None):
    """Reduce every window with `computation` (lax.add/max/min/mul or their jnp forms run as one
    reduction; any other binary function is folded over the window), starting from init_value.
    padding: 'SAME', 'SAME_LOWER', 'VALID' or one (low, high) pair per dimension, filled with
    init_value."""
    if isinstance(operand, (tuple, list)):
        raise NotImplementedError("lax.reduce_window over several operands (a pytree) is not "
                                  "supported; reduce each array on its own")
    x = asarray(operand)
    n = x.ndim
    window = _tuple(window_dimensions, n, "reduce_window", "window_dimensions")
    strides = _tuple(window_strides, n, "reduce_window", "window_strides")
    base = _tuple(base_dilation, n, "reduce_window", "base_dilation")
    wdil = _tuple(window_dilation, n, "reduce_window", "window_dilation")
    if isinstance(padding, str):
        pads = padtype_to_pads(x.shape, [dilate(k, d) for k, d in zip(window, wdil)], strides,
                               padding)
    else:
        pads = [tuple(int(p) for p in pair) for pair in padding]
        if len(pads) != n or any(len(p) != 2 for p in pads):
            raise ValueError(f"lax.reduce_window: padding must be a string or one (low, high) "
                             f"pair per dimension ({n}), got {padding!r}")
    init = jnp.astype(asarray(init_value), x.dtype)
    x = pad(x, init, [(lo, hi, b - 1) for (lo, hi), b in zip(pads, base)])
    idx = window_indices(tuple(x.shape), window, strides, wdil)
    windows = jnp.take(jnp.reshape(x, (-1,)), idx, axis=0)
    reduced = _window_reducer(computation)(windows)
    if _is_identity(computation, init):
        return reduced
    return computation(jnp.broadcast_to(init, tuple(reduced.shape)), reduced)
