"""F.scaled_dot_product_attention, nn.MultiheadAttention and the Transformer layers against a
NumPy reference of PyTorch's equations (tests/support/attention_reference.py): forward eagerly and under
jit, gradients against finite differences (float64) eagerly, with jg.grad and jitted."""
from __future__ import annotations

import math

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn
from jitgrad.nn import functional as F
from jitgrad.test_util import check_grads
from tests.support import attention_reference as ref

RNG = np.random.default_rng(0)


def randn(*shape):
    return RNG.standard_normal(shape)


# ------------------------------------------------------------------------------------- SDPA

def _sdpa_case(name):
    q, k, v = randn(2, 3, 4, 5), randn(2, 3, 6, 5), randn(2, 3, 6, 7)
    bool_mask = RNG.random((4, 6)) > 0.3
    bool_mask[:, 0] = True
    cases = {
        "plain": ((q, k, v), {}),
        "bool_mask": ((q, k, v), {"attn_mask": bool_mask}),
        "float_mask_per_head": ((q, k, v), {"attn_mask": randn(3, 4, 6)}),
        "causal": ((q, k, v), {"is_causal": True}),
        "scale": ((q, k, v), {"scale": 0.3}),
        "broadcast_batch": ((q, randn(1, 3, 6, 5), randn(2, 1, 6, 7)), {}),
        "rank3": ((randn(3, 4, 5), randn(3, 6, 5), randn(3, 6, 2)), {}),
        "gqa": ((randn(2, 6, 4, 5), randn(2, 2, 6, 5), randn(2, 2, 6, 3)),
                {"enable_gqa": True}),
        "gqa_mask_per_head": ((randn(2, 6, 4, 5), randn(2, 2, 6, 5), randn(2, 2, 6, 3)),
                              {"enable_gqa": True, "attn_mask": randn(6, 4, 6)}),
    }
    return cases[name]


SDPA_CASES = ["plain", "bool_mask", "float_mask_per_head", "causal", "scale", "broadcast_batch",
              "rank3", "gqa", "gqa_mask_per_head"]


@pytest.mark.parametrize("case", SDPA_CASES)
def test_sdpa_matches_reference_eager_and_jit(x64, case):
    args, kwargs = _sdpa_case(case)
    want = ref.sdpa(*args, **kwargs)
    got = F.scaled_dot_product_attention(*args, **kwargs)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)
    jitted = jg.jit(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kwargs))
    np.testing.assert_allclose(np.asarray(jitted(*args)), want, rtol=1e-10, atol=1e-12)


def test_sdpa_float32_matches_reference():
    q, k, v = (randn(2, 4, 8).astype(np.float32) for _ in range(3))
    got = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), ref.sdpa(*(a.astype(np.float64)
                                                            for a in (q, k, v)), is_causal=True),
                               rtol=1e-5, atol=1e-6)


def test_sdpa_fully_masked_row_gives_zeros(x64):
    q, k, v = randn(3, 4), randn(5, 4), randn(5, 2)
    mask = np.ones((3, 5), bool)
    mask[1] = False
    got = np.asarray(F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
    np.testing.assert_array_equal(got[1], 0.0)
    np.testing.assert_allclose(got, ref.sdpa(q, k, v, mask), atol=1e-12)
    g = jg.grad(lambda q: jnp.sum(F.scaled_dot_product_attention(q, k, v, attn_mask=mask)))(q)
    assert np.all(np.isfinite(np.asarray(g)))


@pytest.mark.parametrize("case", ["plain", "bool_mask", "float_mask_per_head", "causal", "gqa"])
def test_sdpa_gradients_match_finite_differences(x64, case):
    args, kwargs = _sdpa_case(case)
    args = tuple(a[..., :3, :] if a.ndim == 4 and i == 0 else a for i, a in enumerate(args))
    if "attn_mask" in kwargs:
        kwargs = dict(kwargs, attn_mask=kwargs["attn_mask"][..., :3, :])
    check_grads(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kwargs), args, order=1)
    jitted = jg.jit(jg.grad(lambda q, k, v: jnp.sum(jnp.sin(
        F.scaled_dot_product_attention(q, k, v, **kwargs))), argnums=(0, 1, 2)))
    eager = jg.grad(lambda q, k, v: jnp.sum(jnp.sin(
        F.scaled_dot_product_attention(q, k, v, **kwargs))), argnums=(0, 1, 2))
    for a, b in zip(jitted(*args), eager(*args)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-12)


