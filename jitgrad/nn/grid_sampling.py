"""torch.nn.functional.affine_grid and grid_sample (spatial transformer networks): sampling
grids from affine matrices, and bilinear or nearest sampling of (N, C, H, W) inputs at grid
points with zeros, border or reflection padding, as gathers (take_along_axis) weighted by the
interpolation weights, so gradients reach both the input and the grid."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..numpy._convert import asarray

_MODES, _PADDINGS = ("bilinear", "nearest"), ("zeros", "border", "reflection")


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


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """torch.nn.functional.grid_sample of an (N, C, H, W) input at grid (N, Ho, Wo, 2) points
    given as (x, y) in [-1, 1]: mode 'bilinear' or 'nearest', padding_mode 'zeros', 'border'
    or 'reflection'."""
    x, g = asarray(input), asarray(grid)
    if mode not in _MODES or padding_mode not in _PADDINGS:
        raise ValueError(f"grid_sample: mode must be one of {', '.join(_MODES)} and padding_mode "
                         f"one of {', '.join(_PADDINGS)}, got {mode!r} and {padding_mode!r}")
    if x.ndim != 4 or g.ndim != 4 or g.shape[-1] != 2 or g.shape[0] != x.shape[0]:
        raise ValueError(f"grid_sample: expected an input (N, C, H, W) and a grid (N, Ho, Wo, 2) "
                         f"(5-D volumes are not supported), got {tuple(x.shape)} and "
                         f"{tuple(g.shape)}")
    n, c, h, w = x.shape
    ho, wo = g.shape[1:3]
    ac = bool(align_corners)
    sx = _source(g[..., 0], w, padding_mode, ac)                              # (N, Ho, Wo)
    sy = _source(g[..., 1], h, padding_mode, ac)
    flat = jnp.reshape(x, (n, c, h * w))

    def tap(iy, ix, weight):
        inside = jnp.logical_and(jnp.logical_and(jnp.greater_equal(ix, 0), jnp.less(ix, w)),
                                 jnp.logical_and(jnp.greater_equal(iy, 0), jnp.less(iy, h)))
        idx = jnp.add(jnp.multiply(jnp.clip(iy, 0, h - 1), w), jnp.clip(ix, 0, w - 1))
        idx = jnp.broadcast_to(jnp.reshape(idx.astype("int64"), (n, 1, ho * wo)),
                               (n, c, ho * wo))
        vals = jnp.take_along_axis(flat, idx, axis=2)
        weight = jnp.where(inside, weight, 0.0)
        return jnp.multiply(vals, jnp.reshape(weight, (n, 1, ho * wo)))

    if mode == "nearest":
        out = tap(jnp.round(sy), jnp.round(sx), jnp.ones(tuple(sx.shape), x.dtype))
    else:
        x0, y0 = jnp.floor(sx), jnp.floor(sy)
        fx, fy = jnp.subtract(sx, x0), jnp.subtract(sy, y0)
        x1, y1 = jnp.add(x0, 1.0), jnp.add(y0, 1.0)
        out = None
        for iy, ix, wgt in ((y0, x0, jnp.multiply(jnp.subtract(1.0, fy), jnp.subtract(1.0, fx))),
                            (y0, x1, jnp.multiply(jnp.subtract(1.0, fy), fx)),
                            (y1, x0, jnp.multiply(fy, jnp.subtract(1.0, fx))),
                            (y1, x1, jnp.multiply(fy, fx))):
            part = tap(iy, ix, wgt)
            out = part if out is None else jnp.add(out, part)
    return jnp.reshape(out, (n, c, ho, wo))


__all__ = ["affine_grid", "grid_sample"]
