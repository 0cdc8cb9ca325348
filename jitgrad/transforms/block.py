"""jg.block_until_ready(tree), as in JAX: wait until every tensor in a pytree is computed and
return the tree. CPU work is done when a call returns; CUDA work runs on each device's stream,
so that stream is synchronized (what a timing loop needs before reading the clock)."""
from __future__ import annotations

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
