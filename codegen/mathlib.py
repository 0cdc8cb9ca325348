"""Vectorizable math functions for generated numba CPU kernels.

numba lowers math.exp/log/tanh/... to scalar libm calls, and with no SVML on
this machine LLVM cannot vectorize a loop around them. The functions here are
branch-free polynomial approximations (Cephes coefficients unless a comment
says otherwise), so that

    for i in range(n):
        out[i] = exp_f32(x[i])

compiles to packed AVX-512/AVX2 code. Generated kernels import them by name
(`<name>_f32`, `<name>_f64`, or the called `..._call` variants, see below);
`MATH` and `math_function` map (name, dtype) to them, with libm fallbacks
where no fast float64 version exists.

Rules that keep them vectorizable and in the right precision:
- Conditions are `a if cond else b` over values that are already computed;
  LLVM turns these into selects. Both sides are evaluated for every element.
- Division is `np.divide`: `/` carries numba's ZeroDivisionError check under
  the default error model, and that raise is a branch.
- float32 code uses only float32 constants: a Python float would promote the
  arithmetic to float64.

Callers may compile with fastmath={"contract"} (FMA contraction keeps every
function within its bounds) but not fastmath=True: reassociation undoes the
two-part constants and log1p's correction, and nnan/ninf drop the special cases.
"""

import math

import numpy as np
from numba import njit

from jitgrad.codegen.math_constants import (
    as_f32, ROUNDER32, ROUNDER64, ONE32, HALF32, TWO32, ZERO32, INF32, SIGN32, LOG2E32,
    LN2_HI32, LN2_LO32, EXP_P32, EXP_MIN32, EXP_MAX32, TANH_P32, LOG_P32, SQRT_HALF32,
    MIN_NORMAL32, INF64, LOG2E64, LN2_HI64, LN2_LO64, EXPM1_P64, EXP_MIN64, EXP_MAX64,
    LOG_R_EVEN64, LOG_R_ODD64, LN2_HI_LOG64, LN2_LO_LOG64)
from jitgrad.ir.primitives import RECORDS
from jitgrad.codegen.bitcast import bits_to_f32, bits_to_f64, f32_to_bits, f64_to_bits, fmuladd

F32 = np.float32

# inline="always" inlines at the numba level, so every caller gets the body and
# can vectorize around it. Plain njit relies on LLVM's inliner, which declines
# the larger functions: an erf loop then stays a scalar call (20x slower).
_inline = njit(inline="always")


# ---------------------------------------------------------------- helpers


@_inline
def _poly(x, coeffs):
    """Horner evaluation, coefficients from the highest power down."""
    acc = coeffs[0]
    for c in coeffs[1:]:
        acc = fmuladd(acc, x, c)
    return acc


@_inline
def _clamp(x, lo, hi):
    """min(max(x, lo), hi) that lets NaN through."""
    x = lo if x < lo else x
    return hi if x > hi else x


@_inline
def _flip_sign_f32(value, sign_bit):
    """value with its sign bit xor-ed with `sign_bit` (0 or 0x80000000)."""
    return bits_to_f32(f32_to_bits(value) ^ sign_bit)


@_inline
def _log_edges(x, res, inf):
    """log-like results at the edge of the domain, as NumPy gives them."""
    res = inf - inf if x < 0 else res
    res = -inf if x == 0 else res
    return x if not (x < inf) else res  # +inf and NaN pass through


# ROUNDER32/ROUNDER64 (math_constants): adding 1.5 * 2**23 to |v| < 2**22 rounds v to an integer (ties to
# even), which then sits in the low mantissa bits. Reading it from the bits rather than as
# (v + c) - c also survives a caller's fastmath reassociation, which folds the latter to v.


@_inline
def _round_f32(v):
    """(round(v) as float32, as int) for |v| < 2**22."""
    n = np.int32(f32_to_bits(v + ROUNDER32) - f32_to_bits(ROUNDER32))  # int32 converts faster
    return F32(n), n


