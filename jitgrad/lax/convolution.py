"""lax.conv_general_dilated and its conveniences (conv, conv_with_general_padding,
conv_transpose), with JAX's dimension numbers, padding, lhs/rhs dilation and feature/batch
groups, for any number of spatial dimensions.

Layouts are permuted to (N, C, spatial...) x (O, I, spatial...) first. The plain 2-D case
(no dilation, one group) runs as `conv_runs` (im2col on stride phases, one GEMM), the lowering
jitgrad.nn.functional.conv2d uses too; every other case pads (lhs dilation = interior padding),
gathers all windows with one `take` of precomputed indices and contracts them with the kernel in
one batched matmul over the groups."""
from __future__ import annotations

import collections
import math

import numpy as np

from .. import numpy as jnp
from ..eager.dispatch import apply
from ..ir import Op
from ..numpy._convert import asarray
from ..transforms.fused_eager import fused_in_eager
from .data_movement import pad
from .windows import dilate, padtype_to_pads, window_indices

ConvDimensionNumbers = collections.namedtuple("ConvDimensionNumbers",
                                              ["lhs_spec", "rhs_spec", "out_spec"])
ConvDimensionNumbers.__doc__ = ("Dimension indices of (batch, feature, spatial...) of lhs and "
                                "output and (out feature, in feature, spatial...) of rhs.")