def test_sdpa_second_order(x64):
    q, k, v = randn(2, 3), randn(4, 3), randn(4, 2)
    check_grads(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                (q, k, v), order=2, modes=("rev",))


def test_sdpa_dropout_uses_the_rng_like_dropout():
    q, k, v = (randn(2, 4, 8).astype(np.float32) for _ in range(3))
    key = jg.random.key(3)
    f = jg.jit(lambda q, k, v, key: F.scaled_dot_product_attention(q, k, v, dropout_p=0.5,
                                                                   dropout_key=key))
    a, b = np.asarray(f(q, k, v, key)), np.asarray(f(q, k, v, key))
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, np.asarray(F.scaled_dot_product_attention(q, k, v)))
    # eagerly, without a key, it draws from jg.manual_seed's generator, reproducibly
    jg.manual_seed(0)
    e1 = np.asarray(F.scaled_dot_product_attention(q, k, v, dropout_p=0.5))
    jg.manual_seed(0)
    np.testing.assert_array_equal(e1, np.asarray(F.scaled_dot_product_attention(q, k, v,
                                                                                 dropout_p=0.5)))
    with pytest.raises(ValueError, match="PRNG key"):
        jg.jit(lambda q: F.scaled_dot_product_attention(q, k, v, dropout_p=0.5))(q)


def test_sdpa_errors():
    q, k, v = randn(2, 3, 4), randn(2, 5, 4), randn(2, 5, 6)
    with pytest.raises(ValueError, match="is_causal"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=np.ones((3, 5), bool), is_causal=True)
    with pytest.raises(ValueError, match=r"query \(..., L, E\)"):
        F.scaled_dot_product_attention(q, randn(2, 5, 3), v)
    with pytest.raises(TypeError, match="bool or a float"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=np.ones((3, 5), np.int64))
    with pytest.raises(ValueError, match="enable_gqa"):
        F.scaled_dot_product_attention(randn(1, 3, 3, 4), randn(1, 2, 5, 4), randn(1, 2, 5, 4),
                                       enable_gqa=True)


# ------------------------------------------------------------------------ MultiheadAttention

E, H, L, S, N = 4, 2, 3, 4, 2


def numpy_params(model):
    return {k: np.array(v, dtype=np.float64) for k, v in model.state_dict().items()}


def test_mha_parameter_names_shapes_and_init():
    m = nn.MultiheadAttention(16, 4)
    assert {k: tuple(v.shape) for k, v in m.state_dict().items()} == {
        "in_proj_weight": (48, 16), "in_proj_bias": (48,), "out_proj.weight": (16, 16),
        "out_proj.bias": (16,)}
    w = np.asarray(m.in_proj_weight.detach())
    assert np.abs(w).max() <= math.sqrt(6 / (16 + 48)) and w.std() > 0.1
    np.testing.assert_array_equal(np.asarray(m.in_proj_bias.detach()), 0)
    np.testing.assert_array_equal(np.asarray(m.out_proj.bias.detach()), 0)
    m = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True, bias=False)
    assert {k: tuple(v.shape) for k, v in m.state_dict().items()} == {
        "q_proj_weight": (8, 8), "k_proj_weight": (8, 3), "v_proj_weight": (8, 5),
        "bias_k": (1, 1, 8), "bias_v": (1, 1, 8), "out_proj.weight": (8, 8)}
    with pytest.raises(ValueError, match="divisible"):
        nn.MultiheadAttention(10, 3)