@_inline
def _round_f64(v):
    """(round(v) as float64, as int) for |v| < 2**51."""
    n = f64_to_bits(v + ROUNDER64) - f64_to_bits(ROUNDER64)
    return np.float64(n), n


@_inline
def _ldexp_f32(p, n):
    """p * 2**n for p near 1 and n in [-252, 254]. The power is applied in two
    halves so that neither factor leaves the normal range; the second product
    rounds once, also when the result is subnormal or overflows."""
    half = n >> 1
    return p * bits_to_f32((half + 127) << 23) * bits_to_f32((n - half + 127) << 23)


@_inline
def _ldexp_f64(p, n):
    """p * 2**n for p near 1 and n in [-2044, 2046]; see _ldexp_f32."""
    half = n >> 1
    return p * bits_to_f64((half + 1023) << 52) * bits_to_f64((n - half + 1023) << 52)


# ------------------------------------------------------ float32: exp family


@_inline
def _expm1_reduced_f32(x):
    """(expm1(r), n) with x = n ln2 + r, |r| <= ln2/2, for |x| < 2**21."""
    kf, n = _round_f32(x * LOG2E32)
    r = (x - kf * LN2_HI32) - kf * LN2_LO32
    return (r * r) * _poly(r, EXP_P32) + r, n


@_inline
def _exp_times_pow2_f32(x, k):
    """exp(x) * 2**k for k in {-1, 0}, rounded once: cosh and sinh need
    exp(x) / 2 where exp(x) itself would overflow."""
    q, n = _expm1_reduced_f32(_clamp(x, EXP_MIN32, EXP_MAX32))
    return _ldexp_f32(q + ONE32, n + k)


@_inline
def exp_f32(x):
    return _exp_times_pow2_f32(x, 0)


@_inline
def expm1_f32(x):
    # expm1(x) = 2**n (expm1(r) + 1 - 2**-n); 1 - 2**-n is exact for n <= 24
    # and rounds to 1 above, so only n <= 25 is needed for it. Below -25,
    # expm1 is -1 in float32.
    q, n = _expm1_reduced_f32(_clamp(x, F32(-25.0), EXP_MAX32))
    tail = ONE32 - bits_to_f32((127 - min(n, 25)) << 23)
    res = _ldexp_f32(q + tail, n)
    return x if x == 0 else res  # keeps the sign of -0.0


@_inline
def sigmoid_f32(x):
    e = exp_f32(-abs(x))  # in (0, 1]: never overflows
    return np.divide(ONE32 if x >= 0 else e, ONE32 + e)


# Cephes tanhf: tanh(x) = x + x**3 P(x**2) for |x| < 0.625.


@_inline
def tanh_f32(x):
    a = abs(x)
    z = a * a
    small = a + a * z * _poly(z, TANH_P32)
    large = ONE32 - np.divide(TWO32, exp_f32(a + a) + ONE32)
    return math.copysign(small if a < F32(0.625) else large, x)


@_inline
def sinh_f32(x):
    a = abs(x)
    em = expm1_f32(a)
    small = HALF32 * (em + np.divide(em, em + ONE32))  # no cancellation below 1
    h = _exp_times_pow2_f32(a, -1)
    large = h - np.divide(F32(0.25), h)
    return math.copysign(small if a < ONE32 else large, x)


@_inline
def cosh_f32(x):
    h = _exp_times_pow2_f32(abs(x), -1)
    return h + np.divide(F32(0.25), h)


# Cephes erff: erf(x) = x T(x**2) for |x| < 1; above, erf = 1 - erfc with
# erfc(x) = exp(-x**2) / x * P(1/x**2) on [1, 2) and R(1/x**2) beyond.
_ERF_T32 = as_f32(7.853861353153693e-5, -8.010193625184903e-4, 5.188327685732524e-3,
                -2.685381193529856e-2, 1.128358514861418e-1, -3.761262582423300e-1, 1.128379165726710e0)