def conv_general_permutations(dimension_numbers):
    """Specs as strings ('NCHW', 'OIHW', 'NCHW') -> index permutations; spatial dimensions are
    ordered as they appear in the rhs spec."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(charpairs):
        if not dimension_numbers[i].count(a) == dimension_numbers[i].count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"'{a}' and '{b}' exactly once, got {dimension_numbers[i]}.")
        if len(dimension_numbers[i]) != len(set(dimension_numbers[i])):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {dimension_numbers[i]}.")
    if not (set(lhs_spec) - set("NC") == set(rhs_spec) - set("OI") == set(out_spec) - set("NC")):
        raise TypeError(f"convolution dimension_numbers elements must each have the same set "
                        f"of spatial characters, got {dimension_numbers}.")

    def perm(spec, pair):
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_spec:
            spatial = sorted(spatial, key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)
    return tuple(perm(s, p) for s, p in zip(dimension_numbers, charpairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers):
    """None (NCHW/OIHW/NCHW order), a ConvDimensionNumbers, or three spec strings."""
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got "
                        f"{len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if (isinstance(dimension_numbers, (tuple, list)) and len(dimension_numbers) == 3
            and all(isinstance(s, str) for s in dimension_numbers)):
        for spec, shape, what in zip(dimension_numbers, (lhs_shape, rhs_shape, lhs_shape),
                                     ("lhs", "rhs", "out")):
            if len(spec) != len(shape):
                raise TypeError(f"convolution dimension_numbers {what} spec {spec!r} must have "
                                f"one character per dimension of the rank-{len(shape)} operands")
        return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))
    if isinstance(dimension_numbers, (tuple, list)) and len(dimension_numbers) == 3:
        return ConvDimensionNumbers(*(tuple(int(i) for i in s) for s in dimension_numbers))
    raise TypeError(f"convolution dimension_numbers must be None, a ConvDimensionNumbers or a "
                    f"tuple of three spec strings such as ('NCHW', 'OIHW', 'NCHW'), got "
                    f"{dimension_numbers!r}")


def _positive(v, n, what):
    out = (1,) * n if v is None else tuple(int(i) for i in v)
    if len(out) != n or any(i < 1 for i in out):
        raise ValueError(f"conv_general_dilated {what} must be {n} positive ints (one per "
                         f"spatial dimension), got {v!r}")
    return out


def _check_groups(lhs, rhs, groups, batch_groups):
    c, n = lhs.shape[1], lhs.shape[0]
    o, i = rhs.shape[0], rhs.shape[1]
    if groups < 1:
        raise ValueError(f"conv_general_dilated feature_group_count must be a positive "
                         f"integer, got {groups}.")
    if c % groups:
        raise ValueError(f"conv_general_dilated feature_group_count must divide lhs feature "
                         f"dimension size, but {groups} does not divide {c}.")
    if c // groups != i:
        raise ValueError(f"conv_general_dilated lhs feature dimension size divided by "
                         f"feature_group_count must equal the rhs input feature dimension "
                         f"size, but {c} // {groups} != {i}.")
    if o % groups:
        raise ValueError(f"conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of feature_group_count, but {o} is not a multiple of "
                         f"{groups}.")
    if batch_groups < 1:
        raise ValueError(f"conv_general_dilated batch_group_count must be a positive integer, "
                         f"got {batch_groups}.")
    if n % batch_groups:
        raise ValueError(f"conv_general_dilated batch_group_count must divide lhs batch "
                         f"dimension size, but {batch_groups} does not divide {n}.")
    if o % batch_groups:
        raise ValueError(f"conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of batch_group_count, but {o} is not a multiple of "
                         f"{batch_groups}.")
    if groups > 1 and batch_groups > 1:
        raise ValueError(f"At most one of batch_group_count and feature_group_count may be > "
                         f"1, got batch_group_count={batch_groups} and "
                         f"feature_group_count={groups}")


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None):
    """General N-d convolution (cross-correlation) with JAX's arguments and semantics.
    padding: 'SAME', 'SAME_LOWER', 'VALID' or one (low, high) pair per spatial dimension
    (negative values crop); lhs_dilation = transposed-convolution strides."""
    lhs, rhs = asarray(lhs), asarray(rhs)
    dn = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    if lhs.ndim < 2:
        raise TypeError(f"conv_general_dilated needs operands of rank >= 2, got "
                        f"{tuple(lhs.shape)}")
    nsp = lhs.ndim - 2
    strides = _positive(window_strides, nsp, "window_strides")
    ldil = _positive(lhs_dilation, nsp, "lhs_dilation")
    rdil = _positive(rhs_dilation, nsp, "rhs_dilation")
    if preferred_element_type is not None:
        lhs, rhs = jnp.astype(lhs, preferred_element_type), jnp.astype(rhs, preferred_element_type)
    x = jnp.transpose(lhs, dn.lhs_spec)                    # (N, C, spatial...)
    w = jnp.transpose(rhs, dn.rhs_spec)                    # (O, I, spatial...)
    kernel = tuple(w.shape[2:])
    if isinstance(padding, str):
        if any(d != 1 for d in ldil):
            raise ValueError("String padding is not implemented for transposed convolution "
                             "using this op. Please either exactly specify the required padding "
                             "or use conv_transpose.")
        pads = padtype_to_pads(x.shape[2:], [dilate(k, d) for k, d in zip(kernel, rdil)],
                               strides, padding)
    else:
        try:
            pads = [(int(lo), int(hi)) for lo, hi in padding]
        except (TypeError, ValueError) as e:
            raise ValueError(f"padding argument to conv_general_dilated should be a string or "
                             f"a sequence of (low, high) pairs, got {padding}") from e
        if len(pads) != nsp:
            raise ValueError(f"conv_general_dilated padding must have one (low, high) pair per "
                             f"spatial dimension ({nsp}), got {padding}")
    _check_groups(x, w, int(feature_group_count), int(batch_group_count))
    x = pad(x, jnp.zeros((), x.dtype), [(0, 0, 0), (0, 0, 0)] +
            [(lo, hi, d - 1) for (lo, hi), d in zip(pads, ldil)])
    out_hw = tuple((x.shape[2 + i] - w.shape[2 + i]) // strides[i] + 1 for i in range(nsp))
    if nsp == 2 and rdil == (1, 1) and feature_group_count == 1 and batch_group_count == 1 \
            and min(out_hw) > 0:
        out = conv_runs(x, w, None, ((0, 0), (0, 0)), out_hw, tuple(strides), (1, 1))
    else:
        out = _grouped_conv(x, w, strides, rdil, int(feature_group_count),
                            int(batch_group_count))
    return jnp.transpose(out, tuple(np.argsort(dn.out_spec)))


def _grouped_conv(x, w, strides, rdil, groups, batch_groups):
    """(N, C, *S) x (O, C/groups, *K) -> (N/batch_groups, O, *out) by gather + batched matmul."""
    n, c = x.shape[:2]
    o, ci = w.shape[:2]
    kernel = tuple(w.shape[2:])
    k = math.prod(kernel)
    idx = window_indices(tuple(x.shape[2:]), kernel, strides, rdil)   # (*out, K)
    out_spatial = idx.shape[:-1]
    p = math.prod(out_spatial)
    cols = jnp.take(jnp.reshape(x, (n, c, -1)), np.reshape(idx, (p, k)), axis=2)  # (N,C,P,K)
    g = groups * batch_groups
    if batch_groups > 1:       # batch group b meets output features b*O/B..(b+1)*O/B
        nb = n // batch_groups
        cols = jnp.reshape(cols, (batch_groups, nb, c, p, k))
        cols = jnp.reshape(jnp.transpose(cols, (0, 1, 3, 2, 4)), (g, nb * p, c * k))
    else:
        nb = n
        cols = jnp.reshape(cols, (n, groups, ci, p, k))
        cols = jnp.reshape(jnp.transpose(cols, (1, 0, 3, 2, 4)), (g, n * p, ci * k))
    kern = jnp.transpose(jnp.reshape(w, (g, o // g, ci * k)), (0, 2, 1))     # (G, Ci*K, O/G)
    out = jnp.matmul(cols, kern)                                           # (G, Nb*P, O/G)
    out = jnp.transpose(jnp.reshape(out, (g, nb, p, o // g)), (1, 0, 3, 2))  # (Nb, G, O/G, P)
    return jnp.reshape(out, (nb, o) + tuple(out_spatial))


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """NCHW x OIHW convolution with strides and padding only."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """jax.lax.conv_with_general_padding: conv_general_dilated with explicit (lo, hi) padding and
    NCHW/OIHW layouts."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                                precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k, s, padding):
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else int(np.ceil(pad_len / 2))
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        pad_a, pad_len = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return pad_a, pad_len - pad_a


