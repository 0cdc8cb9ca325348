"""VJP and JVP rules of the complex-number ops (real, imag, conj, complex, abs of a complex
input) and of the Fourier transform, with JAX's conventions.

JAX's VJP is the plain transpose of the (real-)linear JVP map, with no conjugation: for a
holomorphic op the cotangent is g * f'(z), and grad of a real-valued f of complex z is
df/dx - i df/dy (grad(|z|**2) = 2 conj(z)). The transposes of the complex-part ops follow
from that: real -> complex(g, 0), imag -> complex(0, -g), conj -> conj(g), complex(x, y) ->
(real(g), -imag(g)). The DFT matrix is symmetric, so fft and ifft transpose to themselves;
rfft and irfft need the Hermitian weighting (JAX's _rfft_transpose / _irfft_transpose).
Every rule emits differentiable primitives, so all of them differentiate again.
"""
from __future__ import annotations

import math

import numpy as np

from ..ops import Op
from ..types import complex_dtype, is_complex


def _complex(e, re, im, like):
    """complex(re, im) where re or im may be None (zero); `like` gives the real type."""
    zeros = e.zeros(like.type)
    return e(Op.complex, zeros if re is None else re, zeros if im is None else im)


# ----------------------------------------------------------------------------- parts

def real_vjp(e, node, cts):
    return [_complex(e, cts[0], None, cts[0])]


def imag_vjp(e, node, cts):
    return [_complex(e, None, e.neg(cts[0]), cts[0])]


def complex_vjp(e, node, cts):
    g = cts[0]
    return [e(Op.real, g), e.neg(e(Op.imag, g))]


def complex_jvp(e, node, ts):
    tx, ty = ts
    like = tx if tx is not None else ty
    return [_complex(e, tx, ty, like)]


def _unit(e, node):
    """conj(z) / |z| (0 where z = 0, abs'(0) = 0 as for reals), complex; |z| is node's output."""
    (z,), r = node.inputs, node.output
    safe = e.select(e.eq(r, 0.0), 1.0, r)
    return e.div(e(Op.conj, z), e.convert(safe, z.type.dtype))


def on_complex(complex_rule, real_rule):
    """abs: the complex rule for a complex input, the elementwise one otherwise."""
    return lambda e, node, gs: (complex_rule if is_complex(node.inputs[0].type.dtype)
                                else real_rule)(e, node, gs)


def abs_vjp(e, node, cts):
    z = node.inputs[0]
    return [e.mul(e.convert(cts[0], z.type.dtype), _unit(e, node))]


def abs_jvp(e, node, ts):
    return [e(Op.real, e.mul(_unit(e, node), ts[0]))]


# ----------------------------------------------------------------------------- fft

def fft_jvp(e, node, ts):
    return [e(Op.fft, ts[0], **node.params)]


def fft_vjp(e, node, cts):
    g, kind, lengths = cts[0], node.params["fft_type"], tuple(node.params["lengths"])
    if kind in ("fft", "ifft"):
        return [e(Op.fft, g, fft_type=kind, lengths=lengths)]
    if kind == "rfft":
        # rfft = the first n//2+1 outputs of a complex fft of the real input: pad the cotangent
        # back to n, transpose the fft (itself), keep the real part (the transpose of real->complex)
        nd, n = g.type.ndim, lengths[-1]
        hi = (0,) * (nd - 1) + (n - g.type.shape[-1],)
        full = e(Op.pad, g, lo=(0,) * nd, hi=hi, value=0.0)
        return [e(Op.real, e(Op.fft, full, fft_type="fft", lengths=lengths))]
    # irfft: rfft of the cotangent, the non-edge bins counted twice (each stands for a
    # conjugate pair), scaled by 1/N and conjugated (JAX's _irfft_transpose)
    x = e(Op.fft, g, fft_type="rfft", lengths=lengths)
    m, odd = x.type.shape[-1], lengths[-1] % 2
    mask = np.concatenate([[1.0], np.full(m - 2 + odd, 2.0), np.ones(1 - odd)])
    w = e.const(mask / math.prod(lengths), complex_dtype(g.type.dtype))
    return [e(Op.conj, e.mul(x, w))]


def conj_vjp(e, node, cts):
    return [e(Op.conj, cts[0])]


def part_jvp(e, node, ts):
    """real, imag and conj are real-linear: the tangent goes through the op itself."""
    return [e(node.op, ts[0])]
