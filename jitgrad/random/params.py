"""Argument handling shared by the samplers: dtypes, result shapes from parameters, and the
unit floats every continuous draw starts from."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..dtypes import default_float
from ..ir.types import canonical_dtype, kind_of
from ..numpy._convert import asarray
from .keys import raw_bits, shape_tuple

# mantissa bits of each float dtype (np.finfo does not know bfloat16)
MANTISSA = {"bfloat16": 7, "float16": 10, "float32": 23, "float64": 52}
TINY = {"bfloat16": 2.0 ** -126, "float16": 2.0 ** -14, "float32": 2.0 ** -126,
        "float64": 2.0 ** -1022}


def float_dtype(dtype, what):
    d = canonical_dtype(dtype) if dtype is not None else default_float()
    if kind_of(d) != "f":
        raise TypeError(f"jg.random.{what}: expected a floating dtype, got {d.name}")
    return d


def int_dtype(dtype, what):
    d = canonical_dtype(dtype) if dtype is not None else np.dtype("int64")
    if kind_of(d) not in "iu":
        raise TypeError(f"jg.random.{what}: expected an integer dtype, got {d.name}")
    return d


def as_dtype(x, dt):
    """A parameter (Python number, array, tensor) in dtype dt, differentiable when traced."""
    x = asarray(x)
    return x if x.dtype == dt else jnp.astype(x, dt)


def result_shape(what, shape, *params):
    """shape, or the parameters' broadcast shape when shape is None; a given shape must hold
    the parameters' (JAX's rule: broadcast_shapes(shape, *params) == shape)."""
    shapes = [tuple(p.shape) for p in params]
    if shape is None:
        return np.broadcast_shapes(*shapes) if shapes else ()
    shape = shape_tuple(shape)
    try:
        fits = np.broadcast_shapes(shape, *shapes) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"jg.random.{what}: the parameter shapes {shapes} do not broadcast to "
                         f"the requested shape {shape}")
    return shape


def unit_floats(k, shape, dt, what):
    """Uniform floats in [0, 1) of dtype dt, equal to JAX's: the top mantissa-many random bits
    as a fraction (exact in dt, so the largest draw is 1 - 2**-mantissa)."""
    h0, h1 = raw_bits(k, shape, what)
    nmant = MANTISSA[dt.name]
    if dt.itemsize == 8:       # JAX's 64 bits h0:h1 shifted right by 12, as two exact parts
        hi = jnp.astype(h0, dt) * float(2 ** 20)
        return (hi + jnp.astype(jnp.right_shift(h1, np.uint32(12)), dt)) * 2.0 ** -nmant
    word = jnp.bitwise_xor(h0, h1)
    width = 8 if nmant < 8 else dt.itemsize * 8
    if width < 32:
        word = jnp.bitwise_and(word, np.uint32((1 << width) - 1))
    return jnp.astype(jnp.right_shift(word, np.uint32(width - nmant)), dt) * 2.0 ** -nmant
