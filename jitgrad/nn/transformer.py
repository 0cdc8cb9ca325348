"""nn.MultiheadAttention and the Transformer layers, with PyTorch's parameter and submodule
names, shapes and initialization, so `load_state_dict(torch_model.state_dict())` (converted to
NumPy) takes a PyTorch model's weights as they are.

Randomness: the layers take a PRNG key as `layer(x, key=k)` (split among their dropouts);
MultiheadAttention's own second argument is the attention key, so its PRNG key is
`dropout_key=`. Eagerly, without a key, dropout draws from jg.manual_seed's generator.
"""
from __future__ import annotations

import copy
import math

import numpy as np

from .. import numpy as jnp
from .. import random as jrandom
from ..dtypes import default_float
from ..numpy._convert import asarray
from . import functional as F
from . import init
from .attention import multi_head_attention_forward
from .layers import Dropout, LayerNorm, Linear, ModuleList
from .module import Module, Parameter


def _empty(*shape):
    return Parameter(np.empty(shape, default_float()))


class NonDynamicallyQuantizableLinear(Linear):
    """torch.nn.modules.linear.NonDynamicallyQuantizableLinear: MultiheadAttention's out_proj,
    a Linear that torch's dynamic quantization skips; a plain Linear otherwise."""


class MultiheadAttention(Module):
    """torch.nn.MultiheadAttention: parameters `in_proj_weight` (3E, E) and `in_proj_bias` (3E,),
    or `q_proj_weight`/`k_proj_weight`/`v_proj_weight` when kdim or vdim differ from embed_dim;
    `out_proj` (a Linear, named as torch names it); `bias_k`/`bias_v` (1, 1, E) with add_bias_kv."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"MultiheadAttention: embed_dim and num_heads must be positive, got "
                             f"{embed_dim} and {num_heads}")
        if embed_dim % num_heads:
            raise ValueError(f"MultiheadAttention: embed_dim must be divisible by num_heads, got "
                             f"{embed_dim} and {num_heads}")
        self.embed_dim, self.num_heads = int(embed_dim), int(num_heads)
        self.kdim = int(kdim) if kdim is not None else self.embed_dim
        self.vdim = int(vdim) if vdim is not None else self.embed_dim
        self._qkv_same_embed_dim = self.kdim == self.embed_dim and self.vdim == self.embed_dim
        self.dropout, self.batch_first = float(dropout), bool(batch_first)
        self.head_dim = self.embed_dim // self.num_heads
        self.add_zero_attn = bool(add_zero_attn)
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            self.in_proj_weight = _empty(3 * e, e)
        else:
            self.q_proj_weight = _empty(e, e)
            self.k_proj_weight = _empty(e, self.kdim)
            self.v_proj_weight = _empty(e, self.vdim)
        self.register_parameter("in_proj_bias", _empty(3 * e) if bias else None)
        self.out_proj = NonDynamicallyQuantizableLinear(e, e, bias=bias)
        if add_bias_kv:
            self.bias_k, self.bias_v = _empty(1, 1, e), _empty(1, 1, e)
        self.reset_parameters()

    def reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                init.xavier_uniform_(getattr(self, name))
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)
        if "bias_k" in self._parameters:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def _weights(self):
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            q_w, k_w, v_w = w[:e], w[e:2 * e], w[2 * e:]
        else:
            q_w, k_w, v_w = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        b = self.in_proj_bias
        q_b, k_b, v_b = (None, None, None) if b is None else (b[:e], b[e:2 * e], b[2 * e:])
        extra = self._parameters.get("bias_k"), self._parameters.get("bias_v")
        packed = self._parameters.get("in_proj_weight")
        return {"in_w": packed, "in_b": b if packed is not None else None,
                "q_w": q_w, "k_w": k_w, "v_w": v_w, "q_b": q_b, "k_b": k_b, "v_b": v_b,
                "bias_k": extra[0], "bias_v": extra[1],
                "out_w": self.out_proj.weight, "out_b": self.out_proj.bias}

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False, *, dropout_key=None):
        """query (L, N, E) (or (N, L, E) with batch_first, or unbatched (L, E)), key (S, N, kdim),
        value (S, N, vdim) -> (attn_output like query, weights (N, L, S) averaged over heads or
        (N, H, L, S), or None without need_weights). Masks: bool True = not attended, float
        added; attn_mask (L, S) or (N*H, L, S), key_padding_mask (N, S). is_causal without
        attn_mask applies the causal mask."""
        self_attention = query is key and key is value
        query, key, value = asarray(query), asarray(key), asarray(value)
        batched = self._check_shapes(query, key, value, key_padding_mask)
        if not batched:
            query, key, value = (jnp.expand_dims(t, 1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = jnp.expand_dims(asarray(key_padding_mask), 0)
        elif self.batch_first:
            query, key, value = (jnp.swapaxes(t, 0, 1) for t in (query, key, value))
        if self_attention:
            key = value = query
        out, weights = multi_head_attention_forward(
            query, key, value, self.num_heads, self._weights(), key_padding_mask, need_weights,
            attn_mask, average_attn_weights, is_causal,
            self.dropout if self.training else 0.0, self.add_zero_attn, dropout_key)
        if not batched:
            return jnp.squeeze(out, 1), None if weights is None else jnp.squeeze(weights, 0)
        if self.batch_first:
            out = jnp.swapaxes(out, 0, 1)
        return out, weights

    def _check_shapes(self, query, key, value, key_padding_mask):
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError("MultiheadAttention: expected query, key and value all of rank 3 "
                             "(batched) or all of rank 2 (unbatched), got shapes "
                             f"{tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}")
        got = (query.shape[-1], key.shape[-1], value.shape[-1])
        if got != (self.embed_dim, self.kdim, self.vdim):
            raise ValueError(f"MultiheadAttention: expected feature sizes (query, key, value) = "
                             f"{(self.embed_dim, self.kdim, self.vdim)}, got {got}")
        seq, batch = (0, 1) if not self.batch_first or query.ndim == 2 else (1, 0)
        if key.shape[seq] != value.shape[seq] or (query.ndim == 3 and not
                                                  query.shape[batch] == key.shape[batch]
                                                  == value.shape[batch]):
            raise ValueError(f"MultiheadAttention: key and value must have the same sequence "
                             f"length and all inputs the same batch size, got shapes "
                             f"{tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}")
        if key_padding_mask is not None and asarray(key_padding_mask).ndim != query.ndim - 1:
            raise ValueError(f"MultiheadAttention: expected key_padding_mask of rank "
                             f"{query.ndim - 1}, got shape {tuple(asarray(key_padding_mask).shape)}")
        return query.ndim == 3

    def extra_repr(self):
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
                f"dropout={self.dropout}, batch_first={self.batch_first}")


# ------------------------------------------------------------------------ transformer layers

_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


def _activation(activation, where):
    if callable(activation):
        return activation
    if activation not in _ACTIVATIONS:
        raise ValueError(f"{where}: activation should be relu/gelu or a callable, got "
                         f"{activation!r}")
    return _ACTIVATIONS[activation]


def _keys(key, n):
    return [None] * n if key is None else list(jrandom.split(key, n))


class _FeedForwardLayer(Module):
    """What the encoder and decoder layers share: the feed-forward block and norms."""

    def _init_common(self, d_model, dim_feedforward, dropout, activation, layer_norm_eps,
                     batch_first, norm_first, bias, norms):
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = bool(norm_first)
        self.batch_first = bool(batch_first)
        for i in range(1, norms + 1):
            setattr(self, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias))
        for i in range(1, norms + 1):
            setattr(self, f"dropout{i}", Dropout(dropout))
        # a Module activation registers as a submodule (as in PyTorch); a function is static
        self.activation = _activation(activation, type(self).__name__)

    def _attend(self, attn, x, mem, mask, kpm, is_causal, drop, keys):
        out = attn(x, mem, mem, attn_mask=mask, key_padding_mask=kpm, need_weights=False,
                   is_causal=is_causal and mask is None, dropout_key=keys[0])[0]
        return drop(out, key=keys[1])

    def _ff_block(self, x, keys):
        x = self.linear2(self.dropout(self.activation(self.linear1(x)), key=keys[0]))
        return self.dropout_last(x, key=keys[1])


class TransformerEncoderLayer(_FeedForwardLayer):
    """torch.nn.TransformerEncoderLayer: self_attn, linear1, dropout, linear2, norm1, norm2,
    dropout1, dropout2; post-norm unless norm_first."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first)
        self._init_common(d_model, dim_feedforward, dropout, activation, layer_norm_eps,
                          batch_first, norm_first, bias, 2)

    @property
    def dropout_last(self):
        return self.dropout2

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False, key=None):
        k = _keys(key, 4)
        x = asarray(src)

        def sa(y):
            return self._attend(self.self_attn, y, y, src_mask, src_key_padding_mask, is_causal,
                                self.dropout1, k[:2])
        if self.norm_first:
            x = jnp.add(x, sa(self.norm1(x)))
            return jnp.add(x, self._ff_block(self.norm2(x), k[2:]))
        x = self.norm1(jnp.add(x, sa(x)))
        return self.norm2(jnp.add(x, self._ff_block(x, k[2:])))