_ERFC_P32 = as_f32(2.326819970068386e-2, -1.387039388740657e-1, 3.687424674597105e-1,
                 -5.824733027278666e-1, 6.210004621745983e-1, -4.944515323274145e-1,
                 3.404879937665872e-1, -2.741127028184656e-1, 5.638259427386472e-1)
_ERFC_R32 = as_f32(-1.047766399936249e1, 1.297719955372516e1, -7.495518717768503e0, 2.921019019210786e0,
                 -1.015265279202700e0, 4.218463358204948e-1, -2.820767439740514e-1,
                 5.641895067754075e-1)


@_inline
def erf_f32(x):
    a = abs(x)
    small = a * _poly(a * a, _ERF_T32)
    b = ONE32 if a < ONE32 else a
    q = np.divide(ONE32, b)
    y = q * q
    p = _poly(y, _ERFC_P32) if b < TWO32 else _poly(y, _ERFC_R32)
    large = ONE32 - exp_f32(-b * b) * q * p
    return math.copysign(small if a < ONE32 else large, x)


# ------------------------------------------------------ float32: log family



@_inline
def _log_reduced_f32(x):
    """(f, e, y) with x = 2**e (1 + f), sqrt(1/2) <= 1 + f < sqrt(2) and
    log(1 + f) = f + y, for positive finite x."""
    sub = x < MIN_NORMAL32  # subnormals are scaled into the normal range
    bits = f32_to_bits(x * F32(2.0**23) if sub else x)
    e = ((bits >> 23) & 0xFF) - (149 if sub else 126)
    m = bits_to_f32((bits & 0x7FFFFF) | 0x3F000000)  # in [1/2, 1)
    low = m < SQRT_HALF32
    f = (m + m if low else m) - ONE32
    z = f * f
    y = f * z * _poly(f, LOG_P32) - HALF32 * z
    return f, F32(e - 1 if low else e), y


@_inline
def log_f32(x):
    f, e, y = _log_reduced_f32(x)
    return _log_edges(x, (f + (y + e * LN2_LO32)) + e * LN2_HI32, INF32)


@_inline
def log1p_f32(x):
    u = x + ONE32
    f, e, y = _log_reduced_f32(u)
    c = np.divide(x - (u - ONE32), u)  # log(1 + x) - log(u), to first order
    res = _log_edges(u, (f + (y + (e * LN2_LO32 + c))) + e * LN2_HI32, INF32)
    return x if x == 0 else res  # keeps the sign of -0.0


# --------------------------------------------------------- float32: trig

# pi/2 and pi as float32 plus the float32 remainder: hi + (lo + t) rounds
# once, so results near the constants lose nothing to their rounding.
_PIO2_HI32 = F32(np.pi / 2)
_PIO2_LO32 = F32(np.pi / 2 - float(_PIO2_HI32))
_PI_HI32 = F32(np.pi)
_PI_LO32 = F32(np.pi - float(_PI_HI32))
_PIO4_HI32 = F32(np.pi / 4)
_PIO4_LO32 = F32(np.pi / 4 - float(_PIO4_HI32))


