"""jitgrad.nn.functional's records: torch.nn.functional owns the names (torch's dim semantics,
int64 one_hot); the reference is NumPy / SciPy, and torch's own function when torch is installed."""
import math

import numpy as np
import scipy.special

import jitgrad.nn.functional as F
from .core import FLOATS, I64, ND, NUMERIC, R2, UNARY, Ints, err, table

RECORDS, record = table("torch", "torch.nn.functional.")



def _np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _np_log_softmax(x, axis=-1):
    return x - scipy.special.logsumexp(x, axis=axis, keepdims=True)


def _np_gelu(x, approximate=False):
    if approximate:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + scipy.special.erf(x / math.sqrt(2)))


def _np_one_hot(x, num_classes):
    return (x[..., None] == np.arange(num_classes)).astype(np.int64)     # torch's int64


record("relu", F.relu, lambda x: np.maximum(x, 0), UNARY, dtypes=NUMERIC, fuzz="unary")
record("sigmoid", F.sigmoid, _np_sigmoid, UNARY, dtypes=FLOATS, fuzz="unary")
record("softplus", F.softplus, lambda x: np.logaddexp(0, x), UNARY, dtypes=FLOATS, fuzz="unary")
record("silu", F.silu, lambda x: x * _np_sigmoid(x), UNARY, dtypes=FLOATS, fuzz="unary")
record("gelu", F.gelu, _np_gelu, UNARY, dtypes=FLOATS, fuzz="unary")
record("gelu", F.gelu, _np_gelu, UNARY, dtypes=FLOATS, kwargs={"approximate": True},
       owner_kwargs={"approximate": "tanh"}, fuzz="unary")
# torch's softmax without dim= picks one from the rank (deprecated): the records name it
for _n, _ref in (("softmax", _np_softmax), ("log_softmax", _np_log_softmax)):
    record(_n, getattr(F, _n), lambda x, dim, _r=_ref: _r(x, dim), ND[1:], dtypes=FLOATS,
           kwargs={"dim": -1}, errors=(err([(3, 4)], IndexError, "out of range|dim",
                                           kwargs={"dim": 2}),))
    record(_n, getattr(F, _n), lambda x, axis, _r=_ref: _r(x, axis), R2, dtypes=FLOATS,
           kwargs={"axis": 0}, owner_kwargs={"dim": 0}, fuzz="shape")
# jax.nn's logsumexp (axis=, keepdims=): SciPy's meaning
record("logsumexp", F.logsumexp, scipy.special.logsumexp, ND, dtypes=FLOATS, owner="scipy",
       owner_path=None, fuzz="reduce")
record("logsumexp", F.logsumexp, scipy.special.logsumexp, R2, dtypes=FLOATS,
       kwargs={"axis": -1, "keepdims": True}, owner="scipy", owner_path=None)
record("one_hot", F.one_hot, _np_one_hot, [(Ints((5,), 0, 4),), (Ints((2, 3), 0, 4),)],
       dtypes=(I64,), kwargs={"num_classes": 4}, differentiable=False)


LEGACY_COUNT = len(RECORDS)

# ----------------------------------------------------------------------------- added in issue 49
# NumPy references of torch's definitions; torch's own function compared when it is installed


def _np_elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _softplus(x):
    return np.logaddexp(0, x)


_ACTIVATIONS = {
    "elu": _np_elu,
    "selu": lambda x: 1.0507009873554805 * _np_elu(x, 1.6732632423543772),
    "celu": lambda x: _np_elu(x, 1.0),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.01 * x),
    "relu6": lambda x: np.clip(x, 0, 6),
    "hardtanh": lambda x: np.clip(x, -1, 1),
    "hardsigmoid": lambda x: np.clip(x / 6 + 0.5, 0, 1),
    "hardswish": lambda x: x * np.clip(x / 6 + 0.5, 0, 1),
    "mish": lambda x: x * np.tanh(_softplus(x)),
    "softsign": lambda x: x / (1 + np.abs(x)),
    "tanhshrink": lambda x: x - np.tanh(x),
    "logsigmoid": lambda x: -_softplus(-x),
    "softshrink": lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0)),
    "hardshrink": lambda x: np.where(np.abs(x) > 0.5, x, 0),
    "tanh": np.tanh,
}
for _n, _ref in _ACTIVATIONS.items():
    record(_n, getattr(F, _n), _ref, UNARY, dtypes=FLOATS, domain="nonzero",
           fuzz="unary")
