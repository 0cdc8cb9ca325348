"""jg.block_until_ready(tree), as in JAX: wait until every tensor in a pytree is computed and
return the tree. CPU work is done when a call returns; CUDA work runs on each device's stream,
so that stream is synchronized (what a timing loop needs before reading the clock)."""
from __future__ import annotations

import numpy as np

from .. import tree_util
from ..eager.array_base import register_methods
from ..eager.tensor import Tensor
from ..runtime.cuda_device import synchronize


def block_until_ready(tree):
    """Wait for the tensors of `tree` (any pytree; non-tensor leaves are left alone); returns
    `tree`. A deleted (donated) tensor raises, as in JAX."""
    devices = set()
    for x in tree_util.tree_leaves(tree):
        if isinstance(x, Tensor):
            if x.is_deleted():
                raise x._data.error()
            if x.device.type == "cuda":
                devices.add(x.device.index or 0)
    if devices:
        for i in sorted(devices):
            synchronize(i)
    return tree


# x.block_until_ready() on an eager tensor, as on a JAX array (returns x)
register_methods({"block_until_ready": block_until_ready}, Tensor)


def _placeable(x):
    return isinstance(x, (Tensor, np.ndarray, np.generic, bool, int, float, complex))


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """JAX's jax.device_put: every array leaf of the pytree `x` (NumPy arrays, scalars, tensors)
    as a jitgrad array, on `device` when one is given (a jg.device or "cpu"/"cuda"); other
    leaves are left alone. src, donate and may_alias are accepted as JAX's and change nothing
    here (a tensor already in place is returned as is)."""
    from ..numpy import asarray     # lazy: jitgrad.numpy imports the transforms

    def put(leaf):
        if not _placeable(leaf):
            return leaf
        out = leaf if isinstance(leaf, Tensor) else asarray(leaf)
        return out if device is None else out.to(device)

    return tree_util.tree_map(put, x)


def device_get(x):
    """JAX's jax.device_get: every tensor leaf of the pytree `x` as a NumPy array (waiting for
    it first); other leaves are left alone."""
    block_until_ready(x)
    return tree_util.tree_map(lambda leaf: np.asarray(leaf) if isinstance(leaf, Tensor) else leaf,
                              x)