MHA_CASES = {
    "plain": ({}, {}),
    "masks_bool": ({}, {"key_padding_mask": "kpm_bool", "attn_mask": "am_bool"}),
    "masks_float_3d": ({}, {"key_padding_mask": "kpm_float", "attn_mask": "am_float3"}),
    "per_head_weights": ({}, {"average_attn_weights": False}),
    "kdim_vdim": ({"kdim": 3, "vdim": 5}, {"attn_mask": "am_bool"}),
    "bias_kv_zero_attn": ({"add_bias_kv": True, "add_zero_attn": True},
                          {"key_padding_mask": "kpm_bool", "attn_mask": "am_bool"}),
    "batch_first": ({"batch_first": True}, {"key_padding_mask": "kpm_bool"}),
    "no_bias": ({"bias": False}, {}),
    "causal": ({}, {"is_causal": True, "key": "self"}),
    "unbatched": ({}, {"unbatched": True, "attn_mask": "am_bool"}),
}


def make_mha_case(name):
    ctor, call = MHA_CASES[name]
    model = nn.MultiheadAttention(E, H, **ctor)
    params = numpy_params(model)
    for k in params:                      # biases nonzero, so they are exercised
        params[k] = RNG.standard_normal(params[k].shape) * 0.5
    model.load_state_dict(params)
    kd, vd = ctor.get("kdim", E), ctor.get("vdim", E)
    call = dict(call)
    unbatched = call.pop("unbatched", False)
    self_attn = call.pop("key", None) == "self"
    if unbatched:
        q, k, v = randn(L, E), randn(S, kd), randn(S, vd)
    else:
        q, k, v = randn(L, N, E), randn(S, N, kd), randn(S, N, vd)
        if ctor.get("batch_first"):
            q, k, v = (np.swapaxes(t, 0, 1) for t in (q, k, v))
    if self_attn:
        k = v = q
    kpm_bool = RNG.random((N, S)) > 0.7
    kpm_bool[:, 0] = False
    masks = {"kpm_bool": kpm_bool, "kpm_float": RNG.standard_normal((N, S)),
             "am_bool": np.triu(np.ones((L, S), bool), 2),
             "am_float3": RNG.standard_normal((N * H, L, S))}
    call = {k: masks.get(v, v) if isinstance(v, str) else v for k, v in call.items()}
    return model, params, (q, k, v), call, ctor


@pytest.mark.parametrize("case", list(MHA_CASES))
def test_mha_matches_reference_eager_and_jit(x64, case):
    model, params, args, call, ctor = make_mha_case(case)
    want_out, want_w = ref.mha(params, *args, H, add_zero_attn=ctor.get("add_zero_attn", False),
                               batch_first=ctor.get("batch_first", False), **call)
    out, w = model(*args, **call)
    np.testing.assert_allclose(np.asarray(out), want_out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(w), want_w, rtol=1e-12, atol=1e-12)
    f = jg.jit(lambda m, q, k, v: m(q, k, v, **call))
    out, w = f(model, *args)
    np.testing.assert_allclose(np.asarray(out), want_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(w), want_w, rtol=1e-10, atol=1e-12)
    out, w = model(*args, need_weights=False, **call)
    assert w is None
    np.testing.assert_allclose(np.asarray(out), want_out, rtol=1e-12, atol=1e-12)


def finite_differences(f, arrays, eps=1e-6):
    grads = {}
    for name, a in arrays.items():
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            keep = a[i]
            a[i] = keep + eps
            hi = f(arrays)
            a[i] = keep - eps
            lo = f(arrays)
            a[i] = keep
            g[i] = (hi - lo) / (2 * eps)
        grads[name] = g
    return grads


