"""Differences along an axis with NumPy's names: diff (repeated forward differences) and
gradient (second-order central differences inside, one-sided at the edges)."""
from __future__ import annotations

import numpy as np

from ..dtypes import default_float
from ._convert import asarray, astype, normalize_axes, normalize_axis
from .elementwise import true_divide
from .shape import concatenate, slice_axis
from .ufuncs import add, multiply, subtract
from ..ir.types import kind_of


def diff(a, n=1, axis=-1):
    """numpy.diff: calculate the n-th discrete difference along the given axis."""
    x = asarray(a)
    ax = normalize_axis(axis, x.ndim)
    for _ in range(n):
        k = x.shape[ax]
        x = subtract(slice_axis(x, ax, 1, k), slice_axis(x, ax, 0, max(k - 1, 0)))
    return x


def gradient(f, *varargs, axis=None, edge_order=1):
    """NumPy's gradient: second-order central differences inside, one-sided (first or second
    order) at the edges; spacings are scalars or coordinate arrays, one per axis."""
    x = asarray(f)
    if kind_of(x.dtype) != "f":
        x = astype(x, default_float())
    axes = normalize_axes(axis, x.ndim)
    if edge_order not in (1, 2):
        raise ValueError(f"gradient: edge_order must be 1 or 2, got {edge_order}")
    spacing = list(varargs) if len(varargs) != 1 else list(varargs) * len(axes)
    if not spacing:
        spacing = [1.0] * len(axes)
    if len(spacing) != len(axes):
        raise TypeError(f"gradient: {len(varargs)} spacings given for {len(axes)} axes")
    out = [_gradient_axis(x, ax, h, edge_order) for ax, h in zip(axes, spacing)]
    return out[0] if len(out) == 1 else tuple(out)


def _gradient_axis(x, ax, h, edge_order):
    n = x.shape[ax]
    if n < edge_order + 1:
        raise ValueError("gradient: shape of the array too small to calculate a numerical "
                         f"gradient, at least (edge_order + 1) elements are required (axis {ax} "
                         f"has {n})")
    sl = lambda a, b: slice_axis(x, ax, a, b)   # noqa: E731
    coords = np.asarray(h.numpy() if hasattr(h, "numpy") else h, dtype=np.float64)
    if coords.ndim == 0:
        d = np.full(n - 1, float(coords))
    elif coords.shape == (n,):
        d = np.diff(coords)
    else:
        raise ValueError(f"gradient: distances must be a scalar or match the axis length {n}")
    shape = [1] * x.ndim

    def weights(w):   # per-position weights broadcast along `ax`
        shape[ax] = len(w)
        return np.asarray(w, dtype=x.dtype).reshape(shape)
    d1, d2 = d[:-1], d[1:]
    # interior: nonuniform second-order central difference (NumPy's formula)
    interior = add(add(multiply(sl(0, n - 2), weights(-d2 / (d1 * (d1 + d2)))),
                       multiply(sl(1, n - 1), weights((d2 - d1) / (d1 * d2)))),
                   multiply(sl(2, n), weights(d1 / (d2 * (d1 + d2)))))
    if edge_order == 1:
        first = true_divide(subtract(sl(1, 2), sl(0, 1)), float(d[0]))
        last = true_divide(subtract(sl(n - 1, n), sl(n - 2, n - 1)), float(d[-1]))
    else:
        a, b = float(d[0]), float(d[1])
        first = add(add(multiply(sl(0, 1), -(2 * a + b) / (a * (a + b))),
                        multiply(sl(1, 2), (a + b) / (a * b))),
                    multiply(sl(2, 3), -a / (b * (a + b))))
        a, b = float(d[-2]), float(d[-1])
        last = add(add(multiply(sl(n - 3, n - 2), b / (a * (a + b))),
                       multiply(sl(n - 2, n - 1), -(a + b) / (a * b))),
                   multiply(sl(n - 1, n), (2 * b + a) / (b * (a + b))))
    parts = [first, interior, last] if n > 2 else [first, last]
    return concatenate(parts, axis=ax)
