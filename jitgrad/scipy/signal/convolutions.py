"""jax.scipy.signal.convolve / correlate / convolve2d / correlate2d: scipy.signal's modes
('full', 'same', 'valid') with JAX's rules (both inputs of one rank; one no smaller than the
other in every dimension; only zero fill at the boundary)."""
from __future__ import annotations

from ... import lax
from ... import numpy as jnp

MODES = ("full", "same", "valid")
METHODS = ("auto", "direct", "fft")


def _convolve_nd(in1, in2, mode, precision):
    """The N-d convolution as a correlation with the flipped kernel, in one conv."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {list(MODES)}, got {mode!r}")
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    if in1.ndim != in2.ndim:
        raise ValueError(f"in1 and in2 must have the same number of dimensions, got shapes "
                         f"{tuple(in1.shape)} and {tuple(in2.shape)}")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(f"zero-size arrays not supported in convolutions, got shapes "
                         f"{tuple(in1.shape)} and {tuple(in2.shape)}")
    dtype = jnp.result_type(in1, in2)
    in1, in2 = in1.astype(dtype), in2.astype(dtype)
    no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    if not (no_swap or swap):
        raise ValueError(f"One input must be smaller than the other in every dimension, got "
                         f"shapes {tuple(in1.shape)} and {tuple(in2.shape)}")
    shape_o = in2.shape
    if swap:
        in1, in2 = in2, in1
    shape = in2.shape
    in2 = jnp.flip(in2)
    padding = {"valid": [(0, 0)] * len(shape),
               "same": [(s - 1 - (so - 1) // 2, s - so + (so - 1) // 2)
                        for s, so in zip(shape, shape_o)],
               "full": [(s - 1, s - 1) for s in shape]}[mode]
    out = lax.conv_general_dilated(in1[None, None], in2[None, None], (1,) * len(shape), padding,
                                   precision=precision)
    return out[0, 0]


def _check_method(method):
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")


def convolve(in1, in2, mode="full", method="auto", precision=None):
    """jax.scipy.signal.convolve: the N-d convolution of in1 and in2 ('full', 'same' or 'valid'
    output). Every method computes directly (method='fft' agrees within rounding)."""
    _check_method(method)
    return _convolve_nd(in1, in2, mode, precision)


def correlate(in1, in2, mode="full", method="auto", precision=None):
    """jax.scipy.signal.correlate: the N-d cross-correlation, convolve(in1, flip(in2))."""
    _check_method(method)
    return _convolve_nd(in1, jnp.flip(jnp.asarray(in2)), mode, precision)


def _check_2d(name, in1, in2, boundary, fillvalue):
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0 (as "
                                  f"jax.scipy.signal), got {boundary!r}, {fillvalue!r}")
    if jnp.ndim(in1) != 2 or jnp.ndim(in2) != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs, got shapes "
                         f"{jnp.shape(in1)} and {jnp.shape(in2)}")


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """jax.scipy.signal.convolve2d: the 2-d convolution (zero fill at the boundary only)."""
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd(in1, in2, mode, precision)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """jax.scipy.signal.correlate2d: the 2-d cross-correlation (zero fill at the boundary only);
    when in1 is the smaller input, scipy's (and JAX's) result for 'full' and 'valid' is the
    correlation of in2 with in1, flipped."""
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    same_shape = tuple(in1.shape) == tuple(in2.shape)
    if mode != "same" and swap and not (mode == "valid" and same_shape):
        return _convolve_nd(jnp.flip(in2), in1, mode, precision)
    return jnp.flip(_convolve_nd(jnp.flip(in1), in2, mode, precision))
