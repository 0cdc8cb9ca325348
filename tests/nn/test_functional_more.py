"""jitgrad.nn.functional beyond its op records (tests/support/opinfo/nn_functional_more_ops.py):
the random draws (gumbel_softmax, fractional max pooling without samples), the argument errors
the records cannot express, and regressions found by the generated tests (issue 49)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.nn.functional as F


# ----------------------------------------------------------------------------- gumbel_softmax

def test_gumbel_softmax_soft_rows_are_distributions_and_follow_the_key():
    logits = np.log(np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]]))
    a = np.asarray(F.gumbel_softmax(logits, tau=0.5, key=jg.random.key(3)))
    b = np.asarray(F.gumbel_softmax(logits, tau=0.5, key=jg.random.key(3)))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(a.sum(-1), 1.0, rtol=1e-12)
    assert (a > 0).all()


def test_gumbel_softmax_hard_is_one_hot_at_the_soft_argmax_with_the_soft_gradient():
    logits = np.array([[1.0, 2.0, 0.5, -1.0]] * 3)
    hard = np.asarray(F.gumbel_softmax(logits, hard=True, key=jg.random.key(0)))
    soft = np.asarray(F.gumbel_softmax(logits, key=jg.random.key(0)))
    np.testing.assert_array_equal(hard, np.eye(4)[soft.argmax(-1)])
    w = np.arange(4.0)
    g_hard = jg.grad(lambda x: (F.gumbel_softmax(x, hard=True, key=jg.random.key(0)) * w).sum())
    g_soft = jg.grad(lambda x: (F.gumbel_softmax(x, key=jg.random.key(0)) * w).sum())
    np.testing.assert_allclose(np.asarray(g_hard(logits)), np.asarray(g_soft(logits)), atol=1e-12)


def test_gumbel_softmax_samples_follow_the_softmax_of_the_logits():
    """Gumbel-max: P(argmax = i) = softmax(logits)_i (8000 draws, 4 sigma)."""
    p = np.array([0.5, 0.3, 0.2])
    logits = np.broadcast_to(np.log(p), (8000, 3))
    hard = np.asarray(F.gumbel_softmax(logits, hard=True, key=jg.random.key(7)))
    freq = hard.mean(0)
    assert np.all(np.abs(freq - p) < 4 * np.sqrt(p * (1 - p) / 8000)), freq


def test_gumbel_softmax_inside_jit_needs_a_key():
    with pytest.raises(ValueError, match="explicit PRNG key"):
        jg.jit(lambda x: F.gumbel_softmax(x))(np.zeros((2, 3)))


# ----------------------------------------------------------------------------- fractional pooling

def test_fractional_max_pool_draws_from_the_global_generator():
    x = np.random.default_rng(0).standard_normal((2, 3, 9, 8)).astype(np.float32)
    jg.manual_seed(5)
    a, ia = F.fractional_max_pool2d(x, 2, output_ratio=0.5, return_indices=True)
    jg.manual_seed(5)
    b = F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5))
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert a.shape == (2, 3, 4, 4) and str(ia.dtype) == "int64"
    # every output is its input at the returned flat index
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, np.asarray(ia).reshape(2, 3, -1), -1),
                                  np.asarray(a).reshape(2, 3, -1))


def test_fractional_max_pool3d_with_indices_always_returns_indices():
    x = np.random.default_rng(1).standard_normal((2, 5, 5, 5))
    u = np.full((1, 2, 3), 0.5)
    out, idx = F.fractional_max_pool3d_with_indices(x, 2, output_size=3, _random_samples=u)
    assert out.shape == idx.shape == (2, 3, 3, 3)


@pytest.mark.parametrize("kwargs,exc,match", [
    ({}, ValueError, "either an output_size or an output_ratio"),
    ({"output_ratio": (0.5, 0.5, 0.5)}, ValueError, "output_ratio must be one number or 2"),
    ({"output_size": 3, "_random_samples": np.zeros((1, 3, 2))}, ValueError,
     r"_random_samples must have shape \(2, 3, 2\)"),
    ({"output_size": 8}, ValueError, "larger than the input's size 8"),
])
def test_fractional_max_pool_argument_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        F.fractional_max_pool2d(np.zeros((2, 3, 8, 8)), 2, **kwargs)


def test_fractional_max_pool_inside_jit_needs_samples():
    with pytest.raises(ValueError, match="inside jit needs _random_samples"):
        jg.jit(lambda x: F.fractional_max_pool2d(x, 2, output_size=3))(np.zeros((1, 1, 6, 6)))
    u = np.full((1, 1, 2), 0.3)
    got = jg.jit(lambda x: F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=u))(
        np.arange(36.0).reshape(1, 1, 6, 6))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(F.fractional_max_pool2d(
        np.arange(36.0).reshape(1, 1, 6, 6), 2, output_size=3, _random_samples=u)))


# ----------------------------------------------------------------------------- grouped_mm

@pytest.mark.parametrize("a,b,kwargs,exc,match", [
    ((4, 3), (2, 3, 5), {}, ValueError, "offs must be given exactly"),
    ((2, 4, 3), (2, 3, 5), {"offs": np.array([1, 2], np.int32)}, ValueError,
     "offs must be given exactly"),
    ((4, 3), (2, 3, 5), {"offs": np.array([1.0, 2.0])}, TypeError, "1-D int32"),
    ((4, 3), (2, 3, 5), {"offs": np.array([1, 2, 4], np.int32)}, ValueError,
     "offs has 3 groups, the 3-D operand 2"),
    ((4,), (3, 5), {}, ValueError, "2-D or 3-D"),
    ((2, 4, 3), (2, 3, 5), {"bias": np.zeros(5)}, NotImplementedError, "bias is not supported"),
])
def test_grouped_mm_errors(a, b, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        F.grouped_mm(np.ones(a), np.ones(b), **kwargs)


def test_grouped_mm_out_dtype_and_grad():
    a, b = np.ones((4, 3), np.float32), np.ones((2, 3, 2), np.float32)
    offs = np.array([1, 3], np.int32)
    out = F.grouped_mm(a, b, offs=offs, out_dtype=jg.float64)
    assert str(out.dtype) == "float64"
    np.testing.assert_array_equal(np.asarray(out), [[3, 3]] * 3 + [[0, 0]])
    ga = jg.grad(lambda x: F.grouped_mm(x, b, offs=offs).sum())(a)
    np.testing.assert_array_equal(np.asarray(ga), [[2, 2, 2]] * 3 + [[0, 0, 0]])   # row 3: past


# ----------------------------------------------------------------------------- multi-head attention

def _mha_args(e=4):
    rng = np.random.default_rng(0)
    return (rng.standard_normal((3, 2, e)),) * 3 + (e, 2, rng.standard_normal((3 * e, e)), None,
                                                     None, None, False, 0.0,
                                                     rng.standard_normal((e, e)), None)


@pytest.mark.parametrize("kwargs,exc,match", [
    ({"is_causal": True}, ValueError, "need attn_mask if specifying the is_causal hint"),
    ({"static_k": np.zeros((4, 3, 2))}, NotImplementedError, "static_k"),
    ({"use_separate_proj_weight": True}, ValueError, "needs q_proj_weight"),
])
def test_multi_head_attention_forward_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        F.multi_head_attention_forward(*_mha_args(), **kwargs)


def test_multi_head_attention_forward_separate_weights_equal_the_packed_ones():
    args = list(_mha_args())
    w = args[5]
    packed = F.multi_head_attention_forward(*args, training=False)
    args[5] = None
    sep = F.multi_head_attention_forward(*args, training=False, use_separate_proj_weight=True,
                                         q_proj_weight=w[:4], k_proj_weight=w[4:8],
                                         v_proj_weight=w[8:])
    for p, s in zip(packed, sep):
        np.testing.assert_allclose(np.asarray(p), np.asarray(s), rtol=1e-12)


# ----------------------------------------------------------------------------- regressions

def test_ctc_loss_of_float16_log_probs_is_finite():
    """Found by the op database's 16-bit test: the recursion's -1e30 'log 0' overflowed to -inf
    in float16 and gave NaN; 16-bit inputs now run in float32 and round once."""
    lp = np.log(np.full((4, 1, 3), 1 / 3)).astype(np.float16)
    loss = F.ctc_loss(lp, np.array([[1, 2]]), (4,), (2,), reduction="sum")
    assert str(loss.dtype) == "float16"
    # 4 steps, labels 1 2: 15 of the 3**4 = 81 paths collapse to 1 2 (blank 0), each 1/81
    np.testing.assert_allclose(float(loss), -np.log(15 / 81), rtol=2e-3)


def test_functional_namespace_has_no_helper_names():
    """Helpers functional.py used to import (asarray, register_methods, fused_in_eager and the
    __future__ flag) are no names of jitgrad.nn.functional (issue 49's coverage check)."""
    for name in ("asarray", "register_methods", "fused_in_eager", "annotations"):
        assert not hasattr(F, name), name


def test_max_unpool_drops_an_index_outside_its_plane():
    """Found cross-checking against torch: index 5 of a 5-long output was written into the next
    row's first element; it is dropped now on every path (torch raises in eager)."""
    x = np.array([[[1.0, 2.0]], [[3.0, 4.0]]])              # (2, 1, 2)
    idx = np.array([[[0, 5]], [[1, 4]]])
    want = [[[1.0, 0, 0, 0, 0]], [[0, 3.0, 0, 0, 4.0]]]
    unpool = lambda a, i: F.max_unpool1d(a, i, 2, output_size=(5,))  # noqa: E731
    for fn in (unpool, jg.jit(unpool)):
        np.testing.assert_array_equal(np.asarray(fn(x, idx)), want)
