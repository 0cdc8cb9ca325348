"""torch.nn.functional.multi_head_attention_forward with torch's signature (embed_dim_to_check,
the packed in_proj_weight / in_proj_bias or use_separate_proj_weight's three, bias_k / bias_v,
add_zero_attn, dropout_p with training=, key_padding_mask, attn_mask, need_weights /
average_attn_weights, is_causal as torch's hint that attn_mask is causal), sequence-first
(L, N, E) or unbatched (L, E) inputs. It runs attention.multi_head_attention_forward, the pass
nn.MultiheadAttention runs. static_k / static_v (precomputed per-head keys) are refused.
"""
from __future__ import annotations

from .. import numpy as jnp
from . import attention


def _weights(embed, in_proj_weight, in_proj_bias, separate, q_w, k_w, v_w, bias_k, bias_v,
             out_w, out_b, where):
    if separate:
        if q_w is None or k_w is None or v_w is None:
            raise ValueError(f"{where}: use_separate_proj_weight=True needs q_proj_weight, "
                             "k_proj_weight and v_proj_weight")
    elif in_proj_weight is None:
        raise ValueError(f"{where}: in_proj_weight is None and use_separate_proj_weight=False")
    else:
        w = jnp.asarray(in_proj_weight)
        if tuple(w.shape)[:1] != (3 * embed,):
            raise ValueError(f"{where}: in_proj_weight must have 3 * embed_dim = {3 * embed} rows,"
                             f" got shape {tuple(w.shape)}")
        q_w, k_w, v_w = w[:embed], w[embed:2 * embed], w[2 * embed:]
    b = (None,) * 3 if in_proj_bias is None else tuple(
        jnp.asarray(in_proj_bias)[i * embed:(i + 1) * embed] for i in range(3))
    if (bias_k is None) != (bias_v is None):
        raise ValueError(f"{where}: bias_k and bias_v must be given together")
    return {"q_w": q_w, "k_w": k_w, "v_w": v_w, "q_b": b[0], "k_b": b[1], "v_b": b[2],
            "bias_k": bias_k, "bias_v": bias_v, "out_w": out_w, "out_b": out_b}


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """torch.nn.functional.multi_head_attention_forward: (attention output, the attention
    weights or None)."""
    where = "multi_head_attention_forward"
    q, k, v = (jnp.asarray(t) for t in (query, key, value))
    if q.ndim not in (2, 3) or k.ndim != q.ndim or v.ndim != q.ndim:
        raise ValueError(f"{where}: expected query, key and value all (L, N, E) or all (L, E), "
                         f"got shapes {tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    embed = q.shape[-1]
    if embed != embed_dim_to_check:
        raise ValueError(f"{where}: was expecting embedding dimension of {embed_dim_to_check}, "
                         f"but got {embed}")
    if embed % num_heads:
        raise ValueError(f"{where}: embed_dim {embed} not divisible by num_heads {num_heads}")
    if static_k is not None or static_v is not None:
        raise NotImplementedError(f"{where}: static_k / static_v are not supported")
    if is_causal and attn_mask is None:
        raise ValueError(f"{where}: need attn_mask if specifying the is_causal hint (torch's "
                         "rule: is_causal only says that attn_mask is causal)")
    weights = _weights(embed, in_proj_weight, in_proj_bias, use_separate_proj_weight,
                       q_proj_weight, k_proj_weight, v_proj_weight, bias_k, bias_v,
                       out_proj_weight, out_proj_bias, where)
    batched = q.ndim == 3
    if not batched:
        q, k, v = (jnp.expand_dims(t, 1) for t in (q, k, v))
        if key_padding_mask is not None:
            key_padding_mask = jnp.expand_dims(jnp.asarray(key_padding_mask), 0)
    out, attn = attention.multi_head_attention_forward(
        q, k, v, num_heads, weights, key_padding_mask, need_weights, attn_mask,
        average_attn_weights, False, dropout_p if training else 0.0, add_zero_attn)
    if batched:
        return out, attn
    return jnp.squeeze(out, 1), None if attn is None else jnp.squeeze(attn, 0)
