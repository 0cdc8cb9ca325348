"""Scaled dot-product attention (torch.nn.functional.scaled_dot_product_attention's semantics) and
the multi-head attention forward pass that nn.MultiheadAttention runs.

Both are composites of primitives (matmul, where, a max-shifted softmax, matmul), so they
differentiate, batch and compile like any other graph. Eagerly, attention without dropout is
one compiled call once hot (`fused_in_eager`), its backward reading the saved weights, as
PyTorch's SDPA is one kernel each way. Rows whose keys are all masked out give zeros
(PyTorch's SDPA does the same), not NaN.
"""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as jnp
from ..numpy._convert import asarray
from ..transforms.autodiff import stop_gradient
from ..transforms.fused_eager import fused_in_eager
from .dropout import dropout
from ..ir.types import kind_of


def masked_softmax(scores, axis=-1):
    """Softmax that is stable (shifted by the row max) and gives 0 on rows that are all -inf;
    an empty axis (no keys) is returned as it is: no weights."""
    if scores.shape[axis] == 0:
        return scores
    m = stop_gradient(jnp.max(scores, axis=axis, keepdims=True))
    e = jnp.exp(jnp.subtract(scores, jnp.where(jnp.isfinite(m), m, 0.0)))
    s = jnp.sum(e, axis=axis, keepdims=True)
    return jnp.true_divide(e, jnp.where(jnp.equal(s, 0), 1.0, s))


def _check_mask(mask, where, what):
    mask = asarray(mask)
    if kind_of(mask.dtype) not in "bf":
        raise TypeError(f"{where}: expected {what} of dtype bool or a float dtype, got "
                        f"{mask.dtype}")
    return mask


def _apply_sdpa_mask(scores, attn_mask):
    """Boolean masks keep the entries that are True; float masks are added to the scores."""
    if kind_of(attn_mask.dtype) == "b":
        return jnp.where(attn_mask, scores, -np.inf)
    return jnp.add(scores, jnp.astype(attn_mask, scores.dtype))


def _causal(scores):
    """Keep key j <= query i (top-left aligned, as PyTorch's is_causal)."""
    length, source = scores.shape[-2:]
    return jnp.where(np.tril(np.ones((length, source), bool)), scores, -np.inf)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False, *,
                                 dropout_key=None):
    """softmax(query @ key^T * scale + mask) @ value over the last two dimensions.

    query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev); batch dimensions
    broadcast. attn_mask: bool (True = take part) or float (added), broadcastable to (..., L, S).
    is_causal masks key j > query i and excludes attn_mask. scale defaults to 1/sqrt(E).
    enable_gqa lets key/value have fewer heads (dimension -3) than query, shared by groups.
    dropout_p drops attention weights always (as PyTorch; pass 0.0 when evaluating); inside
    jit the dropout needs `dropout_key=jg.random.key(...)`, eagerly it draws from jg.manual_seed's
    generator as nn.Dropout does."""
    where = "scaled_dot_product_attention"
    query, key, value = asarray(query), asarray(key), asarray(value)
    for name, t in (("query", query), ("key", key), ("value", value)):
        if t.ndim < 2:
            raise ValueError(f"{where}: expected {name} of rank >= 2 (..., seq, features), got "
                             f"shape {tuple(t.shape)}")
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise ValueError(f"{where}: expected query (..., L, E), key (..., S, E) and value "
                         f"(..., S, Ev), got {tuple(query.shape)}, {tuple(key.shape)} and "
                         f"{tuple(value.shape)}")
    if is_causal and attn_mask is not None:
        raise ValueError(f"{where}: explicit attn_mask should not be set when is_causal=True "
                         "(is_causal builds the causal mask)")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"{where}: dropout_p must be in [0, 1], got {dropout_p}")
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    groups = 1
    if enable_gqa:
        query, groups = _group_queries(query, key, value, where)
        key, value = jnp.expand_dims(key, -3), jnp.expand_dims(value, -3)
    mask = None
    if attn_mask is not None:
        mask = _check_mask(attn_mask, where, "attn_mask")
        if enable_gqa and mask.ndim >= 3:   # the mask's head axis splits like the query's
            mask = _split_heads(mask, groups)
    if dropout_p > 0.0:
        weights = dropout(_weights(query, key, mask, scale, is_causal), dropout_p, True,
                          dropout_key)
        out = jnp.matmul(weights, value)
    else:
        out = _attend(query, key, value, mask, scale, is_causal)
    if enable_gqa:
        out = jnp.reshape(out, tuple(out.shape[:-4]) + (-1,) + tuple(out.shape[-2:]))
    return out


def _weights(query, key, mask, scale, is_causal):
    """softmax(query @ key^T * scale, masked)."""
    scores = jnp.multiply(jnp.matmul(query, jnp.swapaxes(key, -1, -2)), scale)
    if is_causal:
        scores = _causal(scores)
    if mask is not None:
        scores = _apply_sdpa_mask(scores, mask)
    return masked_softmax(scores)


@fused_in_eager("query", "key", "value", "mask")    # eagerly: one compiled call once hot
def _attend(query, key, value, mask, scale, is_causal):
    """Attention without dropout: the weights times value."""
    return jnp.matmul(_weights(query, key, mask, scale, is_causal), value)


