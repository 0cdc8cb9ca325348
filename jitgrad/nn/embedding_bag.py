"""torch.nn.functional.embedding with torch's full signature (max_norm, scale_grad_by_freq),
embedding_bag and nn.EmbeddingBag, as composites over jitgrad.nn.embedding's checked lookup."""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..dtypes import default_float
from ..ir.types import kind_of
from ..numpy._convert import asarray
from ..transforms.autodiff import stop_gradient
from . import embedding as E
from . import init
from .module import Module, Parameter

_MODES = ("sum", "mean", "max")


def _renormed(rows, max_norm, norm_type):
    """Rows with norm > max_norm scaled to max_norm (PyTorch renormalizes the weight in place,
    outside autograd: the gradient passes as if the rows were stored renormalized)."""
    norm = jnp.power(jnp.sum(jnp.power(jnp.abs(rows), norm_type), axis=-1, keepdims=True),
                     1.0 / norm_type)
    scale = jnp.where(jnp.greater(norm, max_norm), jnp.true_divide(max_norm, jnp.add(norm, 1e-7)),
                      1.0)
    return jnp.add(rows, stop_gradient(jnp.subtract(jnp.multiply(rows, scale), rows)))


def _frequency_scaled(rows, indices, n):
    """The rows with their gradient divided by how often each index occurs (scale_grad_by_freq)."""
    flat = jnp.reshape(indices, (-1,))
    counts = jnp.sum(jnp.equal(flat[:, None], flat[None, :]).astype(rows.dtype), axis=1)
    scale = jnp.reshape(jnp.true_divide(1.0, counts), tuple(indices.shape) + (1,))
    return jnp.add(jnp.multiply(rows, scale),
                   stop_gradient(jnp.multiply(rows, jnp.subtract(1.0, scale))))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """torch.nn.functional.embedding: rows of weight by index; the padding_idx row gets no
    gradient; max_norm renormalizes looked-up rows; scale_grad_by_freq divides each row's
    gradient by its index's count in the batch. `sparse` gradients are dense here."""
    rows = E.embedding(input, weight, padding_idx)
    if max_norm is not None:
        rows = _renormed(rows, max_norm, norm_type)
    if scale_grad_by_freq:
        rows = _frequency_scaled(rows, asarray(input), asarray(weight).shape[0])
    return rows


def _bags(input, offsets, include_last_offset, where):
    """(flat indices, the bag of each index, the bag count)."""
    x = asarray(input)
    if kind_of(x.dtype) not in "iu":
        raise TypeError(f"{where}: expected integer indices, got {x.dtype}")
    if x.ndim == 2:
        if offsets is not None:
            raise ValueError(f"{where}: offsets must be None for a 2-D input (one bag per row)")
        b, length = x.shape
        return jnp.reshape(x, (-1,)), np.repeat(np.arange(b), length), b
    if x.ndim != 1 or offsets is None:
        raise ValueError(f"{where}: expected a 2-D input, or a 1-D input with 1-D offsets, got "
                         f"shape {tuple(x.shape)} and offsets={offsets!r}")
    offsets = asarray(offsets)
    b = offsets.shape[0] - 1 if include_last_offset else offsets.shape[0]
    starts = offsets[:b]
    bag = jnp.subtract(jnp.sum(jnp.less_equal(starts[None, :], jnp.arange(x.shape[0])[:, None])
                               .astype("int64"), axis=1), 1)
    return x, bag, b


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """torch.nn.functional.embedding_bag: the sum, mean or max of each bag's embeddings; bags
    are the rows of a 2-D input or the runs of a 1-D input starting at `offsets`. Indices equal
    to padding_idx are left out; an empty bag gives zeros."""
    if mode not in _MODES:
        raise ValueError(f"embedding_bag: mode must be one of {', '.join(_MODES)}, got {mode!r}")
    if per_sample_weights is not None and mode != "sum":
        raise ValueError(f"embedding_bag: per_sample_weights is only supported for mode='sum', "
                         f"got mode={mode!r}")
    w = asarray(weight)
    idx, bag, b = _bags(input, offsets, include_last_offset, "embedding_bag")
    rows = embedding(idx, w, None, max_norm, norm_type, scale_grad_by_freq)      # (n, D)
    member = jnp.equal(jnp.reshape(bag, (-1, 1)), np.arange(b))                   # (n, B)
    if padding_idx is not None:
        pad = padding_idx + w.shape[0] if padding_idx < 0 else padding_idx
        member = jnp.logical_and(member, jnp.not_equal(idx, pad)[:, None])
    m = member.astype(rows.dtype)
    if mode == "max":
        picked = jnp.where(member[:, :, None], rows[:, None, :], -np.inf)          # (n, B, D)
        best = jnp.max(picked, axis=0)
        return jnp.where(jnp.isfinite(best), best, 0.0) if idx.shape[0] else \
            jnp.zeros((b, w.shape[1]), w.dtype)
    if per_sample_weights is not None:
        rows = jnp.multiply(rows, jnp.reshape(asarray(per_sample_weights), (-1, 1)))
    total = jnp.matmul(jnp.transpose(m), rows)                                    # (B, D)
    if mode == "sum":
        return total
    count = jnp.sum(m, axis=0)[:, None]
    return jnp.true_divide(total, jnp.maximum(count, 1.0))


class EmbeddingBag(Module):
    """torch.nn.EmbeddingBag: a table (initialized N(0, 1)) whose forward reduces bags of
    embeddings (mode 'mean' by default)."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        if mode not in _MODES:
            raise ValueError(f"EmbeddingBag: mode must be one of {', '.join(_MODES)}, got "
                             f"{mode!r}")
        n, d = int(num_embeddings), int(embedding_dim)
        if padding_idx is not None:
            if not -n <= padding_idx < n:
                raise ValueError(f"EmbeddingBag: padding_idx must be within [-{n}, {n}), got "
                                 f"{padding_idx}")
            padding_idx %= n
        self.num_embeddings, self.embedding_dim = n, d
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, \
            scale_grad_by_freq
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(np.empty((n, d), dtype or default_float()))
            self.reset_parameters()
        else:
            self.weight = Parameter(np.asarray(_weight))

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            w = np.array(self.weight.detach())
            w[self.padding_idx] = 0
            self.weight = Parameter(w)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights,
                             self.include_last_offset, self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        """torch.nn.EmbeddingBag.from_pretrained: a bag layer over the given (N, D) table."""
        table = np.asarray(embeddings)
        if table.ndim != 2:
            raise ValueError(f"EmbeddingBag.from_pretrained: expected a 2-D table, got shape "
                             f"{table.shape}")
        bag = cls(*table.shape, max_norm, norm_type, scale_grad_by_freq, mode, sparse, table,
                  include_last_offset, padding_idx)
        bag.weight.requires_grad = not freeze
        return bag

    def extra_repr(self):
        return f"{self.num_embeddings}, {self.embedding_dim}, mode={self.mode!r}"


__all__ = ["embedding", "embedding_bag", "EmbeddingBag"]