_TRANSPOSE_DEFAULTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                       4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None,
                   use_consistent_padding=False):
    """The fractionally strided convolution (JAX's conv_transpose, Keras' Conv2DTranspose
    output sizes): lhs dilated by `strides`. Default layout NHWC/HWIO; transpose_kernel flips
    the kernel's spatial axes and swaps its I/O axes (the gradient of a forward conv)."""
    lhs, rhs = asarray(lhs), asarray(rhs)
    ndim = lhs.ndim
    if dimension_numbers is None:
        if ndim not in _TRANSPOSE_DEFAULTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _TRANSPOSE_DEFAULTS[ndim]
    dn = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    k_sdims = [rhs.shape[d] for d in dn.rhs_spec[2:]]
    rhs_dilation = (1,) * (ndim - 2) if rhs_dilation is None else tuple(rhs_dilation)
    if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
        per_dim = [padding] * len(strides) if isinstance(padding, str) else \
            [tuple(p) for p in padding]
        pads = tuple(_conv_transpose_padding(dilate(k, r), s, p)
                     for k, r, s, p in zip(k_sdims, rhs_dilation, strides, per_dim))
    else:
        pads = padding
    if transpose_kernel:
        rhs = jnp.flip(rhs, axis=tuple(dn.rhs_spec[2:]))
        rhs = jnp.swapaxes(rhs, dn.rhs_spec[0], dn.rhs_spec[1])
    return conv_general_dilated(lhs, rhs, (1,) * (ndim - 2), pads, strides, rhs_dilation, dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)


def fit_axis(x, axis, size):
    """x padded with zeros or cropped along `axis` to `size`."""
    have = x.shape[axis]
    if have < size:
        pad = [(0, 0)] * x.ndim
        pad[axis] = (0, size - have)
        return jnp.pad(x, pad)
    return x if have == size else x[(slice(None),) * axis + (slice(0, size),)]


@fused_in_eager("x", "weight", "bias")     # eagerly: one compiled call once hot
def conv_runs(x, weight, bias, pads, out_hw, stride, dilation):
    """One group, any stride: the padded image split into its sh*sw stride phases
    (N, sh, sw, C, HQ, WQ), each flattened per channel; tap (i, j) reads ONE contiguous run of
    OH*WQ values of phase (i*dh % sh, j*dw % sw) from (i*dh // sh)*WQ + j*dw // sw (the output
    computed on full phase rows, the spare columns cropped after the GEMM). One im2col joins the
    taps on axis 1 as (N, K*C, OH*WQ), the GEMM's operand as it is, with the weight's columns
    ordered tap-major; its gradient is one col2im. Stride 1 has one phase and needs no
    transpose."""
    (oh, ow), (sh, sw), (dh, dw) = out_hw, stride, dilation
    n, c = x.shape[:2]
    out_c, _, kh, kw = weight.shape
    taps = [((i * dh) % sh * sw + (j * dw) % sw, (i * dh) // sh, (j * dw) // sw)
            for i in range(kh) for j in range(kw)]
    hq = max(t[1] for t in taps) + oh + 1          # a spare phase row: the last runs' overhang
    wq = max(t[2] for t in taps) + ow
    # to exactly (sh*HQ, sw*WQ) with ONE pad (the user's bottom/right padding is zeros too),
    # cropping an axis only where the padded image is longer
    h_hi, w_hi = sh * hq - x.shape[2] - pads[0][0], sw * wq - x.shape[3] - pads[1][0]
    x = jnp.pad(x, ((0, 0), (0, 0), (pads[0][0], max(h_hi, 0)), (pads[1][0], max(w_hi, 0))))
    x = fit_axis(fit_axis(x, 2, sh * hq), 3, sw * wq)
    if (sh, sw) == (1, 1):
        phases = jnp.reshape(x, (n, c, hq * wq))
    else:
        phases = jnp.transpose(jnp.reshape(x, (n, c, hq, sh, wq, sw)), (0, 3, 5, 1, 2, 4))
        phases = jnp.reshape(phases, (n, sh * sw * c, hq * wq))
    starts = tuple((p * c, qi * wq + qj) for p, qi, qj in taps)
    cols = apply(Op.im2col, [phases], {"starts": starts, "rows": c, "length": oh * wq})
    w2 = jnp.reshape(jnp.transpose(weight, (0, 2, 3, 1)), (out_c, kh * kw * c))
    out = jnp.matmul(w2, cols)                                               # (N, O, OH*WQ)
    if bias is not None:
        out = jnp.add(out, jnp.reshape(asarray(bias), (out_c, 1)))
    out = jnp.reshape(out, (n, out_c, oh, wq))
    return out if ow == wq else out[:, :, :, :ow]
