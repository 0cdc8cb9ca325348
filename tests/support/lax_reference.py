"""NumPy references of jax.lax's semantics (convolution, windows, pad, dynamic slices),
written independently of jitgrad with loops and slices."""
from __future__ import annotations

import itertools
import math

import numpy as np


def pad(x, value, config):
    """lax.pad: interior padding, then low/high (negative crops)."""
    for axis, (lo, hi, interior) in enumerate(config):
        n = x.shape[axis]
        if interior and n > 1:
            shape = list(x.shape)
            shape[axis] = n + (n - 1) * interior
            grown = np.full(shape, value, x.dtype)
            key = [slice(None)] * x.ndim
            key[axis] = slice(None, None, interior + 1)
            grown[tuple(key)] = x
            x = grown
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths, constant_values=value)
        key = [slice(None)] * x.ndim
        key[axis] = slice(-lo if lo < 0 else 0, x.shape[axis] + hi if hi < 0 else None)
        x = x[tuple(key)]
    return x


def same_pads(shape, window, strides, lower=False):
    pads = []
    for n, k, s in zip(shape, window, strides):
        total = max((math.ceil(n / s) - 1) * s + k - n, 0)
        pads.append((total - total // 2, total // 2) if lower else (total // 2, total - total // 2))
    return pads


def conv(x, w, strides, pads, lhs_dilation=None, rhs_dilation=None, groups=1):
    """NC[spatial] x OI[spatial] cross-correlation, one kernel offset at a time."""
    nsp = x.ndim - 2
    lhs_dilation = lhs_dilation or (1,) * nsp
    rhs_dilation = rhs_dilation or (1,) * nsp
    x = pad(x, 0.0, [(0, 0, 0), (0, 0, 0)] + [(lo, hi, d - 1) for (lo, hi), d
                                               in zip(pads, lhs_dilation)])
    kernel = w.shape[2:]
    out_sp = [(n - (d * (k - 1) + 1)) // s + 1
              for n, k, s, d in zip(x.shape[2:], kernel, strides, rhs_dilation)]
    n, c = x.shape[:2]
    o, ci = w.shape[:2]
    out = np.zeros((n, o) + tuple(out_sp))
    for offset in itertools.product(*(range(k) for k in kernel)):
        key = tuple(slice(k * d, k * d + s * (m - 1) + 1, s)
                    for k, d, s, m in zip(offset, rhs_dilation, strides, out_sp))
        patch = x[(slice(None), slice(None)) + key]           # (N, C, *out)
        wk = w[(slice(None), slice(None)) + offset]            # (O, Ci)
        for g in range(groups):
            og, cg = slice(g * o // groups, (g + 1) * o // groups), slice(g * ci, (g + 1) * ci)
            out[:, og] += np.einsum("nc...,oc->no...", patch[:, cg], wk[og])
    return out


def reduce_window(x, init, op, window, strides, pads, base=None, wdil=None):
    base = base or (1,) * x.ndim
    wdil = wdil or (1,) * x.ndim
    x = pad(x, init, [(lo, hi, b - 1) for (lo, hi), b in zip(pads, base)])
    out_shape = [(n - (d * (k - 1) + 1)) // s + 1
                 for n, k, s, d in zip(x.shape, window, strides, wdil)]
    out = np.empty(out_shape)
    for pos in np.ndindex(*out_shape):
        key = tuple(slice(p * s, p * s + d * (k - 1) + 1, d)
                    for p, s, k, d in zip(pos, strides, window, wdil))
        out[pos] = op(init, op.reduce(x[key], axis=None))
    return out


def dynamic_slice(x, starts, sizes):
    starts = [min(max(s + n if s < 0 else s, 0), n - z) for s, n, z in zip(starts, x.shape, sizes)]
    return x[tuple(slice(s, s + z) for s, z in zip(starts, sizes))]


def dynamic_update_slice(x, u, starts):
    starts = [min(max(s + n if s < 0 else s, 0), n - z) for s, n, z in zip(starts, x.shape, u.shape)]
    out = x.copy()
    out[tuple(slice(s, s + z) for s, z in zip(starts, u.shape))] = u
    return out


def conv_transpose_1d_valid(x, w, stride, transpose_kernel=False):
    """NHC x HIO, padding 'VALID': each input position scatters its kernel to
    out[i*stride + offset], flipped; with transpose_kernel unflipped and with I/O swapped (the
    gradient of a forward conv with that kernel, PyTorch's ConvTranspose)."""
    n, length, _ = x.shape
    k = w.shape[0]
    o = w.shape[1] if transpose_kernel else w.shape[2]
    out = np.zeros((n, length * stride + max(k - stride, 0), o))
    for i in range(length):
        for j in range(k):
            tap = w[j].T if transpose_kernel else w[k - 1 - j]
            out[:, i * stride + j] += x[:, i] @ tap
    return out
