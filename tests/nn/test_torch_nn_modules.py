"""The torch.nn modules and functions added in issue 49 against NumPy references (no torch):
convolutions, pools, padding, interpolation, fold, activations, losses, containers, CTC; and
the jit, grad and vmap paths of a few; error messages."""
import itertools
import math

import numpy as np
import pytest

import jitgrad as jg
from jitgrad import nn
from jitgrad.nn import functional as F
from jitgrad.test_util import check_grads


def conv_nd_loop(x, w, stride, pads, dilation, groups):
    """Direct N-d cross-correlation: out[n, o, p] = sum over c, k of xpad[n, c, p*s + k*d] w."""
    nsp = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + list(pads))
    o, ci = w.shape[:2]
    kernel = w.shape[2:]
    out_sp = [(x.shape[2 + i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
              for i in range(nsp)]
    out = np.zeros((x.shape[0], o, *out_sp))
    per = o // groups
    for pos in itertools.product(*map(range, out_sp)):
        for k in itertools.product(*map(range, kernel)):
            idx = tuple(p * s + kk * d for p, s, kk, d in zip(pos, stride, k, dilation))
            patch = x[(slice(None), slice(None)) + idx]                       # (N, C)
            for g in range(groups):
                out[(slice(None), slice(g * per, (g + 1) * per)) + pos] += \
                    patch[:, g * ci:(g + 1) * ci] @ w[(slice(g * per, (g + 1) * per),
                                                       slice(None)) + k].T
    return out


def conv_transpose_loop(x, w, stride, padding, output_padding, dilation, groups):
    """Scatter form: each input value adds value * kernel at p*s + k*d - padding."""
    nsp = x.ndim - 2
    cin, cpg = w.shape[:2]
    kernel = w.shape[2:]
    size = [(x.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1)
            + output_padding[i] + 1 for i in range(nsp)]
    full = np.zeros((x.shape[0], cpg * groups) + tuple(s + 2 * p for s, p in zip(size, padding)))
    per_in = cin // groups
    for pos in itertools.product(*map(range, x.shape[2:])):
        for k in itertools.product(*map(range, kernel)):
            idx = tuple(p * s + kk * d for p, s, kk, d in zip(pos, stride, k, dilation))
            if any(i >= full.shape[2 + j] for j, i in enumerate(idx)):
                continue
            for g in range(groups):
                xin = x[(slice(None), slice(g * per_in, (g + 1) * per_in)) + pos]
                full[(slice(None), slice(g * cpg, (g + 1) * cpg)) + idx] += \
                    xin @ w[(slice(g * per_in, (g + 1) * per_in), slice(None)) + k]
    crop = tuple(slice(p, p + s) for p, s in zip(padding, size))
    return full[(slice(None), slice(None)) + crop]


def test_conv1d_and_conv3d_match_loops(rng):
    x, w = rng.standard_normal((2, 4, 9)), rng.standard_normal((6, 2, 3))
    np.testing.assert_allclose(np.asarray(F.conv1d(x, w, None, 2, 1, 2, 2)),
                               conv_nd_loop(x, w, (2,), [(1, 1)], (2,), 2), atol=1e-12)
    x, w = rng.standard_normal((1, 2, 4, 5, 4)), rng.standard_normal((3, 2, 2, 3, 2))
    b = rng.standard_normal(3)
    want = conv_nd_loop(x, w, (1, 2, 1), [(1, 1), (0, 0), (1, 1)], (1, 1, 2), 1)
    np.testing.assert_allclose(np.asarray(F.conv3d(x, w, b, (1, 2, 1), (1, 0, 1), (1, 1, 2))),
                               want + b[:, None, None, None], atol=1e-12)


@pytest.mark.parametrize("nsp,stride,padding,out_pad,dilation,groups", [
    (1, (2,), (1,), (1,), (1,), 2), (2, (2, 1), (1, 0), (1, 0), (1, 2), 1),
    (3, (2, 2, 1), (0, 1, 0), (0, 1, 0), (1, 1, 1), 1)])
def test_conv_transpose_matches_scatter_loop(rng, nsp, stride, padding, out_pad, dilation,
                                             groups):
    x = rng.standard_normal((2, 4) + (3,) * nsp)
    w = rng.standard_normal((4, 3) + (2,) * nsp)
    fn = getattr(F, f"conv_transpose{nsp}d")
    got = fn(x, w, None, stride, padding, out_pad, groups, dilation)
    np.testing.assert_allclose(np.asarray(got), conv_transpose_loop(
        x, w, stride, padding, out_pad, dilation, groups), atol=1e-12)


def test_conv_transpose_is_the_input_gradient_of_conv(rng):
    x, w = rng.standard_normal((1, 3, 7)), rng.standard_normal((4, 3, 3))
    g = rng.standard_normal((1, 4, 4))
    _, pull = jg.vjp(lambda v: F.conv1d(v, w, stride=2, padding=1), x)
    np.testing.assert_allclose(np.asarray(pull(g)[0]),
                               np.asarray(F.conv_transpose1d(g, w, stride=2, padding=1)),
                               atol=1e-12)


def test_conv_modules_padding_modes_and_shapes(rng):
    conv = nn.Conv1d(2, 3, 3, padding=2, padding_mode="circular")
    assert tuple(conv.weight.shape) == (3, 2, 3) and tuple(conv.bias.shape) == (3,)
    x = rng.standard_normal((1, 2, 5)).astype(np.float32)
    xp = np.concatenate([x[..., -2:], x, x[..., :2]], -1)
    want = conv_nd_loop(xp.astype(np.float64), np.asarray(conv.weight, np.float64), (1,),
                        [(0, 0)], (1,), 1) + np.asarray(conv.bias)[:, None]
    np.testing.assert_allclose(np.asarray(conv(x)), want, rtol=1e-5, atol=1e-6)
    t = nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2)
    assert tuple(t.weight.shape) == (4, 3, 3, 3)
    assert tuple(t(np.zeros((1, 4, 5, 5), np.float32), output_size=(12, 12)).shape) == \
        (1, 6, 12, 12)
    with pytest.raises(ValueError, match="padding_mode must be one of zeros, reflect"):
        nn.Conv3d(1, 1, 2, padding_mode="wrap")
    with pytest.raises(ValueError, match=r"output size of \(20, 20\).*can only be in \[11, 12\]"):
        t(np.zeros((1, 4, 5, 5), np.float32), output_size=(20, 20))


def pool_loop(x, kernel, stride, padding, dilation, ceil_mode, reduce, fill):
    """Windows at o*s - p + k*d, kept while they start inside input + left padding."""
    nsp = len(kernel)
    size = x.shape[2:]
    out = []
    for n, k, s, p, d in zip(size, kernel, stride, padding, dilation):
        span = n + 2 * p - d * (k - 1) - 1
        o = (span + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (o - 1) * s >= n + p:
            o -= 1
        out.append(o)
    res = np.empty(x.shape[:2] + tuple(out))
    for pos in itertools.product(*map(range, out)):
        vals = []
        for k in itertools.product(*map(range, kernel)):
            idx = [o * s - p + kk * d for o, s, p, kk, d in zip(pos, stride, padding, k,
                                                                dilation)]
            inside = all(0 <= i < n for i, n in zip(idx, size))
            vals.append(x[(slice(None), slice(None)) + tuple(idx)] if inside
                        else np.full(x.shape[:2], fill))
        res[(slice(None), slice(None)) + pos] = reduce(np.stack(vals), nsp)
    return res


@pytest.mark.parametrize("nsp", [1, 2, 3])
def test_max_pool_with_dilation_and_ceil_mode(rng, nsp):
    x = rng.standard_normal((2, 2) + (6,) * nsp)
    fn = getattr(F, f"max_pool{nsp}d")
    want = pool_loop(x, (3,) * nsp, (2,) * nsp, (1,) * nsp, (2,) * nsp, True,
                     lambda v, _: v.max(0), -np.inf)
    np.testing.assert_allclose(np.asarray(fn(x, 3, 2, 1, 2, ceil_mode=True)), want)


@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool_ceil_mode_divides_as_pytorch(rng, count_include_pad):
    x = rng.standard_normal((1, 2, 7))
    got = np.asarray(F.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=count_include_pad))
    # torch: windows clipped to the padded extent [-1, 8); with count_include_pad=False to [0, 7)
    starts = np.arange(got.shape[-1]) * 2 - 1
    lo, hi = (starts, np.minimum(starts + 3, 8)) if count_include_pad else \
        (np.maximum(starts, 0), np.minimum(starts + 3, 7))
    want = np.stack([x[..., max(s, 0):min(s + 3, 7)].sum(-1) for s in starts], -1) / (hi - lo)
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(np.asarray(F.avg_pool3d(np.ones((1, 1, 4, 4, 4)), 2,
                                                       divisor_override=3)), np.full(
        (1, 1, 2, 2, 2), 8 / 3))


def test_max_pool_indices_and_unpool_round_trip(rng):
    x = rng.standard_normal((2, 3, 4, 6))
    v, i = F.max_pool2d(x, 2, return_indices=True)
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, np.asarray(i).reshape(2, 3, -1), 2),
                                  np.asarray(v).reshape(2, 3, -1))
    back = np.asarray(nn.MaxUnpool2d(2)(v, i))
    assert back.shape == x.shape and np.count_nonzero(back) == v.size
    np.testing.assert_allclose(F.max_pool2d(back, 2), v)