record("glu", F.glu, lambda x: x[..., :2] / (1 + np.exp(-x[..., 2:])), [((3, 4),), ((2, 4),)])
record("softmin", F.softmin, lambda x, dim: _np_softmax(-x, dim), R2, kwargs={"dim": 1})


def _reduce(v, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": np.asarray}[reduction](v)


_LOSSES = {
    "mse_loss": (lambda x, y: (x - y) ** 2, "any"),
    "l1_loss": (lambda x, y: np.abs(x - y), "any"),
    "smooth_l1_loss": (lambda x, y: np.where(np.abs(x - y) < 1, 0.5 * (x - y) ** 2,
                                             np.abs(x - y) - 0.5), "any"),
    "huber_loss": (lambda x, y: np.where(np.abs(x - y) < 1, 0.5 * (x - y) ** 2,
                                         np.abs(x - y) - 0.5), "any"),
    "binary_cross_entropy": (lambda p, y: -(y * np.log(p) + (1 - y) * np.log1p(-p)),
                             ("near1", "nonneg_small")),
    "binary_cross_entropy_with_logits": (lambda x, y: _softplus(x) - x * y, "any"),
    "soft_margin_loss": (lambda x, y: np.log1p(np.exp(-x * y)), "any"),
}
for _n, (_elem, _dom) in _LOSSES.items():
    if _n == "binary_cross_entropy":
        _dom = ("prob", "prob")
    for _red in ("mean", "sum", "none"):
        record(_n, getattr(F, _n), lambda x, y, reduction, _e=_elem: _reduce(_e(x, y), reduction),
               [((3, 4), (3, 4)), ((5,), (5,))], kwargs={"reduction": _red}, domain=_dom,
               errors=(err([(3, 4), (3, 5)], (ValueError, TypeError), "size|shape|broadcast",
                           kwargs={"reduction": _red}),) if _red == "mean" else ())


def _np_kl_div(x, y, reduction):
    return _reduce(np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), 0), reduction)


record("kl_div", F.kl_div, _np_kl_div, [((3, 4), (3, 4))], kwargs={"reduction": "sum"},
       domain=("any", "positive"))


def _np_cross_entropy(x, t, reduction="mean"):
    lp = _np_log_softmax(x, 1)
    return _reduce(-np.take_along_axis(lp, t[:, None], 1)[:, 0], reduction)


record("cross_entropy", F.cross_entropy, _np_cross_entropy,
       [((4, 5), Ints((4,), 0, 5)), ((1, 3), Ints((1,), 0, 3))],
       errors=(err([(4, 5), Ints((3,), 0, 5)], (ValueError, RuntimeError), "size|shape|batch"),))
record("cross_entropy", F.cross_entropy, _np_cross_entropy, [((4, 5), Ints((4,), 0, 5))],
       kwargs={"reduction": "none"})
record("nll_loss", F.nll_loss, lambda x, t: -np.mean(np.take_along_axis(x, t[:, None], 1)),
       [((4, 5), Ints((4,), 0, 5))])


