"""BatchNorm, InstanceNorm, GroupNorm, Dropout2d, AdaptiveAvgPool2d and Conv2d with dilation and
groups, against NumPy references of PyTorch's equations (tests/support/nn_norm_reference.py): forward
eager and under jit, running statistics after several training steps, eval mode, errors, and
gradients by finite differences (check_grads, float64)."""
import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn
from jitgrad.nn import functional as F
from jitgrad.test_util import check_grads

from tests.support import nn_norm_reference as ref


def _np(t):
    return np.asarray(t)


def _forward(layer, x):
    return layer(x)


JIT_FORWARD = jg.jit(_forward)
CALLS = {"eager": _forward, "jit": JIT_FORWARD}

BN_CASES = [(nn.BatchNorm1d, (6, 3)), (nn.BatchNorm1d, (4, 3, 5)), (nn.BatchNorm2d, (4, 3, 5, 6)),
            (nn.BatchNorm3d, (2, 3, 3, 4, 2))]


# ------------------------------------------------------------------------------ BatchNorm

@pytest.mark.parametrize("how", ["eager", "jit"])
@pytest.mark.parametrize("cls,shape", BN_CASES)
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm_training_steps_then_eval(rng, how, cls, shape, momentum):
    layer = cls(3, momentum=momentum)
    w, b = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    with jg.no_grad():
        layer.weight.copy_(w)
        layer.bias.copy_(b)
    rm, rv = np.zeros(3), np.ones(3)
    call = CALLS[how]
    for step in range(1, 4):
        x = (rng.standard_normal(shape) * 2 + step).astype(np.float32)
        factor = 1.0 / step if momentum is None else momentum       # cumulative average
        want, rm, rv = ref.batch_norm(x, rm, rv, w, b, True, factor)
        np.testing.assert_allclose(_np(call(layer, x)), want, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(_np(layer.running_mean), rm, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(_np(layer.running_var), rv, rtol=1e-5, atol=1e-6)
        assert int(layer.num_batches_tracked) == step
    assert layer.running_mean.dtype == np.float32 and layer.num_batches_tracked.dtype == np.int64
    layer.eval()
    before = list(layer.buffers())
    want, _, _ = ref.batch_norm(x, rm, rv, w, b, False, 0.1)
    np.testing.assert_allclose(_np(call(layer, x)), want, rtol=1e-4, atol=1e-5)
    assert all(a is b for a, b in zip(before, layer.buffers()))      # eval mode writes nothing


@pytest.mark.parametrize("how", ["eager", "jit"])
def test_batch_norm_without_running_stats_uses_batch_stats_in_eval(rng, how):
    layer = nn.BatchNorm2d(4, affine=False, track_running_stats=False)
    assert layer.running_mean is None and layer.num_batches_tracked is None
    assert list(layer.state_dict()) == [] and list(layer.parameters()) == []
    x = rng.standard_normal((3, 4, 2, 5)).astype(np.float32)
    want, _, _ = ref.batch_norm(x, None, None, None, None, True, 0.1)
    for mode in (True, False):
        layer.train(mode)
        np.testing.assert_allclose(_np(CALLS[how](layer, x)), want, rtol=1e-4, atol=1e-5)


def test_functional_batch_norm_updates_in_place_and_eval(rng):
    x = rng.standard_normal((5, 3, 4)).astype(np.float32)
    rm, rv = jg.tensor(np.zeros(3, np.float32)), jg.tensor(np.ones(3, np.float32))
    w = rng.standard_normal(3).astype(np.float32)
    y = F.batch_norm(x, rm, rv, w, None, training=True, momentum=0.2, eps=1e-3)
    want, wrm, wrv = ref.batch_norm(x, np.zeros(3), np.ones(3), w, None, True, 0.2, 1e-3)
    np.testing.assert_allclose(_np(y), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(rm), wrm, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(_np(rv), wrv, rtol=1e-5, atol=1e-7)
    y = F.batch_norm(x, rm, rv)                                        # eval: running stats
    np.testing.assert_allclose(_np(y), ref.batch_norm(x, wrm, wrv, None, None, False, 0)[0],
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(rm), wrm, rtol=1e-5, atol=1e-7)      # unchanged in eval


def test_batch_norm_errors(rng):
    x = rng.standard_normal((4, 3, 5)).astype(np.float32)
    with pytest.raises(ValueError, match="expected 4D input, got 3D"):
        nn.BatchNorm2d(3)(x)
    with pytest.raises(ValueError, match="expected 3 channels"):
        nn.BatchNorm1d(3)(rng.standard_normal((4, 2)).astype(np.float32))
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        nn.BatchNorm1d(3)(np.ones((1, 3), np.float32))
    with pytest.raises(ValueError, match="must be given when not training"):
        F.batch_norm(x, None, None)
    with pytest.raises(ValueError, match=r"running_mean of shape \(3,\)"):
        F.batch_norm(x, np.zeros(4, np.float32), np.ones(3, np.float32))
    with pytest.raises(ValueError, match="momentum must be a number"):
        F.batch_norm(x, jg.tensor(np.zeros(3, np.float32)), jg.tensor(np.ones(3, np.float32)),
                     training=True, momentum=None)
    rm, rv = jg.tensor(np.zeros(3, np.float32)), jg.tensor(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="use the module"):
        jg.jit(lambda x, rm, rv: F.batch_norm(x, rm, rv, training=True))(x, rm, rv)


def test_batch_norm_gradients(rng):
    x = rng.standard_normal((4, 3, 5))
    w, b = rng.standard_normal(3) + 2, rng.standard_normal(3)
    rm, rv = rng.standard_normal(3), rng.random(3) + 0.5
    check_grads(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (x, w, b),
                order=1, modes=("rev", "fwd"))
    check_grads(lambda x, w: F.batch_norm(x, rm, rv, w, None), (x, w), order=1, modes=("rev",))
    # a layer in training mode: the gradient of the model (buffers get zeros, not derivatives)
    layer = nn.BatchNorm1d(3).double()
    t = rng.standard_normal((4, 3, 5))
    g = jg.grad(lambda m, x: (m(x) * t).sum())(layer, x)
    eps, w0 = 1e-6, np.ones(3)
    for c in range(3):
        d = np.zeros(3)
        d[c] = eps
        fd = ((ref.batch_norm(x, None, None, w0 + d, None, True, 0)[0] * t).sum()
              - (ref.batch_norm(x, None, None, w0 - d, None, True, 0)[0] * t).sum()) / (2 * eps)
        np.testing.assert_allclose(_np(g.weight)[c], fd, rtol=1e-6)
    assert not np.any(_np(g.running_mean)) and not np.any(_np(g.running_var))


def test_batch_norm_jit_gradient_equals_eager(rng):
    layer = nn.BatchNorm2d(2)
    x = rng.standard_normal((3, 2, 4, 4)).astype(np.float32)
    t = rng.standard_normal((3, 2, 4, 4)).astype(np.float32)
    loss = lambda m, x: (m(x) * t).sum()         # noqa: E731
    eager = jg.grad(loss, argnums=(0, 1))(layer, x)
    jitted = jg.jit(jg.grad(loss, argnums=(0, 1)))(layer, x)
    for a, b in zip(jg.tree_util.tree_leaves(eager), jg.tree_util.tree_leaves(jitted)):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-4, atol=1e-5)
    assert int(layer.num_batches_tracked) == 2          # both calls ran the forward once


# -------------------------------------------------------------------- InstanceNorm, GroupNorm

@pytest.mark.parametrize("how", ["eager", "jit"])
def test_instance_norm_defaults_and_running_stats(rng, how):
    plain = nn.InstanceNorm2d(3)
    assert plain.weight is None and plain.running_mean is None       # PyTorch's defaults
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    np.testing.assert_allclose(_np(CALLS[how](plain, x)),
                               ref.instance_norm(x, None, None, None, None, True, 0.1)[0],
                               rtol=1e-4, atol=1e-5)
    layer = nn.InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=0.3)
    with jg.no_grad():
        layer.weight.copy_(np.array([1.0, 2.0, 0.5], np.float32))
    rm, rv = np.zeros(3), np.ones(3)
    for _ in range(2):
        want, rm, rv = ref.instance_norm(x, rm, rv, [1.0, 2.0, 0.5], np.zeros(3), True, 0.3)
        np.testing.assert_allclose(_np(CALLS[how](layer, x)), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(layer.running_mean), rm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(layer.running_var), rv, rtol=1e-5, atol=1e-6)
    layer.eval()
    want = ref.instance_norm(x, rm, rv, [1.0, 2.0, 0.5], np.zeros(3), False, 0.3)[0]
    np.testing.assert_allclose(_np(CALLS[how](layer, x)), want, rtol=1e-4, atol=1e-5)
    # unbatched (C, H, W) input is a batch of one
    np.testing.assert_allclose(_np(plain(x[0])), _np(plain(x[:1]))[0], rtol=1e-6)


@pytest.mark.parametrize("how", ["eager", "jit"])
def test_group_norm(rng, how):
    layer = nn.GroupNorm(2, 6, eps=1e-3)
    w, b = rng.standard_normal(6).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    with jg.no_grad():
        layer.weight.copy_(w)
        layer.bias.copy_(b)
    x = rng.standard_normal((3, 6, 4, 2)).astype(np.float32)
    np.testing.assert_allclose(_np(CALLS[how](layer, x)), ref.group_norm(x, 2, w, b, 1e-3),
                               rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="divisible by num_groups"):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match="dividing the 6 channels"):
        F.group_norm(x, 4)


