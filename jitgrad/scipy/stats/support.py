"""What the distributions share: float operands, location-scale standardization, and the
support masks that give -inf (log density) or 0 (density) outside it, as scipy.stats."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ..special.series import floats  # noqa: F401  (the distributions' operand rule)


def standardize(x, loc, scale):
    """((x - loc) / scale, log(scale)) for a location-scale family."""
    return jnp.true_divide(jnp.subtract(x, loc), scale), jnp.log(scale)


def outside(mask, value, fill=-np.inf):
    """value where mask is False, fill where it is True."""
    return jnp.where(mask, fill, value)


def is_integer(k):
    return jnp.equal(jnp.floor(k), k)


def exp_of(logfn):
    """The density (or mass, or probability) from its logarithm."""
    def fn(*args, **kwargs):
        return jnp.exp(logfn(*args, **kwargs))
    fn.__name__ = fn.__qualname__ = logfn.__name__.replace("log", "", 1)
    fn.__doc__ = f"exp({logfn.__name__}(...))."
    return fn