class TransformerDecoderLayer(_FeedForwardLayer):
    """torch.nn.TransformerDecoderLayer: self_attn, multihead_attn (over the memory), linear1,
    dropout, linear2, norm1..3, dropout1..3."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first)
        self._init_common(d_model, dim_feedforward, dropout, activation, layer_norm_eps,
                          batch_first, norm_first, bias, 3)

    @property
    def dropout_last(self):
        return self.dropout3

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False,
                key=None):
        k = _keys(key, 6)
        x, memory = asarray(tgt), asarray(memory)

        def sa(y):
            return self._attend(self.self_attn, y, y, tgt_mask, tgt_key_padding_mask,
                                tgt_is_causal, self.dropout1, k[:2])

        def ca(y):
            return self._attend(self.multihead_attn, y, memory, memory_mask,
                                memory_key_padding_mask, memory_is_causal, self.dropout2, k[2:4])
        if self.norm_first:
            x = jnp.add(x, sa(self.norm1(x)))
            x = jnp.add(x, ca(self.norm2(x)))
            return jnp.add(x, self._ff_block(self.norm3(x), k[4:]))
        x = self.norm1(jnp.add(x, sa(x)))
        x = self.norm2(jnp.add(x, ca(x)))
        return self.norm3(jnp.add(x, self._ff_block(x, k[4:])))


class TransformerEncoder(Module):
    """num_layers deep copies of encoder_layer (named layers.0, layers.1, ...), then `norm`."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList(copy.deepcopy(encoder_layer) for _ in range(num_layers))
        self.num_layers = int(num_layers)
        self.add_module("norm", norm)

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None, key=None):
        keys = _keys(key, self.num_layers)
        x = src
        for layer, k in zip(self.layers, keys):
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=bool(is_causal), key=k)
        return x if self.norm is None else self.norm(x)


