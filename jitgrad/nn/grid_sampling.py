"""torch.nn.functional.affine_grid and grid_sample (spatial transformer networks): sampling
grids from affine matrices, and bilinear, nearest or bicubic sampling of (N, C, H, W) inputs
(bilinear and nearest of (N, C, D, H, W) volumes too) at grid points with zeros, border or
reflection padding, as gathers (take_along_axis) weighted by the interpolation weights, so
gradients reach both the input and the grid."""
from __future__ import annotations

import itertools
import math

import numpy as np

from .. import numpy as jnp
from ..numpy._convert import asarray

_MODES, _PADDINGS = ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection")


def _base(n, align_corners):
    """Normalized coordinates of n pixel centers (or corners, with align_corners)."""
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return (np.arange(n) * 2.0 + 1.0) / n - 1.0


def affine_grid(theta, size, align_corners=None):
    """torch.nn.functional.affine_grid: theta (N, 2, 3) with size (N, C, H, W) -> (N, H, W, 2),
    or theta (N, 3, 4) with size (N, C, D, H, W) -> (N, D, H, W, 3); (x, y[, z]) order."""
    th = asarray(theta)
    size = tuple(int(s) for s in size)
    nsp = len(size) - 2
    if nsp not in (2, 3) or tuple(th.shape) != (size[0], nsp, nsp + 1):
        raise ValueError(f"affine_grid: expected theta (N, {nsp}, {nsp + 1}) for size {size}, "
                         f"got theta of shape {tuple(th.shape)}")
    mesh = np.meshgrid(*[_base(n, bool(align_corners)) for n in size[2:]], indexing="ij")
    coords = np.stack(mesh[::-1], -1)                     # ([D,] H, W, nsp) as (x, y[, z])
    base = np.concatenate([coords, np.ones(coords.shape[:-1] + (1,))], -1)
    base = base.reshape(-1, nsp + 1).astype(np.dtype(th.dtype.name))
    grid = jnp.matmul(base, jnp.swapaxes(th, 1, 2))                          # (N, P, nsp)
    return jnp.reshape(grid, (size[0],) + size[2:] + (nsp,))


def _unnormalize(coord, n, align_corners):
    if align_corners:
        return jnp.multiply(jnp.add(coord, 1.0), (n - 1) / 2)
    return jnp.true_divide(jnp.subtract(jnp.multiply(jnp.add(coord, 1.0), n), 1.0), 2.0)


def _reflect(x, lo, hi):
    """x reflected into [lo, hi] (PyTorch's reflect_coordinates)."""
    span = hi - lo
    if span <= 0:
        return jnp.zeros_like(x)
    d = jnp.abs(jnp.subtract(x, lo))
    flips = jnp.floor(jnp.true_divide(d, span))
    extra = jnp.subtract(d, jnp.multiply(flips, span))
    even = jnp.equal(jnp.remainder(flips, 2), 0)
    return jnp.where(even, jnp.add(extra, lo), jnp.subtract(hi, extra))


def _source(coord, n, padding_mode, align_corners):
    x = _unnormalize(coord, n, align_corners)
    if padding_mode == "reflection":
        x = _reflect(x, 0.0, n - 1.0) if align_corners else _reflect(x, -0.5, n - 0.5)
    if padding_mode != "zeros":
        x = jnp.clip(x, 0, n - 1)
    return x


def _cubic_weights(t):
    """PyTorch's cubic convolution weights (A = -0.75) of the taps at -1, 0, 1, 2 from floor."""
    a = -0.75
    u = jnp.subtract(1.0, t)
    near = lambda d: jnp.add(jnp.multiply(jnp.subtract(jnp.multiply(a + 2, d), a + 3),  # noqa
                                          jnp.multiply(d, d)), 1.0)
    far = lambda d: jnp.subtract(jnp.multiply(jnp.add(jnp.multiply(jnp.subtract(  # noqa
        jnp.multiply(a, d), 5 * a), d), 8 * a), d), 4 * a)
    return (far(jnp.add(t, 1.0)), near(t), near(u), far(jnp.add(u, 1.0)))


