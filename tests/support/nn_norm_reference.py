"""NumPy references of PyTorch's equations for the normalization, pooling and convolution layers
(float64, written from the documented formulas, not from jitgrad's code): used by
test_nn_norm.py and test_nn_buffers.py."""
import math

import numpy as np


def _bc(v, ndim):
    return np.asarray(v, np.float64).reshape((1, -1) + (1,) * (ndim - 2))


def batch_norm(x, rm, rv, w, b, training, momentum, eps=1e-5):
    """(y, new_running_mean, new_running_var): batch statistics (biased variance) normalize when
    training, and the running variance moves towards the UNBIASED variance."""
    x = np.asarray(x, np.float64)
    axes = (0,) + tuple(range(2, x.ndim))
    if training:
        n = x.size // x.shape[1]
        mean, var = x.mean(axes), x.var(axes)
        new_rm = None if rm is None else (1 - momentum) * rm + momentum * mean
        new_rv = None if rv is None else (1 - momentum) * rv + momentum * var * n / (n - 1)
    else:
        mean, var, new_rm, new_rv = rm, rv, None, None
    y = (x - _bc(mean, x.ndim)) / np.sqrt(_bc(var, x.ndim) + eps)
    if w is not None:
        y = y * _bc(w, x.ndim)
    if b is not None:
        y = y + _bc(b, x.ndim)
    return y, new_rm, new_rv


def instance_norm(x, rm, rv, w, b, use_input_stats, momentum, eps=1e-5):
    """Each (sample, channel) over its spatial dimensions; running statistics move towards the
    mean over the batch of the per-instance mean and unbiased variance."""
    x = np.asarray(x, np.float64)
    if not use_input_stats:
        return batch_norm(x, rm, rv, w, b, False, 0.0, eps)
    axes = tuple(range(2, x.ndim))
    n = math.prod(x.shape[2:])
    mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    if w is not None:
        y = y * _bc(w, x.ndim)
    if b is not None:
        y = y + _bc(b, x.ndim)
    if rm is None:
        return y, None, None
    m, v = mean.reshape(x.shape[:2]).mean(0), var.reshape(x.shape[:2]).mean(0) * n / (n - 1)
    return y, (1 - momentum) * rm + momentum * m, (1 - momentum) * rv + momentum * v


def group_norm(x, groups, w, b, eps=1e-5):
    x = np.asarray(x, np.float64)
    g = x.reshape(x.shape[0], groups, -1)
    y = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)).reshape(x.shape)
    if w is not None:
        y = y * _bc(w, x.ndim)
    if b is not None:
        y = y + _bc(b, x.ndim)
    return y


def conv2d(x, w, b=None, stride=(1, 1), padding=((0, 0), (0, 0)), dilation=(1, 1), groups=1):
    """Direct cross-correlation: out[n, o, i, j] = sum_{c in o's group, ki, kj}
    x[n, c, i*s + ki*d, j*s + kj*d] * w[o, c - group start, ki, kj] (+ b[o])."""
    x = np.pad(np.asarray(x, np.float64), ((0, 0), (0, 0)) + tuple(padding))
    w = np.asarray(w, np.float64)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    oh, ow = (h - dh * (kh - 1) - 1) // sh + 1, (wd - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for ki in range(kh):
            for kj in range(kw):
                patch = x[:, g * cg:(g + 1) * cg, ki * dh: ki * dh + sh * (oh - 1) + 1: sh,
                          kj * dw: kj * dw + sw * (ow - 1) + 1: sw]
                out[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, ki, kj])
    if b is not None:
        out += np.asarray(b, np.float64)[None, :, None, None]
    return out


def adaptive_avg_pool2d(x, out_hw):
    """Bin i of n over length L averages [floor(i L / n), ceil((i + 1) L / n))."""
    x = np.asarray(x, np.float64)
    h, w = x.shape[-2:]
    oh, ow = out_hw
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        h0, h1 = math.floor(i * h / oh), math.ceil((i + 1) * h / oh)
        for j in range(ow):
            w0, w1 = math.floor(j * w / ow), math.ceil((j + 1) * w / ow)
            out[..., i, j] = x[..., h0:h1, w0:w1].mean((-2, -1))
    return out