def _two_over_pi_bits(n):
    """floor(2/pi * 2**n), with pi from Machin's formula
    pi = 16 atan(1/5) - 4 atan(1/239) in integer arithmetic."""
    one = 1 << (2 * n + 64)  # working scale, with guard bits

    def atan_inv(k):  # atan(1/k) * one
        total, power, i, sign = 0, one // k, 1, 1
        while power:
            total += sign * (power // i)
            power //= k * k
            i, sign = i + 2, -sign
        return total

    pi = 16 * atan_inv(5) - 4 * atan_inv(239)
    return (2 * one << n) // pi


def _two_over_pi_windows():
    """For each float32 biased exponent e, 96 bits of 2/pi as three 32-bit
    words: W(e) = floor(2/pi * 2**(e - 56)) mod 2**96. With |x| = m 2**(e - 150)
    and m the 24-bit significand, m W(e) / 2**94 = x 2/pi mod 4 to within 2**-70
    (bits of 2/pi above the window only add multiples of 4)."""
    bits = _two_over_pi_bits(260)
    windows = np.zeros((3, 256), np.uint32)
    for e in range(256):
        w = (bits >> (260 - (e - 56))) & (2**96 - 1)
        windows[:, e] = (w >> 64, (w >> 32) & 0xFFFFFFFF, w & 0xFFFFFFFF)
    return windows


_PI_WINDOW_HI, _PI_WINDOW_MID, _PI_WINDOW_LO = _two_over_pi_windows()
_PIO2_SCALED = np.pi / 2 * 2.0**-62
_U32, _U61, _U62 = np.uint64(32), np.uint64(1 << 61), np.uint64(62)


@_inline
def _reduce_pio2_f32(a):
    """(q, r) with a = q pi/2 + r (q mod 4) and |r| <= pi/4, for a = |x|.

    Payne-Hanek reduction for every float32, in integer arithmetic: the
    significand times 96 bits of 2/pi picked by the exponent (a table
    gather) gives a 2/pi mod 4 in 2.62 fixed point, exact enough that r keeps
    full float32 precision even next to a multiple of pi/2. Below pi/4 the
    argument is used as is."""
    bits = f32_to_bits(a)
    e = bits >> 23
    m = np.uint64((bits & 0x7FFFFF) | 0x800000)
    hi, mid, lo = np.uint64(_PI_WINDOW_HI[e]), np.uint64(_PI_WINDOW_MID[e]), np.uint64(_PI_WINDOW_LO[e])
    fixed = ((m * hi) << _U32) + m * mid + ((m * lo) >> _U32)
    q = (fixed + _U61) >> _U62  # nearest quadrant
    frac = np.int64(fixed - (q << _U62))  # signed distance to it
    r = F32(np.float64(frac) * _PIO2_SCALED)
    small = a <= _PIO4_HI32
    return (0 if small else np.int64(q) & 3), (a if small else r)


# Cephes sinf/cosf on [-pi/4, pi/4]: sin r = r + r**3 S(r**2),
# cos r = 1 - r**2/2 + r**4 C(r**2).
_SIN_P32 = as_f32(-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)
_COS_P32 = as_f32(2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2)
# Cephes tanf: tan r = r + r**3 T(r**2).
_TAN_P32 = as_f32(9.38540185543e-3, 3.11992232697e-3, 2.44301354525e-2, 5.34112807005e-2,
                1.33387994085e-1, 3.33331568548e-1)


@_inline
def _sin_cos_reduced_f32(r):
    z = r * r
    return r + r * z * _poly(z, _SIN_P32), (z * z * _poly(z, _COS_P32) - HALF32 * z) + ONE32


@_inline
def sin_f32(x):
    a = abs(x)
    q, r = _reduce_pio2_f32(a)
    s, c = _sin_cos_reduced_f32(r)
    # sin(r + pi) = -sin(r) and sin(-x) = -sin(x): both flip the sign bit
    res = _flip_sign_f32(c if q & 1 else s, ((q & 2) << 30) ^ (f32_to_bits(x) & SIGN32))
    return res if a < INF32 else x - x


@_inline
def cos_f32(x):
    a = abs(x)
    q, r = _reduce_pio2_f32(a)
    s, c = _sin_cos_reduced_f32(r)
    res = _flip_sign_f32(s if q & 1 else c, ((q + 1) & 2) << 30)
    return res if a < INF32 else x - x


@_inline
def tan_f32(x):
    a = abs(x)
    q, r = _reduce_pio2_f32(a)
    z = r * r
    t = r + r * z * _poly(z, _TAN_P32)
    t = np.divide(-ONE32, t) if q & 1 else t  # tan(r + pi/2) = -1/tan(r)
    res = _flip_sign_f32(t, f32_to_bits(x) & SIGN32)
    return res if a < INF32 else x - x


_TAN_PIO8_32, _TAN_3PIO8_32 = as_f32(0.4142135623730950, 2.414213562373095)
# Cephes atanf: atan t = t + t**3 A(t**2) for |t| <= tan(pi/8).
_ATAN_P32 = as_f32(8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1)
# Cephes asinf: asin s = s + s**3 P(s**2) for |s| <= 1/2.
_ASIN_P32 = as_f32(4.2163199048e-2, 2.4181311049e-2, 4.5470025998e-2, 7.4953002686e-2, 1.6666752422e-1)


@_inline
def _atan_nonneg_f32(a):
    """atan(a) for a >= 0 (or NaN), reduced with atan(a) = pi/2 + atan(-1/a)
    above tan(3pi/8) and pi/4 + atan((a-1)/(a+1)) above tan(pi/8)."""
    big = a > _TAN_3PIO8_32
    mid = a > _TAN_PIO8_32
    numerator = -ONE32 if big else (a - ONE32 if mid else a)
    t = np.divide(numerator, a if big else (a + ONE32 if mid else ONE32))
    z = t * t
    res = t + t * z * _poly(z, _ATAN_P32)
    return _PIO2_HI32 + (_PIO2_LO32 + res) if big else (_PIO4_HI32 + (_PIO4_LO32 + res) if mid else res)


@_inline
def atan_f32(x):
    return math.copysign(_atan_nonneg_f32(abs(x)), x)


@_inline
def atan2_f32(y, x):
    ax, ay = abs(x), abs(y)
    swap = ay > ax  # reduce to a ratio in [0, 1]
    t = np.divide(ax if swap else ay, ay if swap else ax)
    t = ZERO32 if (ax == 0 and ay == 0) else t  # atan2(+-0, +-0)
    t = ONE32 if (ax == INF32 and ay == INF32) else t  # atan2(+-inf, +-inf)
    a = _atan_nonneg_f32(t)
    neg = f32_to_bits(x) < 0  # x < 0 or x = -0.0
    # |result| = a, pi/2 - a, pi - a or pi/2 + a: add the constant's low part first
    a = a if swap == neg else -a
    res = _PIO2_HI32 + (_PIO2_LO32 + a) if swap else (_PI_HI32 + (_PI_LO32 + a) if neg else a)
    return math.copysign(res, y)


@_inline
def _asin_parts_f32(a):
    """(p, big) with asin(a) = p for a <= 1/2 and pi/2 - 2p above, for
    a = |x|: above 1/2, asin(a) = pi/2 - 2 asin(sqrt((1 - a)/2))."""
    big = a > HALF32
    z = HALF32 * (ONE32 - a) if big else a * a
    s = math.sqrt(z) if big else a  # NaN for a > 1
    return s + s * z * _poly(z, _ASIN_P32), big


@_inline
def asin_f32(x):
    p, big = _asin_parts_f32(abs(x))
    return math.copysign(_PIO2_HI32 + (_PIO2_LO32 - (p + p)) if big else p, x)


@_inline
def acos_f32(x):
    p, big = _asin_parts_f32(abs(x))
    # above 1/2: acos(|x|) = 2p and acos(-|x|) = pi - 2p; below: pi/2 - asin(x)
    above = p + p if x > 0 else _PI_HI32 + (_PI_LO32 - (p + p))
    return above if big else _PIO2_HI32 + (_PIO2_LO32 - math.copysign(p, x))


# ---------------------------------------------------------------- float64


@_inline
def _expm1_reduced_f64(x):
    """(expm1(r), n) with x = n ln2 + r, |r| <= ln2/2, for |x| < 2**50."""
    kf, n = _round_f64(x * LOG2E64)
    r = (x - kf * LN2_HI64) - kf * LN2_LO64
    rr = r * r
    return r + (0.5 * rr + rr * r * _poly(r, EXPM1_P64)), n


@_inline
def exp_f64(x):
    q, n = _expm1_reduced_f64(_clamp(x, EXP_MIN64, EXP_MAX64))
    return _ldexp_f64(q + 1.0, n)


@_inline
def expm1_f64(x):
    # as expm1_f32: 1 - 2**-n is exact for n <= 53; below -40 expm1 is -1
    q, n = _expm1_reduced_f64(_clamp(x, -40.0, EXP_MAX64))
    tail = 1.0 - bits_to_f64((1023 - min(n, 54)) << 52)
    res = _ldexp_f64(q + tail, n)
    return x if x == 0 else res


@_inline
def sigmoid_f64(x):
    e = exp_f64(-abs(x))
    return np.divide(1.0 if x >= 0 else e, 1.0 + e)


@_inline
def tanh_f64(x):
    em = expm1_f64(-2.0 * abs(x))  # in (-1, 0]: tanh|x| = -em / (em + 2)
    return math.copysign(np.divide(-em, em + 2.0), x)


# Cephes erf: erf(x) = x T(x**2) / U(x**2) for |x| < 1; above, erf = 1 - erfc
# with erfc(x) = exp(-x**2) P(x) / Q(x) (U and Q monic). Past 8 erf is 1.
_ERF_T64 = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
            7.00332514112805075473e3, 5.55923013010394962768e4)