class TransformerDecoder(Module):
    """num_layers deep copies of decoder_layer (named layers.0, ...), then `norm`."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList(copy.deepcopy(decoder_layer) for _ in range(num_layers))
        self.num_layers = int(num_layers)
        self.add_module("norm", norm)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False,
                key=None):
        keys = _keys(key, self.num_layers)
        x = tgt
        for layer, k in zip(self.layers, keys):
            x = layer(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                      memory_key_padding_mask, bool(tgt_is_causal), memory_is_causal, key=k)
        return x if self.norm is None else self.norm(x)


def generate_square_subsequent_mask(sz, dtype=None):
    """The float causal mask of torch.nn.Transformer: 0 on and below the diagonal, -inf above."""
    mask = np.triu(np.full((sz, sz), -np.inf), k=1).astype(dtype or default_float())
    return jnp.asarray(mask)


class Transformer(Module):
    """torch.nn.Transformer: an encoder and a decoder stack, each ending in a LayerNorm; every
    parameter of rank > 1 re-initialized xavier-uniform as PyTorch does."""

    generate_square_subsequent_mask = staticmethod(generate_square_subsequent_mask)

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True):
        super().__init__()
        args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                batch_first, norm_first, bias)
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(*args), num_encoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias))
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(*args), num_decoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False, key=None):
        k = _keys(key, 2)
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal, key=k[0])
        return self.decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                            memory_key_padding_mask, tgt_is_causal, memory_is_causal, key=k[1])


__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
           "TransformerEncoder", "TransformerDecoder", "Transformer",
           "generate_square_subsequent_mask"]
