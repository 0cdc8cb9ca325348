"""jg.nn layers and functional ops against NumPy references (eager and jitted)."""
import math

import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn
from jitgrad.nn import functional as F


def conv2d_loop(x, w, b, stride, pad):
    """Direct loop: out[n, o, i, j] = sum over c, ki, kj of
    xpad[n, c, i*s+ki, j*s+kj] * w[o, c, ki, kj]."""
    (sh, sw), (ph, pw) = stride, pad
    x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // sh + 1, (wd - kw) // sw + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw]
            out[:, :, i, j] = np.einsum("nckl,ockl->no", patch, w)
    return out + (0 if b is None else b[None, :, None, None])


def pool_loop(x, k, s, pad, reduce, fill):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=fill)
    oh, ow = (x.shape[2] - k) // s + 1, (x.shape[3] - k) // s + 1
    out = np.empty(x.shape[:2] + (oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = reduce(x[:, :, i * s:i * s + k, j * s:j * s + k], axis=(2, 3))
    return out


@pytest.mark.parametrize("stride,padding", [(1, 0), (1, 1), (2, 1), ((2, 1), (0, 2))])
def test_conv2d_matches_loop(rng, stride, padding):
    conv = nn.Conv2d(3, 4, (3, 2), stride=stride, padding=padding)
    x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    s = (stride, stride) if isinstance(stride, int) else stride
    p = (padding, padding) if isinstance(padding, int) else padding
    want = conv2d_loop(x.astype(np.float64), np.asarray(conv.weight.detach(), np.float64),
                       np.asarray(conv.bias.detach(), np.float64), s, p)
    with jg.no_grad():
        got = conv(x)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5)


def test_conv2d_same_padding_and_errors(rng):
    x = rng.standard_normal((1, 2, 5, 5))
    w = rng.standard_normal((3, 2, 4, 4))
    got = F.conv2d(x, w, padding="same")
    assert got.shape == (1, 3, 5, 5)
    ref = conv2d_loop(np.pad(x, ((0, 0), (0, 0), (1, 2), (1, 2))), w, None, (1, 1), (0, 0))
    np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-10)
    with pytest.raises(ValueError, match="2 channels"):
        F.conv2d(x, rng.standard_normal((3, 1, 3, 3)))
    with pytest.raises(ValueError, match="NCHW"):
        F.conv2d(x[0], w)


@pytest.mark.parametrize("k,s,pad", [(2, 2, 0), (3, 1, 1), (3, 2, 1)])
def test_pooling_matches_loop(rng, k, s, pad):
    x = rng.standard_normal((2, 3, 7, 7)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(nn.MaxPool2d(k, s, pad)(x)),
                               pool_loop(x, k, s, pad, np.max, -np.inf))
    np.testing.assert_allclose(np.asarray(nn.AvgPool2d(k, s, pad)(x)),
                               pool_loop(x, k, s, pad, np.mean, 0.0), rtol=1e-5, atol=1e-6)


def test_avg_pool_count_exclude_pad(rng):
    x = rng.standard_normal((1, 1, 4, 4))
    got = F.avg_pool2d(x, 3, 1, 1, count_include_pad=False)
    counts = pool_loop(np.ones_like(x), 3, 1, 1, np.sum, 0.0)
    np.testing.assert_allclose(np.asarray(got), pool_loop(x, 3, 1, 1, np.sum, 0.0) / counts)


def test_linear_and_pytorch_default_init(rng):
    jg.manual_seed(0)
    layer = nn.Linear(400, 30)
    w, b = np.asarray(layer.weight.detach()), np.asarray(layer.bias.detach())
    assert w.shape == (30, 400) and b.shape == (30,) and w.dtype == np.float32
    bound = 1 / math.sqrt(400)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(b).max() <= bound
    x = rng.standard_normal((5, 400)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(layer(x).detach()), x @ w.T + b, rtol=1e-5, atol=1e-5)
    assert nn.Linear(3, 2, bias=False).bias is None


def test_init_functions():
    jg.manual_seed(1)
    w = nn.Parameter(np.zeros((200, 300), np.float32))
    nn.init.xavier_uniform_(w)
    assert np.abs(np.asarray(w.detach())).max() <= math.sqrt(6 / 500)
    nn.init.kaiming_normal_(w, nonlinearity="relu")
    assert np.std(np.asarray(w.detach())) == pytest.approx(math.sqrt(2 / 300), rel=0.05)
    nn.init.zeros_(w)
    assert not np.asarray(w.detach()).any()
    assert nn.init.calculate_gain("tanh") == pytest.approx(5 / 3)
    with pytest.raises(ValueError, match="unknown nonlinearity"):
        nn.init.calculate_gain("swish")


def test_activation_and_shape_layers(rng):
    x = rng.standard_normal((4, 3, 2)).astype(np.float32)
    cases = [(nn.ReLU(), np.maximum(x, 0)), (nn.Tanh(), np.tanh(x)),
             (nn.Sigmoid(), 1 / (1 + np.exp(-x))),
             (nn.Softmax(dim=1), np.exp(x) / np.exp(x).sum(1, keepdims=True)),
             (nn.Flatten(), x.reshape(4, 6)), (nn.Flatten(0, 1), x.reshape(12, 2)),
             (nn.Identity(), x)]
    for layer, want in cases:
        np.testing.assert_allclose(np.asarray(layer(x)), want, rtol=1e-5, atol=1e-6,
                                   err_msg=repr(layer))
    from math import erf
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + erf(v / math.sqrt(2))))(x)
    np.testing.assert_allclose(np.asarray(nn.GELU()(x)), gelu, rtol=1e-5, atol=1e-6)


