"""Discrete draws and orderings: bernoulli, rademacher, randint, geometric, categorical,
choice, permutation, shuffle (jax.random's meanings)."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..ir.types import kind_of
from ..numpy._convert import asarray
from .continuous import gumbel, uniform
from .keys import bits, shape_tuple, split
from .params import as_dtype, float_dtype, int_dtype, result_shape, unit_floats


def bernoulli(key, p=0.5, shape=None, mode="low"):
    """Booleans, True with probability p (jax.random.bernoulli; p broadcasts with shape)."""
    p = asarray(p)
    dt = p.dtype if kind_of(p.dtype) == "f" else float_dtype(None, "bernoulli")
    p = as_dtype(p, dt)
    shape = result_shape("bernoulli", shape, p)
    if mode == "high":
        k1, k2 = split(key)
        u = uniform(k1, shape, dt) + uniform(k2, shape, dt) * 2.0 ** -24
    elif mode == "low":
        u = uniform(key, shape, dt)
    else:
        raise ValueError(f"jg.random.bernoulli: mode must be 'low' or 'high', got {mode!r}")
    return u < p


def rademacher(key, shape=(), dtype=None):
    """-1 or +1 with equal probability (jax.random.rademacher)."""
    dt = int_dtype(dtype, "rademacher") if dtype is None or np.dtype(dtype).kind in "iu" \
        else np.dtype(dtype)
    b = jnp.astype(bernoulli(key, 0.5, shape_tuple(shape)), dt)
    return b * 2 - 1


def randint(key, shape, minval, maxval, dtype=None):
    """Integers uniform in [minval, maxval) (jax.random.randint; the bounds broadcast with
    shape and are clipped to the dtype's range; an empty range gives minval). The offset is
    floor(u * span) of a 53-bit uniform float: exact in distribution up to span / 2**53."""
    dt = int_dtype(dtype, "randint")
    shape = shape_tuple(shape)
    info = np.iinfo(dt)
    top = min(int(info.max) + 1, 2 ** 63 - 1)
    lo = jnp.clip(jnp.astype(asarray(minval), np.int64), max(int(info.min), -2 ** 63), top)
    hi = jnp.clip(jnp.astype(asarray(maxval), np.int64), max(int(info.min), -2 ** 63), top)
    result_shape("randint", shape, lo, hi)
    span = jnp.astype(jnp.maximum(hi - lo, 1), np.float64)
    u = unit_floats(key, shape, np.dtype(np.float64), "randint")
    offset = jnp.astype(jnp.minimum(jnp.floor(u * span), span - 1), np.int64)
    out = jnp.where(hi > lo, lo + offset, lo)
    return jnp.astype(jnp.broadcast_to(out, shape), dt)


def geometric(key, p, shape=None, dtype=None):
    """Trials until the first success, >= 1 (jax.random.geometric)."""
    p = asarray(p)
    p = as_dtype(p, p.dtype if kind_of(p.dtype) == "f" else float_dtype(None, "geometric"))
    shape = result_shape("geometric", shape, p)
    u = uniform(key, shape, p.dtype)
    u = jnp.where(u == 0, 1.0, u)
    g = jnp.floor(jnp.log(u) / jnp.log1p(-p)) + 1
    return jnp.astype(g, int_dtype(dtype, "geometric"))


def categorical(key, logits, axis=-1, shape=None, replace=True):
    """Indices drawn with probabilities softmax(logits) along axis (jax.random.categorical, by
    the Gumbel-max trick; replace=False draws distinct indices by Gumbel-top-k)."""
    logits = asarray(logits)
    axis = axis + logits.ndim if axis < 0 else axis
    if not 0 <= axis < logits.ndim:
        raise ValueError(f"jg.random.categorical: axis {axis} is out of bounds for logits of "
                         f"shape {tuple(logits.shape)}")
    batch = tuple(logits.shape[:axis]) + tuple(logits.shape[axis + 1:])
    shape = batch if shape is None else shape_tuple(shape)
    if np.broadcast_shapes(shape, batch) != shape:
        raise ValueError(f"jg.random.categorical: shape {shape} is not compatible with the "
                         f"logits' batch shape {batch}")
    n = logits.shape[axis]
    moved = jnp.moveaxis(logits, axis, -1)
    dt = logits.dtype if kind_of(logits.dtype) == "f" else float_dtype(None, "categorical")
    if replace:
        g = gumbel(key, shape + (n,), dt)
        return jnp.argmax(g + moved, axis=-1)
    lead = shape[:len(shape) - len(batch)]
    if lead and int(np.prod(lead)) > n:
        raise ValueError(f"jg.random.categorical: cannot draw {int(np.prod(lead))} distinct "
                         f"categories of {n} without replacement")
    g = gumbel(key, batch + (n,), dt) + moved
    top = jnp.argsort(-g, axis=-1)[..., :int(np.prod(lead))]       # distinct indices
    return jnp.reshape(jnp.moveaxis(top, -1, 0), shape)


def permutation(key, x, axis=0, independent=False):
    """jax.random.permutation: an int n gives a shuffled arange(n); an array is shuffled along
    `axis` (whole slices move together, or each 1-d slice on its own when independent=True)."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return jnp.argsort(bits(key, (int(x),)))
    x = asarray(x)
    if x.ndim == 0:
        raise TypeError(f"jg.random.permutation: x must be an int or an array with at least one "
                        f"dimension, got a 0-d {x.dtype} array")
    axis = axis + x.ndim if axis < 0 else axis
    if independent:
        order = jnp.argsort(bits(key, tuple(x.shape)), axis=axis)
        return jnp.take_along_axis(x, order, axis=axis)
    return jnp.take(x, jnp.argsort(bits(key, (x.shape[axis],))), axis=axis)


def shuffle(key, x, axis=0):
    """jax.random.shuffle (deprecated there): permutation(key, x, axis, independent=True)."""
    return permutation(key, x, axis, independent=True)


def choice(key, a, shape=(), replace=True, p=None, axis=0):
    """Elements of a (an int n: arange(n)) drawn along axis (jax.random.choice), uniformly or
    with probabilities p, with or without replacement."""
    shape = shape_tuple(shape)
    pool = asarray(a) if not isinstance(a, (int, np.integer)) else None
    n = int(a) if pool is None else (pool.shape[axis] if pool.ndim else None)
    if n is None:
        raise ValueError("jg.random.choice: a must be an int or an array with at least one "
                         "dimension, got a 0-d array")
    count = int(np.prod(shape))
    if not replace and count > n:
        raise ValueError(f"jg.random.choice: cannot take a larger sample ({count}) than the "
                         f"population ({n}) when replace=False")
    if p is None:
        if replace:
            idx = randint(key, shape, 0, n)
        else:
            idx = jnp.reshape(permutation(key, n)[:count], shape)
    else:
        p = asarray(p)
        if tuple(p.shape) != (n,):
            raise ValueError(f"jg.random.choice: p must have shape ({n},) to match the "
                             f"population, got {tuple(p.shape)}")
        logits = jnp.log(p)
        idx = categorical(key, logits, shape=shape, replace=replace) if replace else \
            categorical(key, logits, shape=shape + (), replace=False)
    if pool is None:
        return idx
    return jnp.take(pool, jnp.reshape(idx, (-1,)), axis=axis).reshape(
        tuple(pool.shape[:axis]) + shape + tuple(pool.shape[axis + 1:]))