@pytest.mark.parametrize("case", ["masks_bool", "kdim_vdim", "bias_kv_zero_attn", "batch_first"])
def test_mha_gradients_match_finite_differences(x64, case):
    model, params, args, call, ctor = make_mha_case(case)
    extra = {"add_zero_attn": ctor.get("add_zero_attn", False),
             "batch_first": ctor.get("batch_first", False)}
    wout = randn(*ref.mha(params, *args, H, **extra, **call)[0].shape)
    arrays = dict(params, query=args[0].copy(), key=args[1].copy(), value=args[2].copy())

    def ref_loss(a):
        p = {k: v for k, v in a.items() if k not in ("query", "key", "value")}
        return float(np.sum(ref.mha(p, a["query"], a["key"], a["value"], H, **extra,
                                    **call)[0] * wout))
    want = finite_differences(ref_loss, arrays)

    def loss(m, q, k, v):
        return jnp.sum(jnp.multiply(m(q, k, v, **call)[0], wout))
    for path in ("eager", "grad", "jit"):
        if path == "eager":
            ins = [jg.tensor(a, requires_grad=True) for a in args]
            model.zero_grad()
            loss(model, *ins).backward()
            got = {k: p.grad for k, p in model.named_parameters()}
            got.update(zip(("query", "key", "value"), (t.grad for t in ins)))
        else:
            g = jg.grad(loss, argnums=(0, 1, 2, 3))
            gm, gq, gk, gv = (jg.jit(g) if path == "jit" else g)(model, *args)
            got = dict(gm.named_parameters(), query=gq, key=gk, value=gv)
        assert set(got) == set(want), path
        for name in want:
            np.testing.assert_allclose(np.asarray(got[name]), want[name], rtol=1e-5, atol=1e-7,
                                       err_msg=f"{path}: d loss / d {name}")


def test_mha_dropout_in_training_only(x64):
    m = nn.MultiheadAttention(E, H, dropout=0.5)
    q = randn(L, N, E)
    f = jg.jit(lambda m, q, key: m(q, q, q, dropout_key=key)[0])
    a, b = f(m, q, jg.random.key(0)), f(m, q, jg.random.key(0))
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    with pytest.raises(ValueError, match="PRNG key"):
        jg.jit(lambda m, q: m(q, q, q)[0])(m, q)
    m.eval()
    want = ref.mha(numpy_params(m), q, q, q, H)[0]
    np.testing.assert_allclose(np.asarray(jg.jit(lambda m, q: m(q, q, q)[0])(m, q)), want,
                               rtol=1e-10)
    assert not np.allclose(np.asarray(a), want)


def test_mha_shape_errors():
    m = nn.MultiheadAttention(E, H)
    with pytest.raises(ValueError, match="feature sizes"):
        m(randn(L, N, E), randn(S, N, 3), randn(S, N, E))
    with pytest.raises(ValueError, match="key_padding_mask of shape"):
        m(randn(L, N, E), randn(S, N, E), randn(S, N, E), key_padding_mask=np.zeros((N, 9), bool))
    with pytest.raises(ValueError, match="attn_mask of shape"):
        m(randn(L, N, E), randn(S, N, E), randn(S, N, E), attn_mask=np.zeros((L, 9), bool))
    with pytest.raises(ValueError, match="rank 3"):
        m(randn(L, N, E), randn(S, E), randn(S, E))


# --------------------------------------------------------------------------- Transformer layers

def test_transformer_layer_submodule_names():
    enc = nn.TransformerEncoderLayer(8, 2, 16)
    assert sorted(numpy_params(enc)) == sorted([
        "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
        "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
        "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"])
    dec = nn.TransformerDecoderLayer(8, 2, 16)
    assert {k.split(".")[0] for k in numpy_params(dec)} == {
        "self_attn", "multihead_attn", "linear1", "linear2", "norm1", "norm2", "norm3"}
    stack = nn.TransformerEncoder(enc, 2, norm=nn.LayerNorm(8))
    assert "layers.1.linear2.bias" in stack.state_dict() and "norm.weight" in stack.state_dict()
    with pytest.raises(ValueError, match="activation"):
        nn.TransformerEncoderLayer(8, 2, activation="swish")