_ERF_U64 = (1.0, 3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3,
            2.26290000613890934246e4, 4.92673942608635921086e4)
_ERFC_P64 = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
             4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
             9.34528527171957607540e2, 1.02755188689515710272e3, 5.57535335369399327526e2)
_ERFC_Q64 = (1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
             9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3,
             1.65666309194161350182e3, 5.57535340817727675546e2)


@_inline
def erf_f64(x):
    a = abs(x)
    z = a * a
    small = a * np.divide(_poly(z, _ERF_T64), _poly(z, _ERF_U64))
    b = _clamp(a, 1.0, 8.0)
    large = 1.0 - exp_f64(-b * b) * np.divide(_poly(b, _ERFC_P64), _poly(b, _ERFC_Q64))
    return math.copysign(small if a < 1.0 else large, x)


# fdlibm/musl log: log(1 + f) = f - hfsq + s (hfsq + R(s**2)) with hfsq = f**2/2,


@_inline
def _log_reduced_f64(x):
    """(f, k, hfsq, t) with x = 2**k (1 + f) and log(1 + f) = (t - hfsq) + f,
    for positive finite x."""
    sub = x < 2.0**-1022  # subnormals are scaled into the normal range
    bits = f64_to_bits(x * 2.0**54 if sub else x)
    # offsetting the high word moves the mantissa range to [sqrt(1/2), sqrt(2))
    hx = (bits >> 32) + (0x3FF00000 - 0x3FE6A09E)
    k = (hx >> 20) - (0x3FF + 54 if sub else 0x3FF)
    f = bits_to_f64((((hx & 0x000FFFFF) + 0x3FE6A09E) << 32) | (bits & 0xFFFFFFFF)) - 1.0
    hfsq = 0.5 * f * f
    s = np.divide(f, 2.0 + f)
    z = s * s
    w = z * z
    r = w * _poly(w, LOG_R_EVEN64) + z * _poly(w, LOG_R_ODD64)
    return f, np.float64(k), hfsq, s * (hfsq + r)