def _np_layer_norm(x, normalized_shape, eps=1e-5):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    m = x.mean(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


record("layer_norm", F.layer_norm, _np_layer_norm, [((3, 4),), ((2, 3, 4),)],
       kwargs={"normalized_shape": (4,)}, tol=1e-4)
record("normalize", F.normalize, lambda x, dim: x / np.maximum(
    np.linalg.norm(x, axis=dim, keepdims=True), 1e-12), [((3, 4),)], kwargs={"dim": 1})
record("linear", F.linear, lambda x, w, b: x @ w.T + b, [((3, 4), (5, 4), (5,)),
                                                        ((2, 3, 4), (2, 4), (2,))],
       errors=(err([(3, 4), (5, 3), (5,)], (ValueError, RuntimeError, TypeError),
                   "shape|size|matmul"),))
record("cosine_similarity", F.cosine_similarity, lambda a, b: (a * b).sum(1) / np.maximum(
    np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-8), [((3, 4), (3, 4)),
                                                                   ((3, 4), (1, 4))])
record("pairwise_distance", F.pairwise_distance, lambda a, b: np.linalg.norm(
    a - b + 1e-6, axis=-1), [((3, 4), (3, 4))], domain=("any", "nonzero"))


def _np_pad(x, pad, mode="constant", value=0.0):
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if mode == "constant":
        return np.pad(x, widths, constant_values=value)
    return np.pad(x, widths, mode={"reflect": "reflect", "replicate": "edge",
                                   "circular": "wrap"}[mode])


record("pad", F.pad, _np_pad, [((2, 3, 5),), ((2, 4),)], kwargs={"pad": (1, 2)})
record("pad", F.pad, _np_pad, [((2, 3, 5),)], kwargs={"pad": (1, 0, 2, 1), "value": 0.5})
for _mode in ("reflect", "replicate", "circular"):
    record("pad", F.pad, _np_pad, [((2, 3, 5),)], kwargs={"pad": (2, 1), "mode": _mode})


def _np_conv1d(x, w, b=None, stride=1, padding=0):
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding)))
    k = w.shape[-1]
    n = (x.shape[-1] - k) // stride + 1
    cols = np.stack([x[..., i * stride:i * stride + k] for i in range(n)], -2)   # N C L K
    out = np.einsum("nclk,ock->nol", cols, w)
    return out if b is None else out + b[:, None]


record("conv1d", F.conv1d, _np_conv1d, [((2, 3, 8), (4, 3, 3)), ((1, 2, 5), (3, 2, 5))],
       tol=1e-4, errors=(err([(2, 3, 8), (4, 2, 3)], (ValueError, RuntimeError),
                             "channel|shape|group|size"),))
record("conv1d", F.conv1d, _np_conv1d, [((2, 3, 8), (4, 3, 3), (4,))],
       kwargs={"stride": 2, "padding": 1}, tol=1e-4)


def _windows(x, k, s):
    n = (x.shape[-1] - k) // s + 1
    return np.stack([x[..., i * s:i * s + k] for i in range(n)], -2)


record("max_pool1d", F.max_pool1d, lambda x, kernel_size, stride=None: _windows(
    x, kernel_size, stride or kernel_size).max(-1), [((2, 3, 8),), ((1, 7),)],
    kwargs={"kernel_size": 2})
record("max_pool1d", F.max_pool1d, lambda x, kernel_size, stride: _windows(
    x, kernel_size, stride).max(-1), [((2, 3, 9),)], kwargs={"kernel_size": 3, "stride": 2})
record("avg_pool1d", F.avg_pool1d, lambda x, kernel_size, stride=None: _windows(
    x, kernel_size, stride or kernel_size).mean(-1), [((2, 3, 8),)], kwargs={"kernel_size": 2})
record("avg_pool1d", F.avg_pool1d, lambda x, kernel_size, stride: _windows(
    x, kernel_size, stride).mean(-1), [((2, 3, 9),)], kwargs={"kernel_size": 3, "stride": 2})