def test_layer_norm_and_embedding(rng):
    x = rng.standard_normal((4, 5, 6)).astype(np.float32)
    ln = nn.LayerNorm((5, 6))
    mu, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(np.asarray(ln(x).detach()), (x - mu) / np.sqrt(var + 1e-5),
                               rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="trailing dimensions"):
        ln(x[:, :, :3])
    emb = nn.Embedding(10, 3, padding_idx=0)
    idx = np.array([[1, 0], [9, 1]])
    w = np.asarray(emb.weight.detach())
    assert not w[0].any()
    np.testing.assert_array_equal(np.asarray(emb(idx).detach()), w[idx])
    with pytest.raises(TypeError, match="integer"):
        emb(np.zeros(2, np.float32))


def test_dropout_keys_modes_and_jit(rng):
    x = np.ones((64, 64), np.float32)
    drop = nn.Dropout(0.25)
    k = jg.random.key(3)
    a, b = np.asarray(drop(x, key=k)), np.asarray(drop(x, key=k))
    np.testing.assert_array_equal(a, b)                      # same key, same mask
    assert set(np.unique(a)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.15 < (a == 0).mean() < 0.35
    assert (np.asarray(drop(x)) == 0).any()                 # eager: global generator
    np.testing.assert_array_equal(np.asarray(drop.eval()(x)), x)

    model = nn.Sequential(nn.Dropout(0.5), nn.Tanh())
    f = jg.jit(lambda m, x, key: m(x, key=key))
    np.testing.assert_allclose(np.asarray(f(model, x, k)), np.asarray(model(x, key=k)), rtol=1e-6)
    with pytest.raises(ValueError, match="explicit PRNG key"):
        jg.jit(lambda m, x: m(x))(model, x)
    assert np.isfinite(np.asarray(jg.jit(lambda m, x: m(x))(model.eval(), x))).all()


def log_softmax_np(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def test_cross_entropy_and_nll(rng):
    logits = rng.standard_normal((6, 4)).astype(np.float32)
    y = np.array([0, 3, 1, 1, 2, 0])
    per = -log_softmax_np(logits)[np.arange(6), y]
    assert float(F.cross_entropy(logits, y)) == pytest.approx(per.mean(), rel=1e-5)
    assert float(F.cross_entropy(logits, y, reduction="sum")) == pytest.approx(per.sum(), rel=1e-5)
    np.testing.assert_allclose(np.asarray(F.cross_entropy(logits, y, reduction="none")), per,
                               rtol=1e-5)
    one_hot = np.eye(4, dtype=np.float32)[y]
    assert float(F.cross_entropy(logits, one_hot)) == pytest.approx(per.mean(), rel=1e-5)
    assert float(F.nll_loss(log_softmax_np(logits), y)) == pytest.approx(per.mean(), rel=1e-5)
    assert float(nn.CrossEntropyLoss()(logits, y)) == pytest.approx(per.mean(), rel=1e-5)
    huge = np.array([[1e4, -1e4, 0.0]], np.float32)         # stable: no inf/nan
    assert float(F.cross_entropy(huge, np.array([1]))) == pytest.approx(2e4, rel=1e-6)
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(logits, y, reduction="avg")
    with pytest.raises(ValueError, match="labels of shape"):
        F.cross_entropy(logits, y[:3])


def test_regression_losses(rng):
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    assert float(F.mse_loss(a, b)) == pytest.approx(((a - b) ** 2).mean())
    assert float(nn.L1Loss(reduction="sum")(a, b)) == pytest.approx(np.abs(a - b).sum())
    x = np.array([-800.0, -2.0, 0.0, 3.0, 800.0])
    t = np.array([0.0, 1.0, 0.5, 0.0, 1.0])
    want = np.logaddexp(0, x) - x * t                     # exact and stable
    np.testing.assert_allclose(np.asarray(F.binary_cross_entropy_with_logits(x, t, reduction="none")), want)
    w = 3.0
    want_w = -(w * t * -np.logaddexp(0, -x) + (1 - t) * -np.logaddexp(0, x))
    np.testing.assert_allclose(np.asarray(nn.BCEWithLogitsLoss(reduction="none", pos_weight=w)(x, t)),
                               want_w, rtol=1e-12)


def test_cnn_loss_and_grad_fuse_and_match_eager(rng):
    """The fused schedule of a CNN's value_and_grad computes eager's numbers. (It runs on the
    reference interpreter here: numba-compiling its kernels is the codegen tests' job, and slow.)"""
    from jitgrad.ir.interpreter import interpret
    from jitgrad.ir.passes.manager import run_pipeline
    jg.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(4, 4, 3, stride=2, padding=1), nn.Tanh(), nn.AvgPool2d(2),
                          nn.Flatten(), nn.Linear(4, 10))
    x = rng.standard_normal((3, 1, 8, 8)).astype(np.float32)
    y = np.array([1, 7, 3])

    def loss(m, x, y):
        return F.cross_entropy(m(x), y)

    value, grads = jg.value_and_grad(loss)(model, x, y)
    graph = jg.make_graph(jg.value_and_grad(loss))(model, x, y)
    optimized, schedule, _ = run_pipeline(graph)
    assert len(schedule) < len(graph.nodes) // 2          # fusion merged most nodes
    args = [np.asarray(leaf) for leaf in jg.tree_util.tree_leaves((model, x, y))]
    fused_value, *fused_grads = interpret(optimized, args)
    assert float(fused_value) == pytest.approx(float(value), rel=1e-5)
    for g, fused in zip(grads.parameters(), fused_grads):
        np.testing.assert_allclose(fused, np.asarray(g), rtol=1e-4, atol=1e-6)
