"""PyTorch's attention modules' state_dicts load into jitgrad's as they are, and outputs and
gradients agree (float64, eager and jit). Skipped where torch is not installed (it is not a test
dependency: tests/nn/test_attention.py checks the same against a NumPy reference)."""
from __future__ import annotations

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import nn
from jitgrad.nn import functional as F

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(1)


def load(jmodel, tmodel):
    jmodel.load_state_dict({k: v.detach().numpy() for k, v in tmodel.state_dict().items()})
    return jmodel


def T(a, grad=False):
    return torch.tensor(a, requires_grad=grad)


@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True}, {"scale": 0.2},
                                    {"attn_mask": "bool"}, {"attn_mask": "float"}])
def test_sdpa_matches_torch(x64, kwargs):
    q, k, v = RNG.standard_normal((2, 3, 5, 4)), RNG.standard_normal((2, 3, 6, 4)), \
        RNG.standard_normal((2, 3, 6, 4))
    masks = {"bool": RNG.random((5, 6)) > 0.4, "float": RNG.standard_normal((5, 6))}
    kwargs = {k: masks.get(v, v) if isinstance(v, str) else v for k, v in kwargs.items()}
    tq, tk, tv = T(q, True), T(k, True), T(v, True)
    tout = torch.nn.functional.scaled_dot_product_attention(
        tq, tk, tv, **{k: T(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()})
    w = RNG.standard_normal(tout.shape)
    (tout * T(w)).sum().backward()
    got = F.scaled_dot_product_attention(q, k, v, **kwargs)
    np.testing.assert_allclose(np.asarray(got), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    grads = jg.jit(jg.grad(lambda q, k, v: jnp.sum(jnp.multiply(
        F.scaled_dot_product_attention(q, k, v, **kwargs), w)), argnums=(0, 1, 2)))(q, k, v)
    for g, t in zip(grads, (tq, tk, tv)):
        np.testing.assert_allclose(np.asarray(g), t.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("ctor", [{}, {"kdim": 3, "vdim": 5}, {"add_bias_kv": True},
                                  {"add_zero_attn": True, "batch_first": True}])
def test_mha_state_dict_outputs_and_grads_match_torch(x64, ctor):
    tm = torch.nn.MultiheadAttention(8, 2, **ctor).double()
    jm = load(nn.MultiheadAttention(8, 2, **ctor), tm)
    kd, vd = ctor.get("kdim", 8), ctor.get("vdim", 8)
    q, k, v = (RNG.standard_normal((5, 3, 8)), RNG.standard_normal((6, 3, kd)),
               RNG.standard_normal((6, 3, vd)))
    if ctor.get("batch_first"):
        q, k, v = (np.ascontiguousarray(np.swapaxes(t, 0, 1)) for t in (q, k, v))
    kpm = RNG.random((3, 6)) > 0.7
    kpm[:, 0] = False
    tq = T(q, True)
    tout, tw = tm(tq, T(k), T(v), key_padding_mask=T(kpm))
    w = RNG.standard_normal(tout.shape)
    (tout * T(w)).sum().backward()
    out, weights = jm(q, k, v, key_padding_mask=kpm)
    np.testing.assert_allclose(np.asarray(out), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(weights), tw.detach().numpy(), rtol=1e-10, atol=1e-12)
    gm, gq = jg.jit(jg.grad(lambda m, q: jnp.sum(jnp.multiply(m(q, k, v, key_padding_mask=kpm)[0],
                                                                w)), argnums=(0, 1)))(jm, q)
    np.testing.assert_allclose(np.asarray(gq), tq.grad.numpy(), rtol=1e-8, atol=1e-10)
    for name, p in tm.named_parameters():
        np.testing.assert_allclose(np.asarray(dict(gm.named_parameters())[name]),
                                   p.grad.numpy(), rtol=1e-8, atol=1e-10, err_msg=name)


def test_transformer_matches_torch(x64):
    tt = torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, norm_first=True).double().eval()
    jt = load(nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, norm_first=True), tt).eval()
    src, tgt = RNG.standard_normal((5, 3, 8)), RNG.standard_normal((4, 3, 8))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    with torch.no_grad():
        want = tt(T(src), T(tgt), tgt_mask=mask).numpy()
    got = jg.jit(lambda m, s, t: m(s, t, tgt_mask=nn.Transformer.generate_square_subsequent_mask(
        4)))(jt, src, tgt)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)
