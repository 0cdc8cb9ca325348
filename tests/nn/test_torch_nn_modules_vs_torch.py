"""The torch.nn modules added in issue 49 against the installed torch (skipped without it): each
jitgrad module has torch's state_dict keys and shapes, loads torch's state_dict, and gives
torch's outputs and input gradients in float64; functional forms likewise."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import jitgrad as jg  # noqa: E402
from jitgrad import nn  # noqa: E402
from jitgrad.nn import functional as F  # noqa: E402

TF = torch.nn.functional
RNG = np.random.default_rng(0)


def normal(*shape):
    return RNG.standard_normal(shape)


def labels(high, *shape):
    return RNG.integers(0, high, shape)


def prob(*shape):
    return RNG.uniform(0.05, 0.95, shape)


def signs(*shape):
    return RNG.choice([-1.0, 1.0], shape).view(Const)


class Const(np.ndarray):
    """A float input that gets no gradient (a loss's target)."""


def const(a):
    return np.asarray(a).view(Const)


# (name, constructor args, constructor kwargs, inputs): inputs that are float arrays get
# gradients compared; integer ones are labels / indices
CASES = [
    ("ELU", (0.7,), {}, [normal(3, 4)]),
    ("CELU", (), {"alpha": 0.5}, [normal(3, 4)]),
    ("SELU", (), {}, [normal(3, 4)]),
    ("SiLU", (), {}, [normal(3, 4)]),
    ("Mish", (), {}, [normal(3, 4)]),
    ("Hardswish", (), {}, [4 * normal(3, 4)]),
    ("Hardsigmoid", (), {}, [4 * normal(3, 4)]),
    ("Hardtanh", (-0.5, 0.7), {}, [normal(3, 4)]),
    ("ReLU6", (), {}, [5 * normal(3, 4)]),
    ("LeakyReLU", (0.2,), {}, [normal(3, 4)]),
    ("PReLU", (3,), {}, [normal(2, 3, 4)]),
    ("RReLU", (), {}, [normal(3, 4)]),
    ("Softplus", (2.0,), {}, [normal(3, 4)]),
    ("Softsign", (), {}, [normal(3, 4)]),
    ("Softmin", (1,), {}, [normal(3, 4)]),
    ("Softmax", (), {}, [normal(3, 4)]),
    ("Softmax2d", (), {}, [normal(2, 3, 2, 2)]),
    ("LogSigmoid", (), {}, [normal(3, 4)]),
    ("Tanhshrink", (), {}, [normal(3, 4)]),
    ("Softshrink", (0.3,), {}, [normal(3, 4)]),
    ("Hardshrink", (0.3,), {}, [normal(3, 4)]),
    ("Threshold", (0.1, -2.0), {}, [normal(3, 4)]),
    ("GLU", (1,), {}, [normal(3, 4)]),
    ("Identity", (3, 4), {"x": 1}, [normal(3, 4)]),
    ("Unflatten", (1, (2, 6)), {}, [normal(3, 12)]),
    ("Bilinear", (3, 4, 5), {}, [normal(2, 3), normal(2, 4)]),
    ("Conv1d", (4, 6, 3), {"stride": 2, "padding": 1, "groups": 2}, [normal(2, 4, 9)]),
    ("Conv1d", (4, 6, 3), {"padding": 2, "padding_mode": "reflect"}, [normal(2, 4, 9)]),
    ("Conv1d", (4, 6, 4), {"padding": "same", "padding_mode": "circular"}, [normal(2, 4, 9)]),
    ("Conv3d", (2, 4, (2, 3, 2)), {"padding": 1, "dilation": (1, 1, 2)}, [normal(2, 2, 4, 5, 6)]),
    ("Conv3d", (2, 4, 3), {"padding": 1, "padding_mode": "replicate", "bias": False},
     [normal(1, 2, 4, 5, 4)]),
    ("ConvTranspose1d", (4, 6, 3), {"stride": 2, "padding": 1, "output_padding": 1,
                                    "groups": 2}, [normal(2, 4, 7)]),
    ("ConvTranspose2d", (4, 3, (3, 2)), {"stride": (2, 1), "dilation": (1, 2)},
     [normal(2, 4, 5, 4)]),
    ("ConvTranspose3d", (2, 3, 2), {"stride": 2, "padding": 1}, [normal(1, 2, 3, 4, 3)]),
    ("MaxPool1d", (3, 2, 1), {"ceil_mode": True}, [normal(2, 3, 10)]),
    ("MaxPool3d", (2,), {"stride": 1, "dilation": 2}, [normal(1, 2, 5, 5, 5)]),
    ("AvgPool1d", (3, 2, 1), {"ceil_mode": True, "count_include_pad": False},
     [normal(2, 3, 10)]),
    ("AvgPool3d", (2,), {"stride": 2, "ceil_mode": True}, [normal(1, 2, 5, 5, 5)]),
    ("LPPool1d", (2, 3), {"stride": 2}, [normal(2, 3, 10)]),
    ("LPPool2d", (2, 2), {}, [normal(2, 3, 6, 6)]),
    ("LPPool3d", (1.5, 2), {}, [prob(1, 2, 4, 4, 4)]),
    ("AdaptiveAvgPool1d", (4,), {}, [normal(2, 3, 10)]),
    ("AdaptiveAvgPool3d", ((2, 3, None),), {}, [normal(1, 2, 5, 7, 3)]),
    ("AdaptiveMaxPool1d", (4,), {}, [normal(2, 3, 10)]),
    ("AdaptiveMaxPool2d", ((3, 4),), {}, [normal(2, 3, 7, 9)]),
    ("AdaptiveMaxPool3d", (2,), {}, [normal(1, 2, 5, 4, 3)]),
    ("ZeroPad2d", ((1, 2, 0, 1),), {}, [normal(1, 2, 3, 4)]),
    ("ConstantPad1d", (2, 3.5), {}, [normal(2, 3, 4)]),
    ("ConstantPad3d", ((1, 0, 0, 1, 2, 0), -1.0), {}, [normal(1, 2, 2, 3, 2)]),
    ("ReflectionPad1d", ((2, 1),), {}, [normal(2, 3, 4)]),
    ("ReflectionPad2d", (1,), {}, [normal(1, 2, 3, 4)]),
    ("ReflectionPad3d", (1,), {}, [normal(1, 2, 3, 3, 3)]),
    ("ReplicationPad1d", ((3, 1),), {}, [normal(2, 3, 4)]),
    ("ReplicationPad2d", ((1, 2, 3, 0),), {}, [normal(1, 2, 3, 4)]),
    ("ReplicationPad3d", (1,), {}, [normal(1, 2, 2, 3, 2)]),
    ("CircularPad1d", (2,), {}, [normal(2, 3, 4)]),
    ("CircularPad2d", ((1, 0, 2, 1),), {}, [normal(1, 2, 3, 4)]),
    ("CircularPad3d", (1,), {}, [normal(1, 2, 2, 3, 2)]),
    ("Upsample", (), {"scale_factor": 2, "mode": "nearest"}, [normal(1, 2, 3, 4)]),
    ("Upsample", (), {"size": 7, "mode": "linear"}, [normal(1, 2, 4)]),
    ("Upsample", (), {"scale_factor": 1.7, "mode": "bilinear", "align_corners": True},
     [normal(1, 2, 3, 4)]),
    ("Upsample", (), {"size": (5, 7), "mode": "bicubic"}, [normal(1, 2, 3, 4)]),
    ("Upsample", (), {"scale_factor": (2, 1, 1.5), "mode": "trilinear"},
     [normal(1, 1, 2, 3, 2)]),
    ("Upsample", (), {"size": (2, 3), "mode": "area"}, [normal(1, 2, 5, 7)]),
    ("Upsample", (), {"size": 7, "mode": "nearest-exact"}, [normal(1, 2, 4)]),
    ("UpsamplingNearest2d", (), {"scale_factor": 3}, [normal(1, 2, 2, 3)]),
    ("UpsamplingBilinear2d", (), {"size": (5, 4)}, [normal(1, 2, 2, 3)]),
    ("PixelShuffle", (2,), {}, [normal(2, 8, 3, 2)]),
    ("PixelUnshuffle", (2,), {}, [normal(2, 2, 4, 6)]),
    ("ChannelShuffle", (3,), {}, [normal(2, 6, 2, 2)]),
    ("Fold", ((5, 6), (2, 3)), {"stride": (1, 2), "padding": 1}, [normal(2, 12, 18)]),
    ("Unfold", ((2, 3),), {"dilation": (2, 1), "padding": 1, "stride": 2},
     [normal(2, 3, 6, 7)]),
    ("CosineSimilarity", (1,), {}, [normal(3, 5), normal(3, 5)]),
    ("PairwiseDistance", (3.0,), {"keepdim": True}, [normal(3, 5), normal(3, 5)]),
    ("RMSNorm", ((3, 4),), {}, [normal(2, 3, 4)]),
    ("RMSNorm", (4,), {"eps": 1e-3, "elementwise_affine": False}, [normal(2, 3, 4)]),
    ("LocalResponseNorm", (3,), {"alpha": 0.1, "k": 2.0}, [normal(2, 5, 3)]),
    ("LocalResponseNorm", (2,), {}, [normal(2, 5, 3, 2, 2)]),
    ("CrossMapLRN2d", (3,), {"alpha": 0.1, "k": 2.0}, [normal(2, 5, 3, 3)]),
    ("LayerNorm", (4,), {"bias": False}, [normal(3, 4)]),
    ("Embedding", (10, 3), {"padding_idx": -2, "max_norm": 1.0}, [labels(10, 2, 5)]),
    ("EmbeddingBag", (10, 3), {"mode": "sum"}, [labels(10, 3, 4)]),
    ("EmbeddingBag", (10, 3), {"mode": "max"}, [labels(10, 3, 4)]),
    ("EmbeddingBag", (10, 3), {"padding_idx": 0}, [labels(10, 8), np.array([0, 3, 3, 5])]),
    ("MSELoss", (), {"reduction": "sum"}, [normal(3, 4), normal(3, 4)]),
    ("L1Loss", (), {}, [normal(3, 4), normal(3, 4)]),
    ("HuberLoss", (), {"delta": 0.5}, [normal(3, 4), normal(3, 4)]),
    ("SmoothL1Loss", (), {"beta": 0.5, "reduction": "none"}, [normal(3, 4), normal(3, 4)]),
    ("KLDivLoss", (), {"reduction": "batchmean"}, [normal(3, 4), const(prob(3, 4))]),
    ("KLDivLoss", (), {"log_target": True}, [normal(3, 4), normal(3, 4)]),
    ("BCELoss", (), {"weight": torch.arange(1.0, 5.0, dtype=torch.float64)},
     [prob(3, 4), prob(3, 4)]),
    ("BCEWithLogitsLoss", (), {"weight": torch.arange(1.0, 5.0, dtype=torch.float64),
                               "pos_weight": torch.full((4,), 2.0, dtype=torch.float64)},
     [normal(3, 4), prob(3, 4)]),
    ("PoissonNLLLoss", (), {"full": True}, [normal(3, 4), const(labels(5, 3, 4).astype(float))]),
    ("GaussianNLLLoss", (), {"full": True}, [normal(3, 4), normal(3, 4), prob(3, 1)]),
    ("CosineEmbeddingLoss", (0.2,), {}, [normal(4, 5), normal(4, 5), signs(4)]),
    ("MarginRankingLoss", (0.3,), {}, [normal(6), normal(6), signs(6)]),
    ("HingeEmbeddingLoss", (0.5,), {}, [normal(3, 4), signs(3, 4)]),
    ("SoftMarginLoss", (), {}, [normal(3, 4), signs(3, 4)]),
    ("MultiLabelSoftMarginLoss", (), {}, [normal(3, 4), const(labels(2, 3, 4).astype(float))]),
    ("MultiLabelMarginLoss", (), {}, [normal(3, 4), np.array([[3, 0, -1, 1], [1, 2, 0, 3],
                                                               [-1, 0, 0, 0]])]),
    ("MultiMarginLoss", (2, 0.7), {}, [normal(5, 4), labels(4, 5)]),
    ("NLLLoss2d", (), {}, [normal(2, 3, 2, 2), labels(3, 2, 2, 2)]),
    ("TripletMarginLoss", (0.5, 3.0), {"swap": True}, [normal(4, 5), normal(4, 5),
                                                      normal(4, 5)]),
    ("TripletMarginWithDistanceLoss", (), {"margin": 2.0}, [normal(4, 5), normal(4, 5),
                                                           normal(4, 5)]),
    ("LinearCrossEntropyLoss", (5, 4), {"bias": True}, [normal(3, 5), labels(4, 3)]),
]


# torch's backward of CrossMapLRN2d is the plain LRN formula, not the derivative of its
# forward's running-sum windows (channel 0 never leaves them): outputs compared only
HAND_WRITTEN_BACKWARD = {"CrossMapLRN2d"}


def _ids():
    seen = {}
    out = []
    for case in CASES:
        seen[case[0]] = seen.get(case[0], 0) + 1
        out.append(f"{case[0]}-{seen[case[0]]}")
    return out


def _jg_kwargs(kwargs):
    return {k: (v.numpy() if isinstance(v, torch.Tensor) else v) for k, v in kwargs.items()}


def _grad_inputs(inputs):
    return [np.issubdtype(a.dtype, np.floating) and not isinstance(a, Const) for a in inputs]


@pytest.mark.parametrize("name,args,kwargs,inputs", CASES, ids=_ids())
def test_module_matches_torch(name, args, kwargs, inputs):
    torch.manual_seed(0)
    tm = getattr(torch.nn, name)(*args, **kwargs).double()
    jm = getattr(nn, name)(*args, **_jg_kwargs(kwargs))
    jm.eval()
    tm.eval()
    t_state = {k: v.detach().numpy() for k, v in tm.state_dict().items()}
    j_state = jm.state_dict()
    assert list(j_state) == list(t_state)
    for k, v in t_state.items():
        assert tuple(j_state[k].shape) == v.shape, k
    jm.load_state_dict(t_state)
    jm = jm.to(dtype=jg.float64) if t_state else jm
    wants = _grad_inputs(inputs)
    t_in = [torch.tensor(np.asarray(a), requires_grad=w) for a, w in zip(inputs, wants)]
    j_in = [jg.tensor(np.asarray(a), requires_grad=w) for a, w in zip(inputs, wants)]
    t_out, j_out = tm(*t_in), jm(*j_in)
    np.testing.assert_allclose(np.asarray(j_out), t_out.detach().numpy(), rtol=1e-9,
                               atol=1e-12)
    if not any(wants) or not t_out.requires_grad or name in HAND_WRITTEN_BACKWARD:
        return
    g = RNG.standard_normal(tuple(t_out.shape))
    (t_out * torch.tensor(g)).sum().backward()
    (j_out * jg.tensor(g)).sum().backward()
    for t, j, w in zip(t_in, j_in, wants):
        if w:
            np.testing.assert_allclose(np.asarray(j.grad), t.grad.numpy(), rtol=1e-7,
                                       atol=1e-10)


INIT_CASES = [("Conv1d", (4, 6, 3)), ("Conv3d", (2, 4, 3)), ("ConvTranspose1d", (4, 6, 3)),
              ("ConvTranspose2d", (4, 6, 3)), ("ConvTranspose3d", (4, 6, 2)),
              ("Bilinear", (20, 30, 50)), ("PReLU", (5,)), ("EmbeddingBag", (40, 50)),
              ("Embedding", (40, 50))]


@pytest.mark.parametrize("name,args", INIT_CASES)
def test_default_initialization_matches_torch(name, args):
    """Same parameters, shapes and distribution: equal extremes within sampling error."""
    tm, jm = getattr(torch.nn, name)(*args), getattr(nn, name)(*args)
    t_params = dict(tm.named_parameters())
    for key, p in jm.named_parameters():
        t = t_params[key].detach().numpy()
        j = np.asarray(p)
        assert j.shape == t.shape and j.dtype == np.float32
        if key == "bias":     # a few values: within the bound of its uniform init
            assert np.abs(j).max() <= 1 / np.sqrt(jm.weight.shape[1]), key
            continue
        if t.std() == 0:      # a constant init (PReLU's 0.25)
            np.testing.assert_array_equal(j, t)
            continue
        assert abs(j.std() - t.std()) < 0.15 * t.std(), key
        assert abs(np.abs(j).max() - np.abs(t).max()) <= 0.35 * np.abs(t).max(), key


def test_pools_with_indices_and_unpool_match_torch():
    for nsp, shape in ((1, (2, 3, 9)), (2, (2, 3, 6, 7)), (3, (1, 2, 4, 5, 6))):
        x = normal(*shape)
        tv, ti = getattr(TF, f"max_pool{nsp}d")(torch.tensor(x), 3, 2, 1, 1, True, True)
        jv, ji = getattr(F, f"max_pool{nsp}d")(x, 3, 2, 1, 1, True, True)
        np.testing.assert_array_equal(np.asarray(ji), ti.numpy())
        np.testing.assert_allclose(np.asarray(jv), tv.numpy())
        tu = getattr(TF, f"max_unpool{nsp}d")(tv, ti, 3, 2, 1, output_size=shape)
        ju = getattr(nn, f"MaxUnpool{nsp}d")(3, 2, 1)(jv, ji, output_size=shape)
        np.testing.assert_allclose(np.asarray(ju), tu.numpy())
        tv, ti = getattr(TF, f"adaptive_max_pool{nsp}d_with_indices")(torch.tensor(x), 3)
        jv, ji = getattr(F, f"adaptive_max_pool{nsp}d_with_indices")(x, 3)
        np.testing.assert_array_equal(np.asarray(ji), ti.numpy())


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_matches_torch(mode):
    x = normal(2, 3, 4, 5)
    pads = (1, 2, -1, 3) if mode == "constant" else (1, 2, 3, 0)
    np.testing.assert_allclose(np.asarray(F.pad(x, pads, mode)),
                               TF.pad(torch.tensor(x), pads, mode).numpy())


def test_functional_forms_match_torch():
    x, y = normal(3, 4), normal(3, 4)
    t = torch.tensor
    pairs = [
        (F.binary_cross_entropy_with_logits(x, prob(3, 4) * 0 + 0.3, None, None, None, "sum"),
         TF.binary_cross_entropy_with_logits(t(x), t(np.full((3, 4), 0.3)), None, None, None,
                                             "sum")),
        (F.softmax(x, dim=0), TF.softmax(t(x), dim=0)),
        (F.log_softmax(x, 1), TF.log_softmax(t(x), 1)),
        (F.gelu(x, approximate="tanh"), TF.gelu(t(x), approximate="tanh")),
        (F.normalize(x, 1.5, 0), TF.normalize(t(x), 1.5, 0)),
        (F.pdist(x), TF.pdist(t(x))),
        (F.one_hot(np.array([0, 3, 1])), TF.one_hot(t(np.array([0, 3, 1])))),
        (F.linear_cross_entropy(x, y, np.array([1, 0, 2])),
         TF.linear_cross_entropy(t(x), t(y), t(np.array([1, 0, 2])))),
        (F.alpha_dropout(x, 0.3, False), TF.alpha_dropout(t(x), 0.3, False)),
    ]
    for got, want in pairs:
        np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-9, atol=1e-12)
    xt, wt, bt = normal(5, 2, 3), normal(3, 3, 4), normal(4)
    np.testing.assert_allclose(np.asarray(F.conv_tbc(xt, wt, bt, 1)),
                               torch.conv_tbc(t(xt), t(wt), t(bt), 1).numpy(), rtol=1e-9)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_loss_matches_torch(reduction):
    logits = normal(12, 3, 5)
    targets = labels(4, 3, 4) + 1
    targets[1, 2] = targets[1, 1]                # a repeated label needs a blank between
    lengths, target_lengths = np.array([12, 9, 10]), np.array([4, 3, 0])
    xt = torch.tensor(logits, requires_grad=True)
    want = torch.nn.CTCLoss(reduction=reduction)(xt.log_softmax(2), torch.tensor(targets),
                                                  torch.tensor(lengths),
                                                  torch.tensor(target_lengths))
    xj = jg.tensor(logits, requires_grad=True)
    got = nn.CTCLoss(reduction=reduction)(F.log_softmax(xj, 2), targets, lengths,
                                          target_lengths)
    np.testing.assert_allclose(np.asarray(got), want.detach().numpy(), rtol=1e-10)
    want.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(np.asarray(xj.grad), xt.grad.numpy(), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("mode,padding_mode", [("bilinear", "zeros"), ("bilinear", "border"),
                                               ("bilinear", "reflection"),
                                               ("nearest", "zeros")])
def test_affine_grid_and_grid_sample_match_torch(mode, padding_mode, align_corners):
    theta, x = normal(2, 2, 3), normal(2, 3, 4, 5)
    grid = TF.affine_grid(torch.tensor(theta), (2, 3, 4, 5), align_corners=align_corners)
    np.testing.assert_allclose(np.asarray(F.affine_grid(theta, (2, 3, 4, 5), align_corners)),
                               grid.numpy(), atol=1e-12)
    g = RNG.uniform(-1.3, 1.3, (2, 3, 6, 2))
    xt, gt = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    xj, gj = jg.tensor(x, requires_grad=True), jg.tensor(g, requires_grad=True)
    yt = TF.grid_sample(xt, gt, mode, padding_mode, align_corners)
    yj = F.grid_sample(xj, gj, mode, padding_mode, align_corners)
    np.testing.assert_allclose(np.asarray(yj), yt.detach().numpy(), atol=1e-12)
    w = normal(*yt.shape)
    (yt * torch.tensor(w)).sum().backward()
    (yj * jg.tensor(w)).sum().backward()
    np.testing.assert_allclose(np.asarray(xj.grad), xt.grad.numpy(), atol=1e-12)
    if mode == "bilinear":
        np.testing.assert_allclose(np.asarray(gj.grad), gt.grad.numpy(), atol=1e-11)


def test_adaptive_log_softmax_matches_torch():
    torch.manual_seed(0)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
    tm = tm.double()
    jm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
    state = {k: v.detach().numpy() for k, v in tm.state_dict().items()}
    assert list(jm.state_dict()) == list(state)
    jm.load_state_dict(state)
    jm = jm.to(dtype=jg.float64)
    x, y = normal(5, 8), np.array([0, 4, 9, 2, 7])
    xt, xj = torch.tensor(x, requires_grad=True), jg.tensor(x, requires_grad=True)
    want, got = tm(xt, torch.tensor(y)), jm(xj, y)
    np.testing.assert_allclose(np.asarray(got.output), want.output.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(jm.log_prob(x)), tm.log_prob(torch.tensor(x))
                               .detach().numpy(), rtol=1e-10)
    np.testing.assert_array_equal(np.asarray(jm.predict(x)), tm.predict(torch.tensor(x)).numpy())
    want.loss.backward()
    got.loss.backward()
    np.testing.assert_allclose(np.asarray(xj.grad), xt.grad.numpy(), rtol=1e-8, atol=1e-12)
