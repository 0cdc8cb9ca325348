"""Trigonometric functions and their inverses as LLVM IR, for the LLVM kernel units.

float32: branch-free versions (the algorithms and constants of jitgrad's former numba math
library, so the same bits): Payne-Hanek reduction by pi/2 in 64-bit integer arithmetic over a 96-bit window
of 2/pi picked by the exponent (a table gather, so every float32 reduces exactly), Cephes
polynomials on [-pi/4, pi/4], Cephes atanf/asinf with two-part constants.

float64: atan, asin, acos and atan2 are Cephes' double-precision rational forms (branch-free,
vectorizable); sin, cos and tan call libm through LLVM's intrinsics
(no vectorizable float64 reduction yet: one scalar call per element).
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from .llvm_math import F32, F64, I32, I64, copysign, fabs, fconst, intrinsic, poly, sel

_TAN_PIO8, _TAN_3PIO8 = 0.4142135623730950, 2.414213562373095


def _two_over_pi_bits(n):
    """floor(2/pi * 2**n), with pi from Machin's formula in integer arithmetic."""
    one = 1 << (2 * n + 64)

    def atan_inv(k):
        total, power, i, sign = 0, one // k, 1, 1
        while power:
            total += sign * (power // i)
            power //= k * k
            i, sign = i + 2, -sign
        return total
    return (2 * one << n) // (16 * atan_inv(5) - 4 * atan_inv(239))


def _windows():
    """Per float32 biased exponent e, bits [e - 56 - 96, e - 56) of 2/pi as three 32-bit words."""
    bits = _two_over_pi_bits(260)
    out = ([], [], [])
    for e in range(256):
        w = (bits >> (260 - (e - 56))) & (2 ** 96 - 1)
        for k, word in enumerate((w >> 64, (w >> 32) & 0xFFFFFFFF, w & 0xFFFFFFFF)):
            out[k].append(word)
    return out


_WINDOWS = _windows()


def _f32(v):
    return fconst(F32, float(np.float32(v)))


def _split(v, ty):
    """(hi, lo): v rounded to the type, and the rest rounded to it (hi + lo rounds once)."""
    hi = float(np.float32(v)) if ty == F32 else float(v)
    lo = float(np.float32(v - hi)) if ty == F32 else 0.0
    return fconst(ty, hi), fconst(ty, lo)


def _table(b, k):
    name = f"jg_two_over_pi_{k}"
    g = b.module.globals.get(name)
    if g is None:
        ty = ir.ArrayType(I32, 256)
        g = ir.GlobalVariable(b.module, ty, name=name)
        g.initializer = ir.Constant(ty, [ir.Constant(I32, int(w) - (1 << 32) if w >= 1 << 31
                                                          else int(w)) for w in _WINDOWS[k]])
        g.global_constant = True
        g.linkage = "internal"
    return g


def _reduce_pio2_f32(b, a):
    """(q & 3 as i32, r) with a = q pi/2 + r, |r| <= pi/4, for a = |x|."""
    bits = b.bitcast(a, I32)
    e = b.zext(b.lshr(bits, ir.Constant(I32, 23)), I64)
    m = b.zext(b.or_(b.and_(bits, ir.Constant(I32, 0x7FFFFF)), ir.Constant(I32, 0x800000)), I64)
    hi, mid, lo = (b.zext(b.load(b.gep(_table(b, k), [ir.Constant(I64, 0), e], inbounds=True)), I64)
                   for k in range(3))
    u32 = ir.Constant(I64, 32)
    fixed = b.add(b.add(b.shl(b.mul(m, hi), u32), b.mul(m, mid)), b.lshr(b.mul(m, lo), u32))
    q = b.lshr(b.add(fixed, ir.Constant(I64, 1 << 61)), ir.Constant(I64, 62))
    frac = b.sub(fixed, b.shl(q, ir.Constant(I64, 62)))
    r = b.fptrunc(b.fmul(b.sitofp(frac, F64), fconst(F64, np.pi / 2 * 2.0 ** -62)), F32)
    small = b.fcmp_ordered("<=", a, _f32(np.pi / 4))
    q3 = b.and_(b.trunc(q, I32), ir.Constant(I32, 3))
    return sel(b, small, ir.Constant(I32, 0), q3), sel(b, small, a, r)


_SIN_P32 = (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)
_COS_P32 = (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2)
_TAN_P32 = (9.38540185543e-3, 3.11992232697e-3, 2.44301354525e-2, 5.34112807005e-2,
            1.33387994085e-1, 3.33331568548e-1)


def _poly32(b, x, coeffs):
    return poly(b, x, [float(np.float32(c)) for c in coeffs])


def _sin_cos_reduced_f32(b, r):
    z = b.fmul(r, r)
    s = b.fadd(r, b.fmul(b.fmul(r, z), _poly32(b, z, _SIN_P32)))
    c = b.fadd(b.fsub(b.fmul(b.fmul(z, z), _poly32(b, z, _COS_P32)), b.fmul(_f32(0.5), z)),
               _f32(1))
    return s, c


def _flip(b, v, sign):
    """v with its sign bit xor-ed with the i32 `sign` (0 or 0x80000000)."""
    return b.bitcast(b.xor(b.bitcast(v, I32), sign), F32)


def _sign_bits(b, x):
    return b.and_(b.bitcast(x, I32), ir.Constant(I32, -(1 << 31)))


def _finite_or_nan(b, x, a, res):
    """res where |x| is finite, else NaN (x - x)."""
    return sel(b, b.fcmp_ordered("<", a, fconst(x.type, float("inf"))), res, b.fsub(x, x))


def _odd(b, q):
    return b.icmp_unsigned("!=", b.and_(q, ir.Constant(I32, 1)), ir.Constant(I32, 0))


def sin_f32(b, x):
    a = fabs(b, x)
    q, r = _reduce_pio2_f32(b, a)
    s, c = _sin_cos_reduced_f32(b, r)
    sign = b.xor(b.shl(b.and_(q, ir.Constant(I32, 2)), ir.Constant(I32, 30)), _sign_bits(b, x))
    return _finite_or_nan(b, x, a, _flip(b, sel(b, _odd(b, q), c, s), sign))


def cos_f32(b, x):
    a = fabs(b, x)
    q, r = _reduce_pio2_f32(b, a)
    s, c = _sin_cos_reduced_f32(b, r)
    sign = b.shl(b.and_(b.add(q, ir.Constant(I32, 1)), ir.Constant(I32, 2)), ir.Constant(I32, 30))
    return _finite_or_nan(b, x, a, _flip(b, sel(b, _odd(b, q), s, c), sign))


def tan_f32(b, x):
    a = fabs(b, x)
    q, r = _reduce_pio2_f32(b, a)
    z = b.fmul(r, r)
    t = b.fadd(r, b.fmul(b.fmul(r, z), _poly32(b, z, _TAN_P32)))
    t = sel(b, _odd(b, q), b.fdiv(_f32(-1), t), t)       # tan(r + pi/2) = -1/tan(r)
    return _finite_or_nan(b, x, a, _flip(b, t, _sign_bits(b, x)))


_ATAN_P32 = (8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1)
_ASIN_P32 = (4.2163199048e-2, 2.4181311049e-2, 4.5470025998e-2, 7.4953002686e-2, 1.6666752422e-1)


def _atan_nonneg_f32(b, a):
    """atan(a) for a >= 0 or NaN."""
    one = _f32(1)
    big = b.fcmp_ordered(">", a, _f32(_TAN_3PIO8))
    mid = b.fcmp_ordered(">", a, _f32(_TAN_PIO8))
    num = sel(b, big, _f32(-1), sel(b, mid, b.fsub(a, one), a))
    t = b.fdiv(num, sel(b, big, a, sel(b, mid, b.fadd(a, one), one)))
    z = b.fmul(t, t)
    res = b.fadd(t, b.fmul(b.fmul(t, z), _poly32(b, z, _ATAN_P32)))
    pio2, pio2_lo = _split(np.pi / 2, F32)
    pio4, pio4_lo = _split(np.pi / 4, F32)
    return sel(b, big, b.fadd(pio2, b.fadd(pio2_lo, res)),
               sel(b, mid, b.fadd(pio4, b.fadd(pio4_lo, res)), res))


def atan_f32(b, x):
    return copysign(b, _atan_nonneg_f32(b, fabs(b, x)), x)


def atan2_f32(b, y, x):
    return _atan2(b, y, x, _atan_nonneg_f32, I32)


def _atan2(b, y, x, atan_nonneg, it):
    """atan2 from atan of a ratio in [0, 1], in x's float type."""
    ty = x.type
    zero, one, inf = fconst(ty, 0), fconst(ty, 1), fconst(ty, float("inf"))
    ax, ay = fabs(b, x), fabs(b, y)
    swap = b.fcmp_ordered(">", ay, ax)
    t = b.fdiv(sel(b, swap, ax, ay), sel(b, swap, ay, ax))
    t = sel(b, b.and_(b.fcmp_ordered("==", ax, zero), b.fcmp_ordered("==", ay, zero)), zero, t)
    t = sel(b, b.and_(b.fcmp_ordered("==", ax, inf), b.fcmp_ordered("==", ay, inf)), one, t)
    a = atan_nonneg(b, t)
    neg = b.icmp_signed("<", b.bitcast(x, it), ir.Constant(it, 0))     # x < 0 or x = -0.0
    a = sel(b, b.icmp_unsigned("==", swap, neg), a, b.fneg(a))
    pio2, pio2_lo = _split(np.pi / 2, ty)
    pi, pi_lo = _split(np.pi, ty)
    res = sel(b, swap, b.fadd(pio2, b.fadd(pio2_lo, a)), sel(b, neg, b.fadd(pi, b.fadd(pi_lo, a)), a))
    return copysign(b, res, y)


def _asin_parts_f32(b, a):
    half, one = _f32(0.5), _f32(1)
    big = b.fcmp_ordered(">", a, half)
    z = sel(b, big, b.fmul(half, b.fsub(one, a)), b.fmul(a, a))
    s = sel(b, big, intrinsic(b, "llvm.sqrt", F32, z), a)
    return b.fadd(s, b.fmul(b.fmul(s, z), _poly32(b, z, _ASIN_P32))), big


def asin_f32(b, x):
    p, big = _asin_parts_f32(b, fabs(b, x))
    pio2, pio2_lo = _split(np.pi / 2, F32)
    return copysign(b, sel(b, big, b.fadd(pio2, b.fsub(pio2_lo, b.fadd(p, p))), p), x)


def acos_f32(b, x):
    p, big = _asin_parts_f32(b, fabs(b, x))
    pio2, pio2_lo = _split(np.pi / 2, F32)
    pi, pi_lo = _split(np.pi, F32)
    twice = b.fadd(p, p)
    above = sel(b, b.fcmp_ordered(">", x, _f32(0)), twice, b.fadd(pi, b.fsub(pi_lo, twice)))
    return sel(b, big, above, b.fadd(pio2, b.fsub(pio2_lo, copysign(b, p, x))))


# ----------------------------------------------------------------------------- float64

# Cephes atan.c: atan t = t + t**3 P(t**2) / Q(t**2) on [0, 0.66], with
# t reduced by atan(a) = pi/2 - atan(1/a) above tan(3pi/8) and pi/4 + atan((a-1)/(a+1)) above 0.66
_ATAN_P64 = (-8.750608600031904122785e-1, -1.615753718733365076637e1, -7.500855792314704667340e1,
             -1.228866684490136173410e2, -6.485021904942025371773e1)
_ATAN_Q64 = (1.0, 2.485846490142306297962e1, 1.650270098316988542046e2, 4.328810604912902668951e2,
             4.853903996359136964868e2, 1.945506571482613964425e2)
_MOREBITS = 6.123233995736765886130e-17       # pi/2 = PIO2 + MOREBITS


def _atan_nonneg_f64(b, a):
    one = fconst(F64, 1)
    big = b.fcmp_ordered(">", a, fconst(F64, _TAN_3PIO8))
    mid = b.fcmp_ordered(">", a, fconst(F64, 0.66))
    num = sel(b, big, fconst(F64, -1), sel(b, mid, b.fsub(a, one), a))
    t = b.fdiv(num, sel(b, big, a, sel(b, mid, b.fadd(a, one), one)))
    base = sel(b, big, fconst(F64, np.pi / 2), sel(b, mid, fconst(F64, np.pi / 4), fconst(F64, 0)))
    extra = sel(b, big, fconst(F64, _MOREBITS), sel(b, mid, fconst(F64, 0.5 * _MOREBITS),
                                                     fconst(F64, 0)))
    z = b.fmul(t, t)
    w = b.fadd(b.fmul(t, b.fdiv(b.fmul(z, poly(b, z, _ATAN_P64)), poly(b, z, _ATAN_Q64))), t)
    return b.fadd(base, b.fadd(w, extra))


def atan_f64(b, x):
    return copysign(b, _atan_nonneg_f64(b, fabs(b, x)), x)


def atan2_f64(b, y, x):
    return _atan2(b, y, x, _atan_nonneg_f64, I64)


# Cephes asin.c: asin a = a + a**3 P(a**2)/Q(a**2) for a <= 0.625; above, with z = 1 - a,
# asin a = (pi/4 - sqrt(2z)) - (sqrt(2z) z R(z)/S(z) - MOREBITS) + pi/4
_ASIN_P64 = (4.253011369004428248960e-3, -6.019598008014123785661e-1, 5.444622390564711410273e0,
             -1.626247967210700244449e1, 1.956261983317594739197e1, -8.198089802484824371615e0)
_ASIN_Q64 = (1.0, -1.474091372988853791896e1, 7.049610280856842141659e1,
             -1.471791292232726029859e2, 1.395105614657485689735e2, -4.918853881490881290097e1)
_ASIN_R64 = (2.967721961301243206100e-3, -5.634242780008963776856e-1, 6.968710824104713396794e0,
             -2.556901049652824852289e1, 2.853665548261061424989e1)
_ASIN_S64 = (1.0, -2.194779531642920639778e1, 1.470656354026814941758e2,
             -3.838770957603691357202e2, 3.424398657913078477438e2)


def _asin_nonneg_f64(b, a):
    """asin(a) for 0 <= a <= 1 (NaN above)."""
    one = fconst(F64, 1)
    zz = b.fsub(one, a)
    r = b.fdiv(b.fmul(zz, poly(b, zz, _ASIN_R64)), poly(b, zz, _ASIN_S64))
    sq = intrinsic(b, "llvm.sqrt", F64, b.fadd(zz, zz))
    big = b.fsub(b.fsub(fconst(F64, np.pi / 4), sq), b.fsub(b.fmul(sq, r), fconst(F64, _MOREBITS)))
    big = b.fadd(big, fconst(F64, np.pi / 4))
    z = b.fmul(a, a)
    small = b.fadd(a, b.fmul(b.fmul(a, z), b.fdiv(poly(b, z, _ASIN_P64), poly(b, z, _ASIN_Q64))))
    return sel(b, b.fcmp_ordered(">", a, fconst(F64, 0.625)), big, small)


def asin_f64(b, x):
    a = fabs(b, x)
    res = _asin_nonneg_f64(b, a)
    return copysign(b, sel(b, b.fcmp_ordered(">", a, fconst(F64, 1)), fconst(F64, float("nan")),
                           res), x)


def acos_f64(b, x):
    """Cephes acos: 2 asin(sqrt((1 - x)/2)) above 1/2, else pi/2 - asin(x) in two parts."""
    half = fconst(F64, 0.5)
    s = intrinsic(b, "llvm.sqrt", F64, b.fsub(half, b.fmul(half, x)))
    above = b.fmul(fconst(F64, 2), _asin_nonneg_f64(b, s))
    rest = b.fadd(b.fadd(b.fsub(fconst(F64, np.pi / 4), asin_f64(b, x)), fconst(F64, _MOREBITS)),
                  fconst(F64, np.pi / 4))
    res = sel(b, b.fcmp_ordered(">", x, half), above, rest)
    return sel(b, b.fcmp_ordered(">", fabs(b, x), fconst(F64, 1)), fconst(F64, float("nan")), res)


def _libm(name):
    return lambda b, x: intrinsic(b, f"llvm.{name}", F64, x)


FUNCTIONS = {
    ("sin", "float32"): sin_f32, ("cos", "float32"): cos_f32, ("tan", "float32"): tan_f32,
    ("atan", "float32"): atan_f32, ("asin", "float32"): asin_f32, ("acos", "float32"): acos_f32,
    ("atan2", "float32"): atan2_f32,
    ("sin", "float64"): _libm("sin"), ("cos", "float64"): _libm("cos"),
    ("tan", "float64"): _libm("tan"),
    ("atan", "float64"): atan_f64, ("asin", "float64"): asin_f64, ("acos", "float64"): acos_f64,
    ("atan2", "float64"): atan2_f64,
}
