"""scaled_dot_product_attention over zero keys gives zeros (and zero gradients), as PyTorch."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad.nn import functional as F

Q = np.arange(8, dtype=np.float32).reshape(1, 2, 4) / 8
K = np.zeros((1, 0, 4), np.float32)
V = np.zeros((1, 0, 3), np.float32)


def _loss(q, k, v):
    return (F.scaled_dot_product_attention(q, k, v, is_causal=False) * 2.0).sum()


@pytest.mark.parametrize("run", [F.scaled_dot_product_attention,
                                 jg.jit(F.scaled_dot_product_attention)], ids=["eager", "jit"])
def test_no_keys_gives_zeros(run):
    out = run(Q, K, V)
    assert out.shape == (1, 2, 3)
    np.testing.assert_array_equal(np.asarray(out), np.zeros((1, 2, 3), np.float32))


@pytest.mark.parametrize("grad", [jg.grad(_loss, argnums=(0, 1, 2)),
                                  jg.jit(jg.grad(_loss, argnums=(0, 1, 2)))], ids=["eager", "jit"])
def test_no_keys_gradients_are_zeros(grad):
    gq, gk, gv = grad(Q, K, V)
    assert (gq.shape, gk.shape, gv.shape) == ((1, 2, 4), (1, 0, 4), (1, 0, 3))
    np.testing.assert_array_equal(np.asarray(gq), np.zeros((1, 2, 4), np.float32))
    q = jg.tensor(Q, requires_grad=True)
    _loss(q, K, V).backward()
    np.testing.assert_array_equal(np.asarray(q.grad), np.zeros((1, 2, 4), np.float32))


@pytest.mark.interpreter
def test_no_keys_on_the_interpreter():
    out = jg.jit(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True))(Q, K, V)
    np.testing.assert_array_equal(np.asarray(out), np.zeros((1, 2, 3), np.float32))