record("max_pool2d", F.max_pool2d, lambda x, kernel_size: x.reshape(
    *x.shape[:-2], x.shape[-2] // 2, 2, x.shape[-1] // 2, 2).max((-3, -1)),
    [((2, 3, 4, 6),)], kwargs={"kernel_size": 2})
record("avg_pool2d", F.avg_pool2d, lambda x, kernel_size: x.reshape(
    *x.shape[:-2], x.shape[-2] // 2, 2, x.shape[-1] // 2, 2).mean((-3, -1)),
    [((2, 3, 4, 6),)], kwargs={"kernel_size": 2})
record("adaptive_avg_pool1d", F.adaptive_avg_pool1d, lambda x, output_size: x.reshape(
    *x.shape[:-1], output_size, -1).mean(-1), [((2, 3, 6),)], kwargs={"output_size": 3})
record("interpolate", F.interpolate, lambda x, scale_factor: np.repeat(x, 2, -1),
       [((2, 3, 5),)], kwargs={"scale_factor": 2})
record("interpolate", F.interpolate, lambda x, size, mode: np.repeat(np.repeat(x, 2, -1), 2, -2),
       [((1, 2, 3, 4),)], kwargs={"size": (6, 8), "mode": "nearest"})


# ----------------------------------------------------------------------------- more torch.nn.functional
# (NumPy references; torch's own function compared when it is installed)

def _np_conv2d(x, w, b=None, stride=1, padding=0):
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    kh, kw = w.shape[-2:]
    oh, ow = (x.shape[-2] - kh) // stride + 1, (x.shape[-1] - kw) // stride + 1
    cols = np.stack([np.stack([x[..., i * stride:i * stride + kh, j * stride:j * stride + kw]
                               for j in range(ow)], -3) for i in range(oh)], -4)  # N C OH OW KH KW
    out = np.einsum("ncijkl,ockl->noij", cols, w)
    return out if b is None else out + b[:, None, None]


def _np_conv_transpose1d(x, w, b=None, stride=1):
    n, _, length = x.shape
    k = w.shape[-1]
    out = np.zeros((n, w.shape[1], (length - 1) * stride + k), x.dtype)
    for i in range(length):
        out[..., i * stride:i * stride + k] += np.einsum("nc,cok->nok", x[..., i], w)
    return out if b is None else out + b[:, None]


def _np_pixel_shuffle(x, upscale_factor):
    r = upscale_factor
    n, c, h, w = x.shape
    return x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(
        n, c // (r * r), h * r, w * r)


def _np_pixel_unshuffle(x, downscale_factor):
    r = downscale_factor
    n, c, h, w = x.shape
    return x.reshape(n, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4).reshape(
        n, c * r * r, h // r, w // r)


def _np_batch_norm(x, mean, var, weight, bias, eps=1e-5):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return ((x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * weight.reshape(shape)
            + bias.reshape(shape))


def _np_group_norm(x, num_groups, eps=1e-5):
    g = x.reshape(x.shape[0], num_groups, -1)
    g = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)
    return g.reshape(x.shape)


record("conv2d", F.conv2d, _np_conv2d, [((2, 3, 5, 6), (4, 3, 3, 2)), ((1, 2, 4, 4), (3, 2, 1, 1))],
       tol=1e-4)
record("conv2d", F.conv2d, _np_conv2d, [((1, 2, 6, 5), (3, 2, 3, 3), (3,))],
       kwargs={"stride": 2, "padding": 1}, tol=1e-4)
record("conv_transpose1d", F.conv_transpose1d, _np_conv_transpose1d,
       [((2, 3, 5), (3, 4, 3)), ((1, 2, 4), (2, 2, 2), (2,))], tol=1e-4)
record("conv_transpose1d", F.conv_transpose1d, _np_conv_transpose1d, [((1, 2, 4), (2, 3, 3))],
       kwargs={"stride": 2}, tol=1e-4)
record("pixel_shuffle", F.pixel_shuffle, _np_pixel_shuffle, [((2, 8, 3, 2),), ((1, 4, 1, 3),)],
       kwargs={"upscale_factor": 2})
record("pixel_unshuffle", F.pixel_unshuffle, _np_pixel_unshuffle, [((2, 2, 4, 6),)],
       kwargs={"downscale_factor": 2})
record("embedding", F.embedding, lambda i, w: w[i], [(Ints((5,), 0, 6), (6, 3)),
                                                     (Ints((2, 3), 0, 4), (4, 2))])
record("batch_norm", F.batch_norm, _np_batch_norm,
       [((4, 3), (3,), (3,), (3,), (3,)), ((2, 3, 5), (3,), (3,), (3,), (3,))],
       domain=("any", "any", "positive", "any", "any"), tol=1e-4)
record("group_norm", F.group_norm, _np_group_norm, [((2, 4, 3),), ((3, 6, 2, 2),)],
       kwargs={"num_groups": 2}, tol=1e-4)
record("rms_norm", F.rms_norm, lambda x, normalized_shape, eps: x / np.sqrt(
    (x * x).mean(-1, keepdims=True) + eps), [((3, 4),), ((2, 3, 4),)],
    kwargs={"normalized_shape": (4,), "eps": 1e-6}, tol=1e-4)
record("prelu", F.prelu, lambda x, w: np.where(x > 0, x, w.reshape((-1,) + (1,) * (x.ndim - 2))
                                               * x), [((2, 3, 4), (3,)), ((4, 3), (1,))],
       domain=("nonzero", "any"))
record("threshold", F.threshold, lambda x, threshold, value: np.where(x > threshold, x, value),
       UNARY, kwargs={"threshold": 0.25, "value": -1.0}, domain="nonzero")
record("margin_ranking_loss", F.margin_ranking_loss, lambda a, b, y, margin: np.mean(
    np.maximum(0, -y * (a - b) + margin)), [((5,), (5,), (5,))], kwargs={"margin": 0.1},
    domain=("any", "any", "nonzero"))
record("gaussian_nll_loss", F.gaussian_nll_loss, lambda x, t, v: np.mean(
    0.5 * (np.log(np.maximum(v, 1e-6)) + (x - t) ** 2 / np.maximum(v, 1e-6))),
    [((3, 4), (3, 4), (3, 4))], domain=("any", "any", "positive"), tol=1e-4)
record("poisson_nll_loss", F.poisson_nll_loss, lambda x, t: np.mean(np.exp(x) - t * x),
       [((3, 4), (3, 4))], domain=("any", "positive"))
record("multilabel_soft_margin_loss", F.multilabel_soft_margin_loss, lambda x, y: np.mean(
    -(y * -_softplus(-x) + (1 - y) * -_softplus(x)).mean(-1)),
    [((3, 4), (3, 4))], domain=("any", "prob"), tol=1e-4)
record("triplet_margin_loss", F.triplet_margin_loss, lambda a, p, n: np.mean(np.maximum(
    np.linalg.norm(a - p + 1e-6, axis=-1) - np.linalg.norm(a - n + 1e-6, axis=-1) + 1.0, 0)),
    [((3, 4), (3, 4), (3, 4))], domain=("any", "nonzero", "nonzero"), tol=1e-4)
record("pdist", F.pdist, lambda x: np.array([np.linalg.norm(x[i] - x[j])
                                             for i in range(len(x)) for j in range(i + 1, len(x))]),
       [((4, 3),)], domain="nonzero", tol=1e-4)
record("adaptive_avg_pool2d", F.adaptive_avg_pool2d, lambda x, output_size: x.reshape(
    *x.shape[:-2], output_size, x.shape[-2] // output_size, output_size,
    x.shape[-1] // output_size).mean((-3, -1)), [((2, 3, 4, 6),)], kwargs={"output_size": 2})
record("channel_shuffle", F.channel_shuffle, lambda x, groups: x.reshape(
    x.shape[0], groups, -1, *x.shape[2:]).swapaxes(1, 2).reshape(x.shape), [((2, 6, 3),)],
    kwargs={"groups": 3}, owner_path="torch.nn.functional.channel_shuffle")


def _np_conv_transpose2d(x, w, stride=1):
    n, _, h, wd = x.shape
    kh, kw = w.shape[-2:]
    out = np.zeros((n, w.shape[1], (h - 1) * stride + kh, (wd - 1) * stride + kw), x.dtype)
    for i in range(h):
        for j in range(wd):
            out[..., i * stride:i * stride + kh, j * stride:j * stride + kw] += np.einsum(
                "nc,cokl->nokl", x[..., i, j], w)
    return out


def _np_unfold(x, kernel_size):
    n, c, h, w = x.shape
    k = kernel_size
    cols = [x[:, :, i:i + k, j:j + k].reshape(n, c * k * k)
            for i in range(h - k + 1) for j in range(w - k + 1)]
    return np.stack(cols, -1)


record("conv_transpose2d", F.conv_transpose2d, _np_conv_transpose2d,
       [((2, 3, 3, 2), (3, 2, 2, 3))], tol=1e-4)
record("conv_transpose2d", F.conv_transpose2d, _np_conv_transpose2d,
       [((1, 2, 3, 3), (2, 1, 3, 3))], kwargs={"stride": 2}, tol=1e-4)
record("max_pool3d", F.max_pool3d, lambda x, kernel_size: x.reshape(
    *x.shape[:-3], x.shape[-3] // 2, 2, x.shape[-2] // 2, 2, x.shape[-1] // 2, 2).max((-5, -3, -1)),
    [((1, 2, 4, 2, 4),)], kwargs={"kernel_size": 2})
record("avg_pool3d", F.avg_pool3d, lambda x, kernel_size: x.reshape(
    *x.shape[:-3], x.shape[-3] // 2, 2, x.shape[-2] // 2, 2, x.shape[-1] // 2, 2).mean((-5, -3, -1)),
    [((1, 2, 4, 2, 4),)], kwargs={"kernel_size": 2})
record("adaptive_max_pool1d", F.adaptive_max_pool1d, lambda x, output_size: x.reshape(
    *x.shape[:-1], output_size, -1).max(-1), [((2, 3, 6),)], kwargs={"output_size": 2})
record("adaptive_max_pool2d", F.adaptive_max_pool2d, lambda x, output_size: x.reshape(
    *x.shape[:-2], output_size, x.shape[-2] // output_size, output_size,
    x.shape[-1] // output_size).max((-3, -1)), [((2, 3, 4, 6),)], kwargs={"output_size": 2})
record("instance_norm", F.instance_norm, lambda x: (x - x.mean(-1, keepdims=True)) / np.sqrt(
    x.var(-1, keepdims=True) + 1e-5), [((2, 3, 5),)], tol=1e-4)
record("unfold", F.unfold, _np_unfold, [((2, 3, 4, 5),)], kwargs={"kernel_size": 2})
record("fold", lambda cols, output_size, kernel_size: F.fold(cols, output_size, kernel_size),
       lambda cols, output_size, kernel_size: _np_fold(cols, output_size, kernel_size),
       [((2, 12, 12),)], kwargs={"output_size": (4, 5), "kernel_size": 2},
       owner_path="torch.nn.functional.fold")
record("log_sigmoid", F.log_sigmoid, lambda x: -_softplus(-x), UNARY, owner="jax",
       owner_path="jax.nn.log_sigmoid")
record("swish", F.swish, lambda x: x * _np_sigmoid(x), UNARY, owner="jax",
       owner_path="jax.nn.swish")
record("upsample_nearest", F.upsample_nearest, lambda x, scale_factor: np.repeat(
    np.repeat(x, 2, -1), 2, -2), [((1, 2, 3, 4),)], kwargs={"scale_factor": 2})
record("bilinear", F.bilinear, lambda a, b, w, bias: np.einsum("ni,oij,nj->no", a, w, b) + bias,
       [((3, 4), (3, 2), (5, 4, 2), (5,))], tol=1e-4)
record("cosine_embedding_loss", lambda a, b, y: F.cosine_embedding_loss(a, b, y / abs(y)),
       lambda a, b, y: np.mean(np.where(np.sign(y) > 0, 1 - (a * b).sum(1) / np.sqrt(
           ((a * a).sum(1) + 1e-12) * ((b * b).sum(1) + 1e-12)), np.maximum(0, (a * b).sum(1) / np.sqrt(
               ((a * a).sum(1) + 1e-12) * ((b * b).sum(1) + 1e-12))))),
       [((4, 3), (4, 3), (4,))], domain=("nonzero", "nonzero", "nonzero"), tol=1e-4,
       owner_path=None)


def _np_fold(cols, output_size, kernel_size):
    n, ck, _ = cols.shape
    h, w = output_size
    k = kernel_size
    c = ck // (k * k)
    out = np.zeros((n, c, h, w), cols.dtype)
    pos = [(i, j) for i in range(h - k + 1) for j in range(w - k + 1)]
    for p, (i, j) in enumerate(pos):
        out[:, :, i:i + k, j:j + k] += cols[:, :, p].reshape(n, c, k, k)
    return out


# in-place activations (F.relu_(x), ...): on a clone, eager only (a traced value is immutable)
def _in_place(fn):
    def run(x, **kwargs):
        y = x.clone()
        assert fn(y, **kwargs) is y, f"{fn.__name__} returned a new tensor"
        return y
    return run


_EAGER_ONLY = {"traceable": False, "batchable": False, "differentiable": False}
for _n in ("relu", "elu", "selu", "celu", "leaky_relu", "hardtanh"):
    _ref = _ACTIVATIONS.get(_n, lambda x: np.maximum(x, 0))
    record(_n + "_", _in_place(getattr(F, _n + "_")), _ref, UNARY, domain="nonzero",
           **_EAGER_ONLY)
record("threshold_", _in_place(F.threshold_), lambda x, threshold, value: np.where(
    x > threshold, x, value), UNARY, kwargs={"threshold": 0.25, "value": -1.0},
    domain="nonzero", **_EAGER_ONLY)
# rrelu outside training: leaky_relu with slope (lower + upper) / 2, torch's defaults 1/8, 1/3
_RRELU_SLOPE = (1 / 8 + 1 / 3) / 2
record("rrelu", F.rrelu, lambda x: np.where(x >= 0, x, _RRELU_SLOPE * x), UNARY,
       domain="nonzero")
record("rrelu_", _in_place(F.rrelu_), lambda x: np.where(x >= 0, x, _RRELU_SLOPE * x), UNARY,
       domain="nonzero", **_EAGER_ONLY)
# dropouts outside training: the input itself (training=True draws: tests/nn)
for _n, _cases in (("dropout", UNARY), ("alpha_dropout", UNARY),
                   ("feature_alpha_dropout", [((2, 3, 4),)]), ("dropout1d", [((2, 3, 4),)]),
                   ("dropout2d", [((2, 3, 4, 5),)]), ("dropout3d", [((1, 2, 3, 4, 2),)])):
    record(_n, getattr(F, _n), lambda x, p, training: np.array(x), _cases,
           kwargs={"p": 0.5, "training": False})


def _np_sdpa(q, k, v):
    s = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    return _np_softmax(s, -1) @ v


record("scaled_dot_product_attention", F.scaled_dot_product_attention, _np_sdpa,
       [((2, 3, 4), (2, 5, 4), (2, 5, 6)), ((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4))], tol=1e-4)


def _windows_1d(x, k):
    n = x.shape[-1] // k
    return x[..., :n * k].reshape(x.shape[:-1] + (n, k))


record("lp_pool1d", F.lp_pool1d, lambda x, norm_type, kernel_size: (
    _windows_1d(x, kernel_size) ** norm_type).sum(-1) ** (1 / norm_type), [((2, 3, 8),)],
    kwargs={"norm_type": 2, "kernel_size": 2}, domain="positive", tol=1e-4)
record("adaptive_avg_pool3d", F.adaptive_avg_pool3d, lambda x, output_size: x.reshape(
    2, 3, 2, 2, 2, 2, 2, 2).mean((3, 5, 7)), [((2, 3, 4, 4, 4),)], kwargs={"output_size": 2})
record("adaptive_max_pool3d", F.adaptive_max_pool3d, lambda x, output_size: x.reshape(
    2, 3, 2, 2, 2, 2, 2, 2).max((3, 5, 7)), [((2, 3, 4, 4, 4),)], kwargs={"output_size": 2})


def _np_max_pool1d_with_indices(x, kernel_size):
    w = _windows_1d(x, kernel_size)
    starts = np.arange(w.shape[-2]) * kernel_size
    return [w.max(-1), (w.argmax(-1) + starts).astype(np.int64)]


record("max_pool1d_with_indices", F.max_pool1d_with_indices, _np_max_pool1d_with_indices,
       [((2, 3, 8),), ((1, 7),)], kwargs={"kernel_size": 2})
record("hinge_embedding_loss", lambda x, y: F.hinge_embedding_loss(x, y / abs(y)),
       lambda x, y: np.mean(np.where(np.sign(y) > 0, x, np.maximum(0, 1 - x))),
       [((4, 3), (4, 3)), ((5,), (5,))], domain=("any", "nonzero"), owner_path=None)


def _np_multi_margin(x, t):
    picked = np.take_along_axis(x, t[:, None], 1)
    hinge = np.maximum(0, 1 - picked + x)
    hinge[np.arange(len(t)), t] = 0
    return np.mean(hinge.sum(1) / x.shape[1])


record("multi_margin_loss", F.multi_margin_loss, _np_multi_margin,
       [((4, 5), Ints((4,), 0, 5)), ((1, 3), Ints((1,), 0, 3))])


def _np_triplet(a, p, n, margin=1.0):
    d = lambda u, v: np.linalg.norm(u - v + 1e-6, axis=-1)  # noqa: E731  (pairwise_distance)
    return np.mean(np.maximum(d(a, p) - d(a, n) + margin, 0))


record("triplet_margin_with_distance_loss", F.triplet_margin_with_distance_loss, _np_triplet,
       [((4, 3), (4, 3), (4, 3))], tol=1e-4)


def _windows_2d(x, k):
    """(..., H/k, W/k, k*k): the non-overlapping k x k windows of the last two dims."""
    h, w = x.shape[-2] // k, x.shape[-1] // k
    x = x[..., :h * k, :w * k].reshape(x.shape[:-2] + (h, k, w, k))
    return np.swapaxes(x, -3, -2).reshape(x.shape[:-4] + (h, w, k * k))


def _np_max_pool2d_with_indices(x, kernel_size):
    win = _windows_2d(x, kernel_size)
    at = win.argmax(-1)
    rows = np.arange(win.shape[-3])[:, None] * kernel_size + at // kernel_size
    cols = np.arange(win.shape[-2])[None, :] * kernel_size + at % kernel_size
    return [win.max(-1), (rows * x.shape[-1] + cols).astype(np.int64)]   # flat index in H*W


record("max_pool2d_with_indices", F.max_pool2d_with_indices, _np_max_pool2d_with_indices,
       [((2, 3, 4, 6),), ((1, 5, 4),)], kwargs={"kernel_size": 2})
record("lp_pool2d", F.lp_pool2d, lambda x, norm_type, kernel_size: (
    _windows_2d(x, kernel_size) ** norm_type).sum(-1) ** (1 / norm_type), [((2, 3, 4, 6),)],
    kwargs={"norm_type": 2, "kernel_size": 2}, domain="positive", tol=1e-4)
record("upsample", F.upsample, lambda x, scale_factor: np.repeat(np.repeat(x, 2, -1), 2, -2),
       [((1, 2, 3, 4),)], kwargs={"scale_factor": 2})

# the remaining names (3-d convolutions, pools with indices, sampling, CTC, ...): their own file
from . import nn_functional_more_ops  # noqa: E402
RECORDS.extend(nn_functional_more_ops.RECORDS)