@_inline
def log_f64(x):
    f, k, hfsq, t = _log_reduced_f64(x)
    res = (((t + k * LN2_LO_LOG64) - hfsq) + f) + k * LN2_HI_LOG64
    return _log_edges(x, res, INF64)


@_inline
def log1p_f64(x):
    u = x + 1.0
    f, k, hfsq, t = _log_reduced_f64(u)
    c = np.divide(x - (u - 1.0), u)  # log(1 + x) - log(u), to first order
    res = (((t + (k * LN2_LO_LOG64 + c)) - hfsq) + f) + k * LN2_HI_LOG64
    res = _log_edges(u, res, INF64)
    return x if x == 0 else res


# -------------------------------------------------------------- float32 pow


@_inline
def pow_f32(x, y):
    """x**y as NumPy's float32 power (C99 powf) gives it.

    Computed as exp(y log|x|) in float64: the float32 result needs log|x| to
    about 24 + 8 bits, which float32 arithmetic cannot give without
    double-float tricks; float64 vectorizes too (at half the width)."""
    res = F32(exp_f64(np.float64(y) * log_f64(np.float64(abs(x)))))
    y_int = np.floor(y) == y  # also true for +-inf
    half = y * HALF32
    y_odd = y_int and np.floor(half) != half  # false for |y| >= 2**25
    res = -res if (y_odd and f32_to_bits(x) < 0) else res  # (-a)**odd = -(a**odd), -0.0 included
    res = (INF32 - INF32) if (x < 0 and x > -INF32 and not y_int) else res  # negative**fraction
    res = ONE32 if (abs(x) == ONE32 and abs(y) == INF32) else res  # (-1)**+-inf
    return ONE32 if (y == 0 or x == ONE32) else res  # even for NaN