def _group_queries(query, key, value, where):
    """(..., Hq, L, E) -> (..., Hkv, Hq/Hkv, L, E), so the kv heads broadcast over each group."""
    if query.ndim < 3 or key.ndim < 3 or value.ndim < 3:
        raise ValueError(f"{where}: enable_gqa needs a head dimension (-3) on query, key and "
                         f"value, got shapes {tuple(query.shape)}, {tuple(key.shape)}, "
                         f"{tuple(value.shape)}")
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if hk != hv or hq % hk:
        raise ValueError(f"{where}: enable_gqa needs key and value heads equal and dividing "
                         f"the query heads, got {hq} query, {hk} key and {hv} value heads")
    return _split_heads(query, hq // hk), hq // hk


def _split_heads(t, groups):
    heads = t.shape[-3]
    if heads == 1:
        return jnp.expand_dims(t, -3)
    return jnp.reshape(t, tuple(t.shape[:-3]) + (heads // groups, groups) + tuple(t.shape[-2:]))


# ------------------------------------------------------------------------ multi-head attention

def _float_mask(mask, dtype, where, what):
    """MultiheadAttention's masks: bool True = masked out (-inf); float masks are added."""
    mask = _check_mask(mask, where, what)
    if kind_of(mask.dtype) == "b":
        return jnp.where(mask, -np.inf, np.zeros((), dtype))
    return jnp.astype(mask, dtype)


def _project(x, weight, bias):
    y = jnp.matmul(x, jnp.transpose(weight))
    return y if bias is None else jnp.add(y, bias)


def multi_head_attention_forward(query, key, value, num_heads, weights, key_padding_mask=None,
                                 need_weights=True, attn_mask=None, average_attn_weights=True,
                                 is_causal=False, dropout_p=0.0, add_zero_attn=False,
                                 dropout_key=None):
    """PyTorch's multi_head_attention_forward on sequence-first inputs: query (L, N, E),
    key (S, N, Ek), value (S, N, Ev). `weights` holds q_w, k_w, v_w, q_b, k_b, v_b, bias_k,
    bias_v, out_w, out_b (biases None when absent), and optionally the packed in_w, in_b used
    when query, key and value are one array (one projection GEMM instead of three). Returns ((L, N, E), weights or None)."""
    where = "MultiheadAttention"
    length, batch, embed = query.shape
    head_dim = embed // num_heads
    if weights.get("in_w") is not None and query is key and key is value:
        qkv = _project(query, weights["in_w"], weights["in_b"])    # self-attention: one GEMM
        q, k, v = qkv[..., :embed], qkv[..., embed:2 * embed], qkv[..., 2 * embed:]
    else:
        q = _project(query, weights["q_w"], weights["q_b"])
        k = _project(key, weights["k_w"], weights["k_b"])
        v = _project(value, weights["v_w"], weights["v_b"])
    source = key.shape[0]
    mask = None
    if attn_mask is not None:
        mask = _float_mask(attn_mask, q.dtype, where, "attn_mask")
        expect = ((length, source), (batch * num_heads, length, source))
        if tuple(mask.shape) not in expect:
            raise ValueError(f"{where}: expected attn_mask of shape {expect[0]} or {expect[1]}, "
                             f"got {tuple(mask.shape)}")
    elif is_causal:
        mask = jnp.asarray(np.where(np.tril(np.ones((length, source), bool)), 0.0, -np.inf)
                           .astype(q.dtype))
    kpm = None
    if key_padding_mask is not None:
        kpm = _float_mask(key_padding_mask, q.dtype, where, "key_padding_mask")
        if tuple(kpm.shape) != (batch, source):
            raise ValueError(f"{where}: expected key_padding_mask of shape (batch, source) = "
                             f"{(batch, source)}, got {tuple(kpm.shape)}")
    if weights["bias_k"] is not None:       # one learned key/value appended to every sequence
        k = jnp.concatenate([k, jnp.broadcast_to(weights["bias_k"], (1, batch, embed))], axis=0)
        v = jnp.concatenate([v, jnp.broadcast_to(weights["bias_v"], (1, batch, embed))], axis=0)
        mask, kpm = _pad_last(mask), _pad_last(kpm)
    # (seq, N, E) -> (N, H, seq, head_dim)
    q, k, v = (jnp.transpose(jnp.reshape(t, (t.shape[0], batch, num_heads, head_dim)),
                             (1, 2, 0, 3)) for t in (q, k, v))
    if add_zero_attn:                        # one all-zero key/value appended after the rest
        zeros = jnp.zeros((batch, num_heads, 1, head_dim), q.dtype)
        k, v = jnp.concatenate([k, zeros], axis=2), jnp.concatenate([v, zeros], axis=2)
        mask, kpm = _pad_last(mask), _pad_last(kpm)
    if mask is not None and mask.ndim == 3:
        mask = jnp.reshape(mask, (batch, num_heads) + tuple(mask.shape[1:]))
    if kpm is not None:
        kpm = jnp.reshape(kpm, (batch, 1, 1, kpm.shape[-1]))
        mask = kpm if mask is None else jnp.add(mask, kpm)
    scores = jnp.matmul(jnp.multiply(q, 1.0 / math.sqrt(head_dim)), jnp.swapaxes(k, -1, -2))
    if mask is not None:
        scores = jnp.add(scores, mask)
    attn = masked_softmax(scores)
    if dropout_p > 0.0:
            attn = dropout(attn, dropout_p, True, dropout_key)
    out = jnp.matmul(attn, v)                                      # (N, H, L, head_dim)
    out = jnp.reshape(jnp.transpose(out, (2, 0, 1, 3)), (length, batch, embed))
    out = _project(out, weights["out_w"], weights["out_b"])
    if not need_weights:
        return out, None
    return out, jnp.mean(attn, axis=1) if average_attn_weights else attn


def _pad_last(mask):
    """Append one zero (attend) column to a float mask's last axis."""
    if mask is None:
        return None
    return jnp.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, 1)])


__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]