def test_adaptive_max_pool_and_lp_pool(rng):
    x = rng.standard_normal((2, 3, 10))
    bins = [(i * 10 // 4, -(-(i + 1) * 10 // 4)) for i in range(4)]
    want = np.stack([x[..., lo:hi].max(-1) for lo, hi in bins], -1)
    np.testing.assert_allclose(np.asarray(nn.AdaptiveMaxPool1d(4)(x)), want)
    v, idx = F.adaptive_max_pool1d(x, 4, return_indices=True)
    np.testing.assert_array_equal(np.take_along_axis(x, np.asarray(idx), 2), want)
    a = np.abs(x)
    np.testing.assert_allclose(np.asarray(F.lp_pool1d(a, 2, 2)),
                               np.sqrt((a[..., 0::2] ** 2 + a[..., 1::2] ** 2)), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(nn.AdaptiveAvgPool3d(1)(rng.standard_normal(
        (1, 2, 3, 4, 5)) * 0 + 2.0)), np.full((1, 2, 1, 1, 1), 2.0))


@pytest.mark.parametrize("mode,numpy_mode", [("constant", "constant"), ("reflect", "reflect"),
                                             ("replicate", "edge"), ("circular", "wrap")])
def test_pad_modes_match_numpy(rng, mode, numpy_mode):
    x = rng.standard_normal((2, 3, 4, 5))
    want = np.pad(x, ((0, 0), (0, 0), (3, 0), (1, 2)), mode=numpy_mode)
    np.testing.assert_allclose(np.asarray(F.pad(x, (1, 2, 3, 0), mode)), want)
    layer = {"constant": nn.ZeroPad2d, "reflect": nn.ReflectionPad2d,
             "replicate": nn.ReplicationPad2d, "circular": nn.CircularPad2d}[mode]
    np.testing.assert_allclose(np.asarray(layer((1, 2, 3, 0))(x)), want)


def test_pad_crops_fills_and_checks():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(np.asarray(F.pad(x, (-1, 2), value=7.0)),
                               np.pad(x[:, 1:], ((0, 0), (0, 2)), constant_values=7.0))
    np.testing.assert_allclose(np.asarray(nn.ConstantPad1d(1, -1.0)(x)),
                               np.pad(x, ((0, 0), (1, 1)), constant_values=-1.0))
    with pytest.raises(ValueError, match="reflect padding of 4 on dimension 1 needs at most 3"):
        F.pad(x, (4, 0), "reflect")
    with pytest.raises(ValueError, match="expected an even number of pad values"):
        F.pad(x, (1, 2, 3))


def test_interpolate_matches_numpy_references(rng):
    x = rng.standard_normal((1, 2, 5))
    lin = np.asarray(F.interpolate(x, size=9, mode="linear", align_corners=True))
    grid = np.linspace(0, 4, 9)
    np.testing.assert_allclose(lin, np.stack([[np.interp(grid, np.arange(5), r) for r in b]
                                              for b in x]), atol=1e-12)
    near = np.asarray(F.interpolate(x, scale_factor=2))
    np.testing.assert_allclose(near, np.repeat(x, 2, axis=-1))
    img = rng.standard_normal((1, 1, 4, 6))
    area = np.asarray(F.interpolate(img, size=(2, 3), mode="area"))
    np.testing.assert_allclose(area, img.reshape(1, 1, 2, 2, 3, 2).mean((3, 5)), atol=1e-12)
    # half-pixel bilinear at scale 2: output 1 sits a quarter pixel right of input 0
    half = np.asarray(nn.Upsample(scale_factor=2, mode="bilinear")(img))
    np.testing.assert_allclose(half[0, 0, 0, 1], 0.75 * img[0, 0, 0, 0] + 0.25 * img[0, 0, 0, 1])
    cubic = np.asarray(F.interpolate(img, size=(4, 6), mode="bicubic"))
    np.testing.assert_allclose(cubic, img, atol=1e-12)          # same size: the identity
    with pytest.raises(ValueError, match="mode 'bilinear' needs a 4-D input"):
        F.interpolate(x, size=3, mode="bilinear")
    with pytest.raises(ValueError, match="exactly one of size or scale_factor"):
        F.interpolate(x)


def test_fold_unfold_pixel_and_channel_shuffle(rng):
    x = rng.standard_normal((2, 3, 4, 6))
    cols = np.asarray(F.unfold(x, (2, 3), stride=(2, 3)))
    want = x.reshape(2, 3, 2, 2, 2, 3).transpose(0, 1, 3, 5, 2, 4).reshape(2, 18, 4)
    np.testing.assert_allclose(cols, want)
    np.testing.assert_allclose(np.asarray(nn.Fold((4, 6), (2, 3), stride=(2, 3))(cols)), x)
    ones = np.asarray(F.fold(F.unfold(np.ones((1, 1, 4, 4)), 3, padding=1), (4, 4), 3, padding=1))
    np.testing.assert_allclose(ones[0, 0], [[4, 6, 6, 4], [6, 9, 9, 6], [6, 9, 9, 6],
                                            [4, 6, 6, 4]])       # how many windows cover each
    y = rng.standard_normal((2, 8, 3, 2))
    shuffled = np.asarray(nn.PixelShuffle(2)(y))
    np.testing.assert_allclose(shuffled[:, :, 1::2, 0::2], y[:, 2::4])
    np.testing.assert_allclose(np.asarray(F.pixel_unshuffle(shuffled, 2)), y)
    np.testing.assert_allclose(np.asarray(nn.ChannelShuffle(2)(np.arange(6.0).reshape(1, 6, 1))
                                          )[0, :, 0], [0, 3, 1, 4, 2, 5])


ACTIVATIONS = [
    (nn.Hardtanh(-0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.Hardsigmoid(), lambda x: np.clip(x + 3, 0, 6) / 6),
    (nn.Hardswish(), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (nn.SELU(), lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772
                                                        * np.expm1(x))),
    (nn.CELU(0.5), lambda x: np.maximum(x, 0) + np.minimum(0, 0.5 * np.expm1(x / 0.5))),
    (nn.ELU(0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x))),
    (nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    (nn.SiLU(), lambda x: x / (1 + np.exp(-x))),
    (nn.Mish(), lambda x: x * np.tanh(np.logaddexp(0, x))),
    (nn.Softplus(2.0), lambda x: np.logaddexp(0, 2 * x) / 2),
    (nn.Softsign(), lambda x: x / (1 + np.abs(x))),
    (nn.LogSigmoid(), lambda x: -np.logaddexp(0, -x)),
    (nn.Tanhshrink(), lambda x: x - np.tanh(x)),
    (nn.Softshrink(0.5), lambda x: np.where(np.abs(x) > 0.5, x - 0.5 * np.sign(x), 0)),
    (nn.Hardshrink(0.5), lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    (nn.Threshold(0.1, 20.0), lambda x: np.where(x > 0.1, x, 20.0)),
    (nn.GLU(-1), lambda x: x[..., :2] / (1 + np.exp(-x[..., 2:]))),
    (nn.Softmin(1), lambda x: np.exp(-x) / np.exp(-x).sum(1, keepdims=True)),
    (nn.RReLU(0.1, 0.3).eval(), lambda x: np.where(x >= 0, x, 0.2 * x)),
    (nn.PReLU(), lambda x: np.where(x > 0, x, 0.25 * x)),
]


@pytest.mark.parametrize("layer,ref", ACTIVATIONS, ids=lambda v: type(v).__name__
                         if isinstance(v, nn.Module) else "")
def test_activation_modules_match_numpy(rng, layer, ref):
    x = 3 * rng.standard_normal((3, 4))
    np.testing.assert_allclose(np.asarray(layer(x)), ref(x), rtol=1e-6, atol=1e-7)


def test_activation_gradients_and_jit(rng):
    x = rng.standard_normal((3, 4))
    for fn in (F.mish, F.hardswish, F.selu, lambda v: F.glu(v, 1), F.softsign):
        check_grads(fn, (x,), order=1)
    np.testing.assert_allclose(np.asarray(jg.jit(F.hardtanh)(x)), np.clip(x, -1, 1))
    assert np.asarray(jg.grad(lambda v: F.hardtanh(v).sum())(np.array([-1.0, 0.0, 1.0]))) \
        .tolist() == [0.0, 1.0, 0.0]            # PyTorch's: zero at the kinks


def bce(p, y):
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


def test_losses_match_numpy(rng):
    x, y = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    p, q = rng.uniform(0.1, 0.9, (4, 5)), rng.uniform(0.1, 0.9, (4, 5))
    s = np.sign(rng.standard_normal(4))
    d = x - y
    cases = [
        (nn.BCELoss()(p, q), bce(p, q).mean()),
        (F.binary_cross_entropy(p, q, np.arange(5.0), reduction="sum"),
         (bce(p, q) * np.arange(5.0)).sum()),
        (nn.BCEWithLogitsLoss(weight=np.full(5, 2.0), pos_weight=np.full(5, 3.0))(x, q),
         (2 * (3 * q * np.logaddexp(0, -x) + (1 - q) * np.logaddexp(0, x))).mean()),
        (nn.KLDivLoss(reduction="batchmean")(np.log(p), q), (q * (np.log(q) - np.log(p))).sum()
         / 4),
        (nn.HuberLoss(delta=0.5)(x, y), np.where(np.abs(d) < 0.5, 0.5 * d ** 2,
                                                 0.5 * (np.abs(d) - 0.25)).mean()),
        (nn.SmoothL1Loss(beta=0.5)(x, y), np.where(np.abs(d) < 0.5, d ** 2,
                                                   np.abs(d) - 0.25).mean()),
        (F.mse_loss(x, y, weight=q), (q * d ** 2).sum() / q.sum()),
        (nn.PoissonNLLLoss()(x, q), (np.exp(x) - q * x).mean()),
        (nn.GaussianNLLLoss()(x, y, q), (0.5 * (np.log(q) + d ** 2 / q)).mean()),
        (nn.MarginRankingLoss(0.1)(x[:, 0], y[:, 0], s),
         np.maximum(0, -s * (x[:, 0] - y[:, 0]) + 0.1).mean()),
        (nn.HingeEmbeddingLoss(1.0)(x[:, 0], s), np.where(s == 1, x[:, 0],
                                                          np.maximum(0, 1 - x[:, 0])).mean()),
        (nn.SoftMarginLoss()(x[:, 0], s), np.logaddexp(0, -s * x[:, 0]).mean()),
        (nn.MultiLabelSoftMarginLoss()(x, (q > 0.5) * 1.0),
         bce(1 / (1 + np.exp(-x)), (q > 0.5) * 1.0).mean()),
        (nn.TripletMarginLoss(1.0)(x, y, p), np.maximum(
            np.linalg.norm(x - y + 1e-6, axis=1) - np.linalg.norm(x - p + 1e-6, axis=1) + 1.0,
            0).mean()),
    ]
    cos = (x * y).sum(1) / np.sqrt(((x * x).sum(1) + 1e-12) * ((y * y).sum(1) + 1e-12))
    cases.append((nn.CosineEmbeddingLoss(0.2)(x, y, s),
                  np.where(s == 1, 1 - cos, np.maximum(0, cos - 0.2)).mean()))
    for got, want in cases:
        np.testing.assert_allclose(float(got), want, rtol=1e-10)


def test_margin_losses_match_loops(rng):
    x, t = rng.standard_normal((3, 4)), np.array([1, 3, 0])
    want = np.mean([sum(max(0, 1 - x[i, t[i]] + x[i, j]) for j in range(4) if j != t[i]) / 4
                    for i in range(3)])
    assert float(nn.MultiMarginLoss()(x, t)) == pytest.approx(want, rel=1e-12)
    targets = np.array([[3, 0, -1, 1], [1, 2, 0, 3], [-1, 0, 0, 0]])
    rows = []
    for i in range(3):
        ys = list(targets[i][:list(targets[i]).index(-1)] if -1 in targets[i] else targets[i])
        rows.append(sum(max(0, 1 - (x[i, j] - x[i, k])) for j in ys for k in range(4)
                        if k not in ys) / 4)
    np.testing.assert_allclose(np.asarray(F.multilabel_margin_loss(x, targets,
                                                                   reduction="none")), rows)


def test_loss_modules_take_torch_positional_order(rng):
    x, y = rng.standard_normal(5), rng.standard_normal(5)
    assert float(nn.MSELoss(False)(x, y)) == pytest.approx(((x - y) ** 2).sum())   # size_average
    assert np.asarray(nn.L1Loss(None, None, "none")(x, y)).shape == (5,)
    with pytest.raises(TypeError, match="pass reduction='none' by keyword"):
        F.binary_cross_entropy_with_logits(x, y, "none")
    with pytest.raises(ValueError, match="reduction must be one of mean, sum, none"):
        F.huber_loss(x, y, reduction="avg")


def ctc_brute_force(log_probs, target, blank=0):
    """-log of the summed probability of every path that collapses to `target`."""
    t_len, c = log_probs.shape
    total = 0.0
    for path in itertools.product(range(c), repeat=t_len):
        collapsed = [k for i, k in enumerate(path) if k != blank and (i == 0
                                                                      or k != path[i - 1])]
        if collapsed == list(target):
            total += math.exp(sum(log_probs[i, k] for i, k in enumerate(path)))
    return -math.log(total) if total else math.inf


def test_ctc_loss_sums_every_alignment(rng):
    logits = rng.standard_normal((5, 2, 3))
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    targets, lengths, tlen = np.array([[1, 1], [2, 0]]), np.array([5, 4]), np.array([2, 1])
    got = np.asarray(F.ctc_loss(lp, targets, lengths, tlen, reduction="none"))
    want = [ctc_brute_force(lp[:5, 0], [1, 1]), ctc_brute_force(lp[:4, 1], [2])]
    np.testing.assert_allclose(got, want, rtol=1e-10)
    assert float(nn.CTCLoss()(lp, targets, lengths, tlen)) == pytest.approx(
        (want[0] / 2 + want[1]) / 2, rel=1e-10)
    short = F.ctc_loss(lp, np.array([[1, 1], [2, 2]]), np.array([2, 4]), np.array([2, 1]),
                       reduction="none", zero_infinity=True)
    assert float(np.asarray(short)[0]) == 0.0          # "1 1" cannot fit in 2 steps


def test_grid_sample_identity_and_shift(rng):
    x = rng.standard_normal((1, 2, 3, 4))
    theta = np.array([[[1.0, 0, 0], [0, 1.0, 0]]])
    grid = F.affine_grid(theta, (1, 2, 3, 4), align_corners=False)
    np.testing.assert_allclose(np.asarray(F.grid_sample(x, grid, align_corners=False)), x,
                               atol=1e-12)
    shift = F.affine_grid(np.array([[[1.0, 0, 0.5], [0, 1.0, 0]]]), (1, 2, 3, 4), True)
    got = np.asarray(F.grid_sample(x, shift, padding_mode="border", align_corners=True))
    # x moves by 0.5 * (W - 1) / 2 = 0.75 pixel: a 1/4 - 3/4 blend, clamped at the border
    np.testing.assert_allclose(got[..., 0], 0.25 * x[..., 0] + 0.75 * x[..., 1], atol=1e-12)
    np.testing.assert_allclose(got[..., 3], x[..., 3], atol=1e-12)


def test_containers_register_like_pytorch():
    d = nn.ModuleDict({"a": nn.Linear(2, 3), "b": nn.ReLU()})
    d["c"] = nn.Linear(3, 1)
    assert list(d.keys()) == ["a", "b", "c"] and "b" in d and len(d) == 3
    assert list(d.state_dict()) == ["a.weight", "a.bias", "c.weight", "c.bias"]
    del d["a"]
    assert list(dict(d.named_parameters())) == ["c.weight", "c.bias"]
    pl = nn.ParameterList([np.zeros(2), jg.ones(3)])
    pl.append(nn.Parameter(np.ones((2, 2))))
    assert [tuple(p.shape) for p in pl] == [(2,), (3,), (2, 2)]
    assert list(pl.state_dict()) == ["0", "1", "2"] and all(p.requires_grad for p in pl)
    pd = nn.ParameterDict({"w": np.ones(2)})
    pd.update([("b", np.zeros(1))])
    assert list(pd.state_dict()) == ["w", "b"] and pd.pop("w").shape == (2,)
    with pytest.raises(TypeError, match="expected a Parameter or a tensor, got str"):
        pl.append("x")

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = nn.ModuleDict({"x": nn.Linear(2, 1)})
            self.scales = nn.ParameterList([np.full(1, 2.0, np.float32)])

        def forward(self, v):
            return self.heads["x"](v) * self.scales[0]

    m = Model()
    grads = jg.grad(lambda model: model(np.ones((1, 2), np.float32)).sum())(m)
    assert float(np.asarray(grads.scales[0])[0]) == pytest.approx(float(np.asarray(
        m.heads["x"](np.ones((1, 2), np.float32)))[0, 0]), rel=1e-6)


def test_embedding_options_and_bags(rng):
    table = rng.standard_normal((6, 3))
    emb = nn.Embedding.from_pretrained(table, padding_idx=1)
    assert not emb.weight.requires_grad and emb.padding_idx == 1
    norms = np.linalg.norm(np.asarray(F.embedding(np.array([0, 2]), table, max_norm=0.5)), axis=1)
    np.testing.assert_allclose(norms, np.minimum(np.linalg.norm(table[[0, 2]], axis=1), 0.5),
                               rtol=1e-6)
    idx, offsets = np.array([0, 2, 2, 5, 1]), np.array([0, 2, 2])
    bag = nn.EmbeddingBag.from_pretrained(table, mode="sum")
    np.testing.assert_allclose(np.asarray(bag(idx, offsets)),
                               [table[0] + table[2], np.zeros(3), table[2] + table[5] + table[1]])
    mean = F.embedding_bag(idx.reshape(1, 5), table, mode="mean", padding_idx=2)
    np.testing.assert_allclose(np.asarray(mean), [table[[0, 5, 1]].mean(0)])
    mx = F.embedding_bag(idx, table, offsets, mode="max")
    np.testing.assert_allclose(np.asarray(mx)[2], table[[2, 5, 1]].max(0))


def test_norms_distances_and_bilinear(rng):
    x = rng.standard_normal((2, 3, 4))
    rms = nn.RMSNorm(4, eps=1e-6)
    np.testing.assert_allclose(np.asarray(rms(x)), x / np.sqrt((x ** 2).mean(-1, keepdims=True)
                                                               + 1e-6), rtol=1e-6)
    lrn = np.asarray(nn.LocalResponseNorm(2, alpha=1.0, beta=1.0, k=1.0)(x))
    sq = np.pad(x ** 2, ((0, 0), (1, 0), (0, 0)))
    np.testing.assert_allclose(lrn, x / (1 + (sq[:, :-1] + sq[:, 1:]) / 2))
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    np.testing.assert_allclose(np.asarray(nn.PairwiseDistance(1.0)(a, b)),
                               np.abs(a - b + 1e-6).sum(1))
    np.testing.assert_allclose(np.asarray(nn.CosineSimilarity()(a, b)),
                               (a * b).sum(1) / np.linalg.norm(a, axis=1)
                               / np.linalg.norm(b, axis=1))
    pd = np.asarray(F.pdist(a))
    i, j = np.triu_indices(5, 1)
    np.testing.assert_allclose(pd, np.linalg.norm(a[i] - a[j], axis=1))
    w = rng.standard_normal((2, 3, 3))
    np.testing.assert_allclose(np.asarray(F.bilinear(a, b, w)),
                               np.einsum("ni,oij,nj->no", a, w, b))
    assert tuple(nn.Unflatten(1, (2, 2))(np.zeros((3, 4))).shape) == (3, 2, 2)


def test_dropout_variants(rng):
    x = np.ones((4, 6, 5), np.float32)
    out = np.asarray(nn.Dropout1d(0.5)(x, key=jg.random.key(0)))
    per_channel = out.reshape(4, 6, 5)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()       # whole channels
    a = np.asarray(F.alpha_dropout(x, 0.2, True, key=jg.random.key(1)))
    assert len(np.unique(a)) == 2                                    # kept and dropped values
    np.testing.assert_array_equal(np.asarray(nn.AlphaDropout(0.3).eval()(x)), x)
    with pytest.raises(ValueError, match="expected a 4-D .*or 5-D input"):
        F.dropout3d(x, 0.5)


def test_jit_grad_and_vmap_paths(rng):
    x = rng.standard_normal((2, 2, 6))
    w = rng.standard_normal((2, 3, 3))
    check_grads(lambda v, k: F.conv_transpose1d(v, k, stride=2, padding=1), (x, w), order=1)
    check_grads(lambda v: F.max_pool1d(v, 3, 2, 1, ceil_mode=True), (x,), order=1)
    check_grads(lambda v: F.interpolate(v, size=9, mode="linear"), (x,), order=1)
    check_grads(lambda v: F.pad(v, (2, 1), "reflect"), (x,), order=1)
    f = jg.jit(lambda v: F.avg_pool1d(v, 3, 2, 1, ceil_mode=True, count_include_pad=False))
    np.testing.assert_allclose(np.asarray(f(x)), np.asarray(F.avg_pool1d(
        x, 3, 2, 1, ceil_mode=True, count_include_pad=False)), rtol=1e-12)
    batched = jg.vmap(lambda v: F.pad(v, (1, 1), "circular"))(x)
    np.testing.assert_allclose(np.asarray(batched), np.pad(x, ((0, 0), (0, 0), (1, 1)), "wrap"))
    dist = jg.vmap(lambda u, v: F.pairwise_distance(u, v))(x, x + 1.0)
    np.testing.assert_allclose(np.asarray(dist), np.full((2, 2), np.sqrt(6) * (1 - 1e-6)),
                               rtol=1e-6)
    layer = nn.Conv3d(2, 2, 2, padding=1, padding_mode="replicate")
    v = rng.standard_normal((1, 2, 3, 3, 3)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(jg.jit(lambda m, u: m(u))(layer, v)),
                               np.asarray(layer(v)), rtol=1e-5, atol=1e-6)


def test_adaptive_log_softmax_is_a_distribution(rng):
    asm = nn.AdaptiveLogSoftmaxWithLoss(6, 9, [2, 5], div_value=2.0)
    assert [tuple(p.shape) for _, p in asm.named_parameters()] == [(4, 6), (3, 6), (3, 3),
                                                                   (1, 6), (4, 1)]
    x = rng.standard_normal((4, 6)).astype(np.float32)
    full = np.asarray(asm.log_prob(x))
    np.testing.assert_allclose(np.exp(full).sum(1), np.ones(4), rtol=1e-5)
    y = np.array([0, 8, 3, 5])
    out = asm(x, y)
    np.testing.assert_allclose(np.asarray(out.output), full[np.arange(4), y], rtol=1e-6)
    assert float(out.loss) == pytest.approx(-full[np.arange(4), y].mean(), rel=1e-5)
    with pytest.raises(IndexError, match=r"target values should be in \[0, 8\]"):
        asm(x, np.array([0, 9, 1, 1]))
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique"):
        nn.AdaptiveLogSoftmaxWithLoss(6, 9, [5, 2])
