"""lax's control flow under its own names: jitgrad's structured primitives (jg.cond, jg.scan,
...) take the same arguments; lax.map is a scan that carries nothing."""
from __future__ import annotations

from .. import numpy as jnp
from ..transforms.control import cond, fori_loop, switch, while_loop  # noqa: F401
from ..transforms.control import scan as _scan
from ..transforms.vmap import vmap
from ..tree_util import tree_flatten, tree_map


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """jax.lax.scan: f(carry, x) -> (carry, y) over the leading axis of xs. `unroll` is a
    performance hint in JAX and changes nothing here."""
    return _scan(f, init, xs, length=length, reverse=reverse)


def map(f, xs, *, batch_size=None):  # noqa: A001
    """f over the leading axis of xs (a pytree), results stacked: lax.map. With batch_size,
    vmap(f) runs on chunks of that many elements (the remainder on its own)."""
    if batch_size is None:
        return _scan(lambda carry, x: (carry, f(x)), None, xs)[1]
    leaves, _ = tree_flatten(xs)
    n = leaves[0].shape[0]
    full = (n // batch_size) * batch_size
    parts = []
    if full:
        chunks = tree_map(lambda x: jnp.reshape(x[:full], (n // batch_size, batch_size)
                                                + tuple(x.shape[1:])), xs)
        ys = _scan(lambda carry, x: (carry, vmap(f)(x)), None, chunks)[1]
        parts.append(tree_map(lambda y: jnp.reshape(y, (full,) + tuple(y.shape[2:])), ys))
    if full < n:
        parts.append(vmap(f)(tree_map(lambda x: x[full:], xs)))
    if len(parts) == 1:
        return parts[0]
    return tree_map(lambda a, b: jnp.concatenate([a, b], axis=0), *parts)
