"""Summary statistics (scipy.stats.sem)."""
from __future__ import annotations

from ... import numpy as jnp
from .support import floats


def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """The standard error of the mean, std(a, ddof) / sqrt(n) along axis (scipy.stats.sem);
    axis=None uses every entry."""
    if nan_policy != "propagate":
        raise NotImplementedError(f"sem: only nan_policy='propagate' is supported, got "
                                  f"{nan_policy!r}")
    (a,) = floats(a)
    if axis is None:
        a, axis = jnp.ravel(a), 0
    n = a.shape[axis]
    return jnp.true_divide(jnp.std(a, axis=axis, ddof=ddof, keepdims=keepdims), n ** 0.5)