def test_instance_and_group_norm_gradients(rng):
    x = rng.standard_normal((2, 4, 3, 3))
    w, b = rng.standard_normal(4), rng.standard_normal(4)
    check_grads(lambda x, w, b: F.group_norm(x, 2, w, b), (x, w, b), order=1,
                modes=("rev", "fwd"))
    check_grads(lambda x, w: F.instance_norm(x, weight=w), (x, w), order=1, modes=("rev",))


# -------------------------------------------------------------------- Conv2d dilation, groups

CONV_CASES = [  # in, out, kernel, stride, padding, dilation, groups
    (4, 6, (3, 3), (1, 1), (2, 2), (2, 2), 2),
    (6, 6, (3, 3), (2, 2), (1, 1), (1, 1), 6),          # depthwise
    (3, 6, (3, 2), (1, 1), (1, 0), (2, 3), 3),          # depthwise with multiplier 2
    (4, 4, (3, 3), (1, 1), "same", (2, 1), 1),
]


@pytest.mark.parametrize("how", ["eager", "jit"])
@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_dilation_groups(rng, how, case):
    cin, cout, k, s, p, d, g = case
    layer = nn.Conv2d(cin, cout, k, stride=s, padding=p, dilation=d, groups=g)
    assert tuple(layer.weight.shape) == (cout, cin // g) + k
    x = rng.standard_normal((2, cin, 9, 8)).astype(np.float32)
    pads = (tuple((di * (ki - 1) // 2, di * (ki - 1) - di * (ki - 1) // 2) for ki, di in zip(k, d))
            if p == "same" else tuple((pi, pi) for pi in p))
    want = ref.conv2d(x, _np(layer.weight), _np(layer.bias), s, pads, d, g)
    got = CALLS[how](layer, x)
    if p == "same":
        assert got.shape[2:] == x.shape[2:]
    np.testing.assert_allclose(_np(got), want, rtol=1e-4, atol=1e-5)


def test_conv2d_dilation_groups_gradients(rng):
    x = rng.standard_normal((2, 4, 6, 5))
    w = rng.standard_normal((6, 2, 2, 3))
    b = rng.standard_normal(6)
    check_grads(lambda x, w, b: F.conv2d(x, w, b, 1, 1, (2, 1), 2), (x, w, b), order=1,
                modes=("rev", "fwd"))
    wd = rng.standard_normal((4, 1, 3, 3))
    check_grads(lambda x, w: F.conv2d(x, w, None, 2, 1, 1, 4), (x, wd), order=1, modes=("rev",))


def test_conv2d_group_errors():
    with pytest.raises(ValueError, match="groups must be a positive int dividing in_channels"):
        nn.Conv2d(4, 6, 3, groups=4)
    with pytest.raises(ValueError, match=r"weight must have shape \(out_channels, 2, kh, kw\)"):
        F.conv2d(np.zeros((1, 4, 5, 5), np.float32), np.zeros((4, 4, 3, 3), np.float32), groups=2)
    with pytest.raises(ValueError, match="dilated to"):
        F.conv2d(np.zeros((1, 1, 4, 4), np.float32), np.zeros((1, 1, 3, 3), np.float32),
                 dilation=2)


# ------------------------------------------------------------------------------ AdaptiveAvgPool2d

@pytest.mark.parametrize("how", ["eager", "jit"])
@pytest.mark.parametrize("size,want_hw", [((3, 2), (3, 2)), (1, (1, 1)), ((None, 4), (7, 4)),
                                          (5, (5, 5)), ((7, 5), (7, 5))])
def test_adaptive_avg_pool2d(rng, how, size, want_hw):
    x = rng.standard_normal((2, 3, 7, 5)).astype(np.float32)
    got = CALLS[how](nn.AdaptiveAvgPool2d(size), x)
    np.testing.assert_allclose(_np(got), ref.adaptive_avg_pool2d(x, want_hw), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(_np(F.adaptive_avg_pool2d(x[0], size)),
                               ref.adaptive_avg_pool2d(x[0], want_hw), rtol=1e-5, atol=1e-6)


def test_adaptive_avg_pool2d_gradient_and_errors(rng):
    check_grads(lambda x: F.adaptive_avg_pool2d(x, (2, 3)), (rng.standard_normal((1, 2, 5, 7)),),
                order=1, modes=("rev", "fwd"))
    with pytest.raises(ValueError, match="output_size must be a positive int"):
        F.adaptive_avg_pool2d(np.zeros((1, 1, 4, 4), np.float32), 0)
    with pytest.raises(ValueError, match="3D or 4D"):
        F.adaptive_avg_pool2d(np.zeros((4, 4), np.float32), 2)


# ------------------------------------------------------------------------------ Dropout2d

def test_dropout2d_zeroes_whole_channels(rng):
    x = rng.random((8, 16, 3, 3)).astype(np.float32) + 1.0
    layer = nn.Dropout2d(0.25)
    key = jg.random.key(3)
    y = _np(layer(x, key=key))
    kept = np.all(y != 0, axis=(2, 3))
    dropped = np.all(y == 0, axis=(2, 3))
    assert np.all(kept | dropped) and 0 < dropped.sum() < dropped.size
    np.testing.assert_allclose(y[kept], (x / 0.75)[kept], rtol=1e-6)
    np.testing.assert_allclose(_np(jg.jit(lambda x, k: layer(x, key=k))(x, key)), y, rtol=1e-6)
    with pytest.raises(ValueError, match="explicit PRNG key"):
        jg.jit(lambda x: layer(x))(x)
    np.testing.assert_array_equal(_np(layer.eval()(x)), x)
    with pytest.raises(ValueError, match="3D"):
        F.dropout2d(np.zeros(3, np.float32))
    grad = jg.grad(lambda x: F.dropout2d(x, 0.25, True, key).sum())(x)
    np.testing.assert_allclose(_np(grad), np.where(y != 0, 1 / 0.75, 0.0), rtol=1e-6)


def test_dropout2d_of_a_2d_input_warns_and_drops_elements():
    # torch (pytorch/examples mnist_rnn puts Dropout2d after an LSTM): a 2-D (N, C) input is
    # deprecated, warned about, and dropped per (sample, channel), i.e. per element
    x = np.ones((400, 64), np.float32)
    with pytest.warns(UserWarning, match="2-D input to dropout2d"):
        y = _np(nn.Dropout2d(0.5)(jg.tensor(x)))
    assert set(np.unique(y)) == {0.0, 2.0}
    assert not np.all(y == 0, axis=1).any() and 0.4 < np.mean(y == 0) < 0.6
    key = jg.random.key(0)
    with pytest.warns(UserWarning, match="2-D input"):
        eager = _np(F.dropout2d(x, 0.5, True, key))
    with pytest.warns(UserWarning, match="2-D input"):
        jitted = _np(jg.jit(lambda x, k: F.dropout2d(x, 0.5, True, k))(x, key))
    np.testing.assert_array_equal(eager, jitted)
    assert 0.4 < np.mean(eager == 0) < 0.6
