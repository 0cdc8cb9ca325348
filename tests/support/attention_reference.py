"""NumPy reference of PyTorch's attention equations (the docs' SDPA pseudo-code and
F.multi_head_attention_forward), written independently of jitgrad, in float64."""
from __future__ import annotations

import math

import numpy as np


def softmax(x):
    """Softmax over the last axis; a row that is all -inf gives zeros (PyTorch's SDPA)."""
    m = np.max(x, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(x - m)
    s = e.sum(-1, keepdims=True)
    return e / np.where(s == 0, 1.0, s)


def sdpa(q, k, v, attn_mask=None, is_causal=False, scale=None, enable_gqa=False):
    L, S = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    bias = np.zeros((L, S))
    if is_causal:
        bias = np.where(np.tril(np.ones((L, S), bool)), 0.0, -np.inf)
    if attn_mask is not None:
        bias = (np.where(attn_mask, 0.0, -np.inf) + bias if attn_mask.dtype == bool
                else attn_mask + bias)
    if enable_gqa:
        k = np.repeat(k, q.shape[-3] // k.shape[-3], axis=-3)
        v = np.repeat(v, q.shape[-3] // v.shape[-3], axis=-3)
    w = softmax(q @ np.swapaxes(k, -1, -2) * scale + bias)
    return w @ v


def _float_mask(mask):
    return np.where(mask, -np.inf, 0.0) if mask.dtype == bool else mask


def mha(params, query, key, value, num_heads, key_padding_mask=None, attn_mask=None,
        average_attn_weights=True, add_zero_attn=False, batch_first=False, is_causal=False):
    """PyTorch's MultiheadAttention (eval mode); params is its state_dict as NumPy arrays."""
    unbatched = query.ndim == 2
    if unbatched:
        query, key, value = query[:, None], key[:, None], value[:, None]
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask[None]
    elif batch_first:
        query, key, value = (np.swapaxes(t, 0, 1) for t in (query, key, value))
    L, N, E = query.shape
    hd = E // num_heads
    b = params.get("in_proj_bias", np.zeros(3 * E))
    if "in_proj_weight" in params:
        wq, wk, wv = np.split(params["in_proj_weight"], 3)
    else:
        wq, wk, wv = params["q_proj_weight"], params["k_proj_weight"], params["v_proj_weight"]
    q = query @ wq.T + b[:E]
    k = key @ wk.T + b[E:2 * E]
    v = value @ wv.T + b[2 * E:]
    if attn_mask is None and is_causal:
        attn_mask = np.triu(np.full((L, key.shape[0]), -np.inf), 1)
    mask = None if attn_mask is None else _float_mask(attn_mask)
    kpm = None if key_padding_mask is None else _float_mask(key_padding_mask)
    if "bias_k" in params:
        k = np.concatenate([k, np.repeat(params["bias_k"], N, axis=1)])
        v = np.concatenate([v, np.repeat(params["bias_v"], N, axis=1)])
        mask = None if mask is None else np.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, 1)])
        kpm = None if kpm is None else np.pad(kpm, [(0, 0), (0, 1)])
    q = q.reshape(L, N * num_heads, hd).transpose(1, 0, 2)
    k = k.reshape(k.shape[0], N * num_heads, hd).transpose(1, 0, 2)
    v = v.reshape(v.shape[0], N * num_heads, hd).transpose(1, 0, 2)
    if add_zero_attn:
        k = np.concatenate([k, np.zeros((N * num_heads, 1, hd))], axis=1)
        v = np.concatenate([v, np.zeros((N * num_heads, 1, hd))], axis=1)
        mask = None if mask is None else np.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, 1)])
        kpm = None if kpm is None else np.pad(kpm, [(0, 0), (0, 1)])
    S = k.shape[1]
    total = np.zeros((N * num_heads, L, S))
    if mask is not None:
        total = total + mask
    if kpm is not None:
        total = total + np.repeat(kpm[:, None, None, :], num_heads, axis=1).reshape(-1, 1, S)
    w = softmax((q * math.sqrt(1.0 / hd)) @ k.transpose(0, 2, 1) + total)
    out = (w @ v).transpose(1, 0, 2).reshape(L * N, E)
    out = (out @ params["out_proj.weight"].T + params.get("out_proj.bias", 0.0)).reshape(L, N, E)
    w = w.reshape(N, num_heads, L, S)
    w = w.mean(1) if average_attn_weights else w
    if unbatched:
        return out[:, 0], w[0]
    return (np.swapaxes(out, 0, 1) if batch_first else out), w


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias


def _sub(params, prefix):
    return {k[len(prefix):]: v for k, v in params.items() if k.startswith(prefix)}


def relu(x):
    return np.maximum(x, 0)


def encoder_layer(params, x, nhead, mask=None, kpm=None, norm_first=False, act=relu):
    def sa(y):
        return mha(_sub(params, "self_attn."), y, y, y, nhead, kpm, mask)[0]

    def ff(y):
        h = act(y @ params["linear1.weight"].T + params["linear1.bias"])
        return h @ params["linear2.weight"].T + params["linear2.bias"]

    def n(i, y):
        return layer_norm(y, params[f"norm{i}.weight"], params[f"norm{i}.bias"])
    if norm_first:
        x = x + sa(n(1, x))
        return x + ff(n(2, x))
    x = n(1, x + sa(x))
    return n(2, x + ff(x))


def decoder_layer(params, x, memory, nhead, tgt_mask=None, memory_mask=None, norm_first=False,
                  act=relu):
    def sa(y):
        return mha(_sub(params, "self_attn."), y, y, y, nhead, None, tgt_mask)[0]

    def ca(y):
        return mha(_sub(params, "multihead_attn."), y, memory, memory, nhead, None,
                   memory_mask)[0]

    def ff(y):
        h = act(y @ params["linear1.weight"].T + params["linear1.bias"])
        return h @ params["linear2.weight"].T + params["linear2.bias"]

    def n(i, y):
        return layer_norm(y, params[f"norm{i}.weight"], params[f"norm{i}.bias"])
    if norm_first:
        x = x + sa(n(1, x))
        x = x + ca(n(2, x))
        return x + ff(n(3, x))
    x = n(1, x + sa(x))
    x = n(2, x + ca(x))
    return n(3, x + ff(x))