# ------------------------------------------- float64 fallbacks (libm calls)
# No vectorizable float64 version yet: numba calls libm, which gives NumPy's
# results (C99 semantics, NaN instead of Python's ValueError) one element at a time.


@_inline
def sin_f64(x):
    return math.sin(x)


@_inline
def cos_f64(x):
    return math.cos(x)


@_inline
def tan_f64(x):
    return math.tan(x)


@_inline
def sinh_f64(x):
    return math.sinh(x)


@_inline
def cosh_f64(x):
    return math.cosh(x)


@_inline
def atan_f64(x):
    return math.atan(x)


@_inline
def asin_f64(x):
    return math.asin(x)


@_inline
def acos_f64(x):
    return math.acos(x)


@_inline
def atan2_f64(y, x):
    return math.atan2(y, x)


@_inline
def pow_f64(x, y):
    return math.pow(x, y)


# ------------------------------------------------------------------ table

# the functions the primitives' records name as their vector_math
NAMES = tuple(sorted({r.vector_math for r in RECORDS.values() if r.vector_math}))
BINARY = frozenset({r.vector_math for r in RECORDS.values() if r.vector_math and r.arity == 2})

MATH = {(name, dtype): globals()[f"{name}_{suffix}"]
        for name in NAMES for dtype, suffix in (("float32", "f32"), ("float64", "f64"))}


# Called variants, `<name>_<suffix>_call`: plain @njit functions typed and compiled once per
# process (and kept in numba's disk cache), where the inline="always" ones are typed again at
# every call site: the larger part of a kernel's compile time. LLVM inlines most of them into
# the calling loop and vectorizes it; it declines these (over its inlining threshold), whose
# loops then stay scalar calls, 10-20x slower: a long loop needs the numba-level inline.
NEEDS_NUMBA_INLINE = frozenset({"erf", "pow", "atan2"})
for _fn in MATH.values():
    globals()[f"{_fn.py_func.__name__}_call"] = njit(cache=True, error_model="numpy")(_fn.py_func)
del _fn


def math_function(name: str, dtype: str):
    """The njit scalar function computing `name` in `dtype` ("float32"/"float64")."""
    try:
        return MATH[name, dtype]
    except KeyError:
        raise KeyError(f"mathlib has no {name!r} for dtype {dtype!r}; it has {sorted(NAMES)} "
                       f"for float32 and float64") from None
