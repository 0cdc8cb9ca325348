"""F.embedding: rows of a table by integer indices, with PyTorch's bounds. Unlike jnp.take
(NumPy's rule: -n <= i < n, negative ones count from the end), an embedding index must lie in
[0, num_embeddings): -1 is an IndexError, not the last row, eagerly, under jit and in kernels."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..trace.source_info import user_source_info
from ..ir.errors import bad_embedding_index
from ..numpy._convert import asarray
from ..eager.dispatch import computed, direct_ok
from ..numpy.checks import checked
from ..eager.tensor import Tensor
from ..transforms.autodiff import stop_gradient
from ..ir import Op
from ..ir.types import kind_of


def embedding(indices, weight, padding_idx=None):
    """Rows of weight (num_embeddings, dim) picked by integer indices of any shape.
    `padding_idx` (as in PyTorch) only marks a row: its gradient is zero."""
    if padding_idx is None and isinstance(indices, Tensor) and isinstance(weight, Tensor) \
            and direct_ok(indices) and direct_ok(weight):
        rows = _direct_rows(indices, weight)
        if rows is not None:
            return rows
    indices, weight = asarray(indices), asarray(weight)
    if kind_of(indices.dtype) not in "iu":
        raise TypeError(f"embedding: expected integer indices, got {indices.dtype}")
    if weight.ndim != 2:
        raise ValueError(f"embedding: expected a 2-D weight (num_embeddings, dim), got shape "
                         f"{tuple(weight.shape)}")
    n = weight.shape[0]
    known = indices._host("embedding") if isinstance(indices, Tensor) \
        and indices.device.type == "cpu" else None
    if known is not None:
        bad = (known < 0) | (known >= n)
        if bad.any():
            raise bad_embedding_index(known[bad].flat[0], n, user_source_info())
    elif indices.device.type != "meta" and indices.size:
        indices = checked(indices, n, "embedding:embedding")
    if padding_idx is not None:
        pad = padding_idx + n if padding_idx < 0 else padding_idx
        weight = jnp.where(jnp.arange(n)[:, None] == pad, stop_gradient(weight), weight)
    return jnp.take(weight, indices, axis=0)


def _direct_rows(indices, weight):
    """`embedding` of eager CPU tensors, in bounds: NumPy's take, recorded as the general
    path's jnp.take records it (the take of a copy of the indices as int64, so a later write
    into them changes nothing the backward reads); None otherwise (the general path then
    checks and raises)."""
    idx, w = indices._data, weight._data
    if idx.dtype.kind not in "iu" or w.ndim != 2 or idx.size and idx.min() < 0:
        return None
    saved = idx.astype(np.int64)
    try:
        rows = w.take(saved, axis=0)        # mode "raise": an index past the end raises
    except IndexError:
        return None
    return computed(Op.take, [weight, Tensor._wrap(saved, indices.device)], {"axis": 0}, rows)