def _pad_tap(i, n, padding_mode, align_corners):
    """A bicubic tap's coordinate with the padding applied (ATen's get_value_bounded)."""
    if padding_mode == "reflection":
        i = _reflect(i, 0.0, n - 1.0) if align_corners else _reflect(i, -0.5, n - 0.5)
    return i if padding_mode == "zeros" else jnp.clip(i, 0, n - 1)


def _corners(src, mode, size, padding_mode, align_corners):
    """[(per-dim float indices, weight)]: the taps of every output point and their weights."""
    if mode == "nearest":
        return [([jnp.round(s) for s in src], 1.0)]
    lows = [jnp.floor(s) for s in src]
    fracs = [jnp.subtract(s, lo) for s, lo in zip(src, lows)]
    if mode == "bilinear":
        per_dim = [[(lo, jnp.subtract(1.0, f)), (jnp.add(lo, 1.0), f)]
                   for lo, f in zip(lows, fracs)]
    else:
        per_dim = [[(_pad_tap(jnp.add(lo, k - 1.0), n, padding_mode, align_corners), w)
                    for k, w in enumerate(_cubic_weights(f))]
                   for lo, f, n in zip(lows, fracs, size)]
    taps = []
    for combo in itertools.product(*per_dim):
        weight = combo[0][1]
        for _, w in combo[1:]:
            weight = jnp.multiply(weight, w)
        taps.append(([i for i, _ in combo], weight))
    return taps


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """torch.nn.functional.grid_sample of an (N, C, H, W) input at grid (N, Ho, Wo, 2) points
    given as (x, y) in [-1, 1], or of an (N, C, D, H, W) volume at (N, Do, Ho, Wo, 3) points
    (x, y, z): mode 'bilinear' (trilinear on volumes), 'nearest' or 'bicubic' (4-D only),
    padding_mode 'zeros', 'border' or 'reflection'."""
    x, g = asarray(input), asarray(grid)
    if mode not in _MODES or padding_mode not in _PADDINGS:
        raise ValueError(f"grid_sample: mode must be one of {', '.join(_MODES)} and padding_mode "
                         f"one of {', '.join(_PADDINGS)}, got {mode!r} and {padding_mode!r}")
    nsp = x.ndim - 2
    if (x.ndim not in (4, 5) or g.ndim != x.ndim or g.shape[-1] != nsp
            or g.shape[0] != x.shape[0]):
        raise ValueError(f"grid_sample: expected an input (N, C, H, W) with a grid (N, Ho, Wo, 2) "
                         f"or an input (N, C, D, H, W) with a grid (N, Do, Ho, Wo, 3), got "
                         f"{tuple(x.shape)} and {tuple(g.shape)}")
    if mode == "bicubic" and nsp != 2:
        raise ValueError("grid_sample: mode 'bicubic' needs a 4-D input (N, C, H, W), got "
                         f"shape {tuple(x.shape)}")
    n, c = x.shape[:2]
    size, out = tuple(x.shape[2:]), tuple(g.shape[1:-1])
    points = math.prod(out)
    ac = bool(align_corners)
    coords = [g[..., nsp - 1 - d] for d in range(nsp)]          # dim d of (D,) H, W
    src = [_unnormalize(v, m, ac) if mode == "bicubic" else _source(v, m, padding_mode, ac)
           for v, m in zip(coords, size)]
    strides = [math.prod(size[d + 1:]) for d in range(nsp)]
    flat = jnp.reshape(x, (n, c, math.prod(size)))
    total = None
    for idx, weight in _corners(src, mode, size, padding_mode, ac):
        inside, at = True, 0
        for i, m, st in zip(idx, size, strides):
            inside = jnp.logical_and(inside, jnp.logical_and(jnp.greater_equal(i, 0),
                                                             jnp.less(i, m)))
            at = jnp.add(at, jnp.multiply(jnp.clip(i, 0, m - 1), st))
        at = jnp.broadcast_to(jnp.reshape(at.astype("int64"), (n, 1, points)), (n, c, points))
        weight = jnp.where(inside, weight, 0.0).astype(x.dtype)
        part = jnp.multiply(jnp.take_along_axis(flat, at, axis=2),
                            jnp.reshape(weight, (n, 1, points)))
        total = part if total is None else jnp.add(total, part)
    return jnp.reshape(total, (n, c) + out)


__all__ = ["affine_grid", "grid_sample"]