def _randomized(model):
    params = {k: RNG.standard_normal(v.shape) * 0.5 for k, v in numpy_params(model).items()}
    model.load_state_dict(params)
    return params


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_matches_reference(x64, norm_first):
    layer = nn.TransformerEncoderLayer(E, H, 6, dropout=0.0, norm_first=norm_first)
    params = _randomized(layer)
    x, mask = randn(L, N, E), np.triu(np.full((L, L), -np.inf), 1)
    kpm = np.array([[False, False, True], [False, False, False]])
    want = ref.encoder_layer(params, x, H, mask, kpm, norm_first)
    np.testing.assert_allclose(np.asarray(layer(x, mask, kpm)), want, rtol=1e-10, atol=1e-12)
    jitted = jg.jit(lambda m, x: m(x, mask, kpm))
    np.testing.assert_allclose(np.asarray(jitted(layer, x)), want, rtol=1e-10, atol=1e-12)
    wout = randn(*want.shape)
    g = jg.jit(jg.grad(lambda x: jnp.sum(jnp.multiply(layer(x, mask, kpm), wout))))(x)
    fd = finite_differences(lambda a: float(np.sum(ref.encoder_layer(
        params, a["x"], H, mask, kpm, norm_first) * wout)), {"x": x.copy()})["x"]
    np.testing.assert_allclose(np.asarray(g), fd, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_and_stacks_match_reference(x64, norm_first):
    layer = nn.TransformerDecoderLayer(E, H, 6, dropout=0.0, activation="gelu",
                                       norm_first=norm_first, batch_first=True)
    params = _randomized(layer)
    x, mem = randn(N, L, E), randn(N, S, E)
    mask = nn.Transformer.generate_square_subsequent_mask(L)
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))

    def want_layer(p, x):
        out = ref.decoder_layer(p, np.swapaxes(x, 0, 1), np.swapaxes(mem, 0, 1), H,
                                np.asarray(mask, np.float64), None, norm_first, gelu)
        return np.swapaxes(out, 0, 1)
    want = want_layer(params, x)
    np.testing.assert_allclose(np.asarray(layer(x, mem, tgt_mask=mask)), want, rtol=1e-10,
                               atol=1e-12)
    stack = nn.TransformerDecoder(layer, 2)
    want2 = want_layer(params, want_layer(params, x))
    got = jg.jit(lambda m, x, mem: m(x, mem, tgt_mask=mask))(stack, x, mem)
    np.testing.assert_allclose(np.asarray(got), want2, rtol=1e-10, atol=1e-12)


def test_encoder_stack_dropout_keys_and_eval(x64):
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(E, H, 6, dropout=0.3), 2)
    x = randn(L, N, E)
    f = jg.jit(lambda m, x, key: m(x, key=key))
    a, b = f(enc, x, jg.random.key(1)), f(enc, x, jg.random.key(1))
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    enc.eval()
    p = numpy_params(enc)
    want = x
    for i in range(2):
        want = ref.encoder_layer({k[len(f"layers.{i}."):]: v for k, v in p.items()
                                  if k.startswith(f"layers.{i}.")}, want, H)
    np.testing.assert_allclose(np.asarray(enc(x)), want, rtol=1e-10, atol=1e-12)
    assert not np.allclose(np.asarray(a), want)


def test_mha_self_attention_packed_projection_same_values_and_grads(x64):
    """query is key is value takes one packed GEMM; it must agree with three projections."""
    model, params, (q, _, _), _, _ = make_mha_case("plain")
    w = randn(L, N, E)

    def loss(m, q, k, v):
        return jnp.sum(jnp.multiply(m(q, k, v, attn_mask=np.triu(np.ones((L, L), bool), 1))[0],
                                    w))
    packed = jg.jit(jg.grad(lambda m, q: loss(m, q, q, q), argnums=(0, 1)))(model, q)
    separate = jg.grad(loss, argnums=(0, 1, 2, 3))(model, q, q.copy(), q.copy())
    close_all = lambda a, b: np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10,
                                                        atol=1e-12)
    close_all(packed[1], np.asarray(separate[1]) + np.asarray(separate[2]) +
              np.asarray(separate[3]))
    for (name, a), (_, b) in zip(packed[0].named_parameters(), separate[0].named_parameters()):
        close_all(a, b)
