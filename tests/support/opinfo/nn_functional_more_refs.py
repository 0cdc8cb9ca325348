"""NumPy references, written to torch's definitions, for nn_functional_more_ops.py's records
(torch.nn.functional's convolutions, pools, sampling, CTC, embedding bags, ...)."""
import itertools
import math

import numpy as np
import scipy.special


def _tup(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _batched(x, nsp):
    """x with a batch axis, and the function that takes it off again."""
    if x.ndim == nsp + 1:
        return x[None], lambda y: y[0]
    return x, lambda y: y


# ----------------------------------------------------------------------------- convolutions

def conv(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """torch's conv{n}d: cross-correlation, (N, C, *spatial) with weight (O, C/groups, *k)."""
    nsp = w.ndim - 2
    st, pd, dl = (_tup(v, nsp) for v in (stride, padding, dilation))
    x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pd])
    ks = w.shape[2:]
    outs = [(x.shape[2 + d] - dl[d] * (ks[d] - 1) - 1) // st[d] + 1 for d in range(nsp)]
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    out = np.zeros((x.shape[0], w.shape[0], *outs), np.result_type(x, w))
    for k in np.ndindex(*ks):
        taps = x[(slice(None), slice(None)) + tuple(
            slice(k[d] * dl[d], k[d] * dl[d] + st[d] * (outs[d] - 1) + 1, st[d])
            for d in range(nsp))]
        for g in range(groups):
            out[:, g * og:(g + 1) * og] += np.einsum(
                "nc...,oc->no...", taps[:, g * cg:(g + 1) * cg],
                w[(slice(g * og, (g + 1) * og), slice(None)) + k])
    return out if b is None else out + b.reshape((-1,) + (1,) * nsp)


def conv_transpose(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """torch's conv_transpose{n}d: weight (C, O/groups, *k); each input scatters its kernel."""
    nsp = w.ndim - 2
    st, pd, op, dl = (_tup(v, nsp) for v in (stride, padding, output_padding, dilation))
    ks, ins = w.shape[2:], x.shape[2:]
    full = [(ins[d] - 1) * st[d] + dl[d] * (ks[d] - 1) + 1 + op[d] for d in range(nsp)]
    cg, og = x.shape[1] // groups, w.shape[1]
    out = np.zeros((x.shape[0], og * groups, *full), np.result_type(x, w))
    for k in np.ndindex(*ks):
        at = (slice(None), slice(None)) + tuple(
            slice(k[d] * dl[d], k[d] * dl[d] + st[d] * (ins[d] - 1) + 1, st[d])
            for d in range(nsp))
        for g in range(groups):
            part = np.einsum("nc...,co->no...", x[:, g * cg:(g + 1) * cg],
                             w[(slice(g * cg, (g + 1) * cg), slice(None)) + k])
            out[:, g * og:(g + 1) * og][at] += part
    out = out[(slice(None), slice(None)) + tuple(
        slice(pd[d], full[d] - pd[d]) for d in range(nsp))]
    return out if b is None else out + b.reshape((-1,) + (1,) * nsp)


def conv_tbc(x, w, b, pad=0):
    """torch.conv_tbc: (T, B, C_in) with weight (K, C_in, C_out): a 1-d convolution in time."""
    y = conv(x.transpose(1, 2, 0), w.transpose(2, 1, 0), b, padding=pad)
    return y.transpose(2, 0, 1)


# ----------------------------------------------------------------------------- pools

def _window_max(x, nsp, bins):
    """Max of every window (bins[d][i] = (start, stop) on spatial dim d), the first maximum in
    scan order, and its flat spatial index (torch's indices)."""
    x, back = _batched(x, nsp)
    size = x.shape[2:]
    outs = tuple(len(b) for b in bins)
    values = np.zeros(x.shape[:2] + outs, x.dtype)
    index = np.zeros(x.shape[:2] + outs, np.int64)
    for cell in np.ndindex(*outs):
        ranges = [np.arange(*bins[d][c]) for d, c in enumerate(cell)]
        flat = np.ravel_multi_index(np.meshgrid(*ranges, indexing="ij"), size).reshape(-1)
        win = x.reshape(x.shape[:2] + (-1,))[:, :, flat]
        at = win.argmax(-1)
        at_cell = (slice(None), slice(None)) + cell
        values[at_cell] = np.take_along_axis(win, at[..., None], -1)[..., 0]
        index[at_cell] = flat[at]
    return [back(values), back(index)]


def adaptive_max(x, output_size, nsp):
    """torch's adaptive_max_pool{nsp}d(return_indices=True): bin i of n over o outputs is
    [floor(i n / o), ceil((i + 1) n / o))."""
    size = x.shape[-nsp:]
    bins = [[(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]
            for n, o in zip(size, _tup(output_size, nsp))]
    return _window_max(x, nsp, bins)


def max_pool(x, kernel_size, stride, nsp):
    """torch's max_pool{nsp}d_with_indices without padding or dilation."""
    ks, st = _tup(kernel_size, nsp), _tup(stride, nsp)
    bins = [[(i * s, i * s + k) for i in range((n - k) // s + 1)]
            for n, k, s in zip(x.shape[-nsp:], ks, st)]
    return _window_max(x, nsp, bins)


def lp_pool(x, norm_type, kernel_size, nsp):
    """torch's lp_pool{nsp}d (stride = kernel) of a positive input: each window's p-norm."""
    ks = _tup(kernel_size, nsp)
    bins = [[(i * k, i * k + k) for i in range(n // k)] for n, k in zip(x.shape[-nsp:], ks)]
    lead = x.shape[:-nsp]
    out = np.zeros(lead + tuple(len(b) for b in bins), x.dtype)
    for cell in np.ndindex(*out.shape[len(lead):]):
        win = x[(Ellipsis,) + tuple(slice(*bins[d][c]) for d, c in enumerate(cell))]
        out[(Ellipsis,) + cell] = (win ** norm_type).reshape(lead + (-1,)).sum(-1) ** (
            1 / norm_type)
    return out


def unpool(x, kernel_size, nsp, output_size=None):
    """max_unpool of max_pool_with_indices (stride = kernel): the maxima in place, else 0."""
    values, index = max_pool(x, kernel_size, kernel_size, nsp)
    size = tuple(output_size) if output_size is not None else tuple(
        n // kernel_size * kernel_size for n in x.shape[-nsp:])
    lead = x.shape[:-nsp]
    out = np.zeros(lead + (math.prod(size),), x.dtype)
    np.put_along_axis(out, index.reshape(lead + (-1,)), values.reshape(lead + (-1,)), -1)
    return out.reshape(lead + size)


def _intervals(u, size, out, kernel, dtype):
    """ATen's generate_intervals in the input's dtype."""
    if out == 1:
        return [size - kernel]
    alpha = dtype.type(size - kernel) / dtype.type(out - 1)
    u = dtype.type(u)
    return [int(np.floor((dtype.type(i) + u) * alpha)) - int(np.floor(u * alpha))
            for i in range(out - 1)] + [size - kernel]


def fractional_max(x, kernel_size, samples, nsp, indices=False, output_size=None,
                   output_ratio=None):
    """torch's fractional_max_pool{nsp}d: windows placed by one sample per (batch, channel,
    dim); the 2-d kernel reads the samples as (W, H), the 3-d one as (T, H, W)."""
    xb, back = _batched(x, nsp)
    size = xb.shape[2:]
    ks = _tup(kernel_size, nsp)
    outs = _tup(output_size, nsp) if output_size is not None else tuple(
        int(n * r) for n, r in zip(size, _tup(output_ratio, nsp)))
    slot = (1, 0) if nsp == 2 else (0, 1, 2)
    values = np.zeros(xb.shape[:2] + outs, x.dtype)
    index = np.zeros(xb.shape[:2] + outs, np.int64)
    for n, c in np.ndindex(*xb.shape[:2]):
        bins = [[(s, s + ks[d]) for s in _intervals(samples[n, c, slot[d]], size[d], outs[d],
                                                     ks[d], x.dtype)] for d in range(nsp)]
        v, i = _window_max(xb[n:n + 1, c:c + 1], nsp, bins)
        values[n, c], index[n, c] = v[0, 0], i[0, 0]
    return [back(values), back(index)] if indices else back(values)


# ----------------------------------------------------------------------------- sampling

def _base(n, align_corners):
    if n <= 1:
        return np.zeros(max(n, 0))
    return np.linspace(-1, 1, n) if align_corners else (np.arange(n) * 2 + 1) / n - 1


def affine_grid(theta, size, align_corners):
    """torch's affine_grid: the normalized (x, y[, z], 1) grid of `size` mapped by theta."""
    spatial = size[2:]
    mesh = list(np.meshgrid(*[_base(n, align_corners) for n in spatial], indexing="ij"))[::-1]
    base = np.stack(mesh + [np.ones(spatial)], -1)                    # (*spatial, nsp + 1)
    return np.einsum("...k,njk->n...j", base, theta).astype(theta.dtype)


def _reflect(c, twice_low, twice_high):
    """ATen's reflect_coordinates: c reflected into [twice_low / 2, twice_high / 2]."""
    if twice_low == twice_high:
        return np.zeros_like(c)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    c = np.abs(c - low)
    flips, extra = np.floor(c / span), np.fmod(c, span)
    return np.where(flips % 2 == 0, extra + low, span - extra + low)


def _bounded(c, n, padding_mode, align_corners):
    """ATen's compute_coordinates: a coordinate with border / reflection padding applied."""
    if padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (n - 1)) if align_corners else _reflect(c, -1, 2 * n - 1)
    return c if padding_mode == "zeros" else np.clip(c, 0, n - 1)


def _cubic(t):
    a = -0.75
    near = lambda d: ((a + 2) * d - (a + 3)) * d * d + 1  # noqa: E731
    far = lambda d: ((a * d - 5 * a) * d + 8 * a) * d - 4 * a  # noqa: E731
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _taps(c, n, mode, padding_mode, align_corners):
    """[(index, weight)] along one dim: nearest 1 tap, bilinear 2, bicubic 4."""
    if mode == "nearest":
        return [(np.rint(_bounded(c, n, padding_mode, align_corners)), 1.0)]
    if mode == "bilinear":
        c = _bounded(c, n, padding_mode, align_corners)
        lo = np.floor(c)
        return [(lo, 1 - (c - lo)), (lo + 1, c - lo)]
    lo = np.floor(c)
    return [(_bounded(lo - 1 + k, n, padding_mode, align_corners), w)
            for k, w in enumerate(_cubic(c - lo))]


def grid_sample(x, grid, mode, padding_mode, align_corners):
    """torch's grid_sample of (N, C, H, W) (bilinear, nearest, bicubic) or (N, C, D, H, W)
    inputs (bilinear, nearest); zeros / border / reflection padding."""
    nsp, size = x.ndim - 2, x.shape[2:]
    unnorm = [(grid[..., nsp - 1 - d] + 1) / 2 * (size[d] - 1) if align_corners
              else ((grid[..., nsp - 1 - d] + 1) * size[d] - 1) / 2 for d in range(nsp)]
    batch = np.arange(x.shape[0]).reshape((-1,) + (1,) * nsp)
    out = 0
    for combo in itertools.product(*[_taps(c, n, mode, padding_mode, align_corners)
                                     for c, n in zip(unnorm, size)]):
        idx = [i.astype(np.int64) for i, _ in combo]
        valid = np.all([(i >= 0) & (i < n) for i, n in zip(idx, size)], 0)
        v = x[(batch, slice(None)) + tuple(np.clip(i, 0, n - 1) for i, n in zip(idx, size))]
        weight = np.asarray(math.prod(w for _, w in combo))[..., None]
        out = out + np.where(valid[..., None], v, 0) * weight
    return np.moveaxis(out, -1, 1).astype(x.dtype)


def _linear_matrix(n, out):
    """(out, n) align_corners=True linear interpolation weights."""
    m = np.zeros((out, n))
    src = np.arange(out) * ((n - 1) / (out - 1) if out > 1 else 0.0)
    lo = np.minimum(np.floor(src).astype(int), n - 1)
    hi = np.minimum(lo + 1, n - 1)
    m[np.arange(out), lo] += 1 - (src - lo)
    m[np.arange(out), hi] += src - lo
    return m


def upsample_bilinear(x, size=None, scale_factor=None):
    """torch's upsample_bilinear: bilinear interpolation with align_corners=True."""
    h, w = x.shape[-2:]
    oh, ow = _tup(size, 2) if size is not None else (h * scale_factor, w * scale_factor)
    return np.einsum("ih,nchw,jw->ncij", _linear_matrix(h, oh), x,
                     _linear_matrix(w, ow)).astype(x.dtype)


def channel_shuffle(x, groups):
    n, c = x.shape[:2]
    return x.reshape((n, groups, c // groups) + x.shape[2:]).swapaxes(1, 2).reshape(x.shape)


# ----------------------------------------------------------------------------- losses

def _reduce(v, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": np.asarray}[reduction](v)


def _ctc_one(lp, tgt, blank):
    ext = [blank]
    for t in tgt:
        ext += [int(t), blank]
    alpha = np.full(len(ext), -np.inf)
    alpha[0] = lp[0, blank]
    if len(ext) > 1:
        alpha[1] = lp[0, ext[1]]
    for t in range(1, len(lp)):
        prev = alpha
        alpha = np.full(len(ext), -np.inf)
        for s, label in enumerate(ext):
            terms = [prev[s]] + ([prev[s - 1]] if s >= 1 else []) + (
                [prev[s - 2]] if s >= 2 and label != blank and label != ext[s - 2] else [])
            alpha[s] = scipy.special.logsumexp(terms) + lp[t, label]
    return -scipy.special.logsumexp(alpha[-2:])


def ctc_loss(lp, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """torch's ctc_loss of (T, N, C) log-probabilities and padded (N, S) targets."""
    with np.errstate(all="ignore"):
        losses = np.array([_ctc_one(lp[:input_lengths[b], b], targets[b, :target_lengths[b]],
                                    blank) for b in range(lp.shape[1])], lp.dtype)
    if zero_infinity:
        losses = np.where(np.isinf(losses), 0, losses).astype(lp.dtype)
    if reduction == "mean":
        return np.mean(losses / np.maximum(np.asarray(target_lengths), 1)).astype(lp.dtype)
    return _reduce(losses, reduction).astype(lp.dtype)


def embedding_bag(i, w, mode="mean"):
    return {"sum": np.sum, "mean": np.mean, "max": np.max}[mode](w[i], axis=1)


def embedding_bag_offsets(i, w, offsets):
    ends = list(offsets[1:]) + [len(i)]
    return np.stack([w[i[s:e]].sum(0) if e > s else np.zeros(w.shape[1], w.dtype)
                     for s, e in zip(offsets, ends)])


def local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0):
    """torch's local_response_norm: x / (k + alpha * mean of x^2 over `size` channels)^beta, the
    channel window zero-padded by size // 2 before and (size - 1) // 2 after."""
    c = x.shape[1]
    sq = np.pad(x * x, [(0, 0), (size // 2, (size - 1) // 2)] + [(0, 0)] * (x.ndim - 2))
    div = sum(sq[:, i:i + c] for i in range(size)) / size
    return x / (div * alpha + k) ** beta


def multilabel_margin_loss(x, target, reduction="mean"):
    """torch's multilabel_margin_loss: the targets are a row's labels before its first -1;
    sum over target j and non-target i of max(0, 1 - (x[j] - x[i])), over C."""
    xb, tb = np.atleast_2d(x), np.atleast_2d(target)
    out = []
    for row, t in zip(xb, tb):
        labels = list(t[:np.argmax(t < 0)] if (t < 0).any() else t)
        others = np.ones(len(row), bool)
        others[labels] = False
        out.append(sum(np.maximum(0, 1 - (row[j] - row[others])).sum() for j in labels)
                   / len(row))
    out = np.array(out, x.dtype)
    return _reduce(out if x.ndim == 2 else out[0], reduction)


def linear_cross_entropy(x, w, t, b=None, reduction="mean"):
    logits = x @ w.T + (0 if b is None else b)
    lp = logits - scipy.special.logsumexp(logits, -1, keepdims=True)
    return _reduce(-np.take_along_axis(np.atleast_2d(lp), np.atleast_1d(t)[:, None], 1)[:, 0],
                   reduction)


def grouped_mm(a, b, offs):
    """torch's grouped_mm (rows past offs[-1] zero)."""
    if offs is None:
        return a @ b
    ends = list(offs)
    starts = [0] + ends[:-1]
    if a.ndim == 2 and b.ndim == 3:
        out = np.zeros((a.shape[0], b.shape[2]), np.result_type(a, b))
        for g, (s, e) in enumerate(zip(starts, ends)):
            out[s:e] = a[s:e] @ b[g]
        return out
    if a.ndim == 3:
        out = np.zeros((a.shape[1], b.shape[1]), np.result_type(a, b))
        for g, (s, e) in enumerate(zip(starts, ends)):
            out[:, s:e] = a[g] @ b[:, s:e]
        return out
    return np.stack([a[:, s:e] @ b[s:e] for s, e in zip(starts, ends)])
