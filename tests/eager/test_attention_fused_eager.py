"""Eager scaled_dot_product_attention without dropout, once hot: one compiled call forward
(its backward reading the saved weights), with the values and gradients of the op-by-op tier
and of NumPy."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.transforms import fused_eager

RNG = np.random.default_rng(11)
F = jg.nn.functional


def _numpy_sdpa(q, k, v, keep):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    s = np.where(keep, s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("mask", ["causal", "bool", "float", None])
def test_hot_attention_gives_the_op_by_op_values_and_gradients(mask):
    q0, k0, v0 = (RNG.standard_normal((2, 3, 5, 4)).astype(np.float32) for _ in range(3))
    keep = np.tril(np.ones((5, 5), bool)) if mask else np.ones((5, 5), bool)
    kw = {"is_causal": True} if mask == "causal" else \
        {"attn_mask": jg.tensor(keep)} if mask == "bool" else \
        {"attn_mask": jg.tensor(np.where(keep, 0.0, -np.inf).astype(np.float32))} if mask else {}
    runs = []
    for _ in range(fused_eager.HOT + 2):
        q, k, v = (jg.tensor(a, requires_grad=True) for a in (q0, k0, v0))
        out = F.scaled_dot_product_attention(q, k, v, **kw)
        (out * out).sum().backward()
        runs.append([out.detach().numpy()] + [t.grad.numpy() for t in (q, k, v)])
    np.testing.assert_allclose(runs[0][0], _numpy_sdpa(q0, k0, v0, keep), rtol=1e-5, atol=1e-6)
    for run in runs[1:]:
        for a, b in zip(run, runs[0]):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_hot_attention_is_one_compiled_call():
    q, k, v = (jg.tensor(RNG.standard_normal((2, 3, 5, 4)).astype(np.float32))
               for _ in range(3))
    for _ in range(fused_eager.HOT):
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
    with jg.profiler.profile() as prof:
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert len([e for e in prof.events if e.cat == "call"]) == 1
    assert not [e for e in prof.events if e.cat == "eager" and "matmul" in e.name]
