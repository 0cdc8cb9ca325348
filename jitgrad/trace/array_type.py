"""`jg.Array`: jax.Array, the type every jitgrad array is an instance of."""
from __future__ import annotations

from ..eager.tensor import Tensor
from .tracer import Tracer


class ArrayMeta(type):
    """isinstance(x, jg.Array) holds for eager tensors and for traced values alike, as
    isinstance(x, jax.Array) does for concrete arrays and tracers."""

    def __instancecheck__(cls, x):
        return isinstance(x, (Tensor, Tracer))

    def __subclasscheck__(cls, sub):
        return isinstance(sub, type) and issubclass(sub, (Tensor, Tracer))


class Array(metaclass=ArrayMeta):
    """jax.Array: for isinstance checks and annotations (`x: jax.Array`); arrays are made by
    jnp.asarray / jg.tensor, not by calling it."""

    def __new__(cls, *args, **kwargs):
        raise TypeError("jg.Array is a type for isinstance checks; make arrays with "
                        "jnp.asarray(...) or jg.tensor(...)")
