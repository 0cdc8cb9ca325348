"""Complex arithmetic in the LLVM units.

A complex64 (complex128) value is the literal struct {float, float} ({double, double}): real
part, then imaginary part. That is NumPy's memory layout too (interleaved), so loads, stores,
the copy kernels and BLAS's cgemm/zgemm read complex arrays as they are; InstCombine splits the
struct loads and stores into their parts, so the loop vectorizer sees float code.

`RULES[op](b, args, in_dtypes, out_dtype)` has llvm_exprs.EXPR's signature and is what EXPR
calls when a dtype of the op is complex; `supported` says which ops and dtypes it covers.
Semantics are NumPy's loops (numpy/_core/src/umath/loops.c.src and npy_math_complex.c.src,
glibc's cexp/clog/csqrt behind them):
- multiply, square: the textbook formula with NumPy's SIMD loops' fused multiply-adds,
  (fma(xr, yr, -xi yi), fma(xr, yi, xi yr)) (no recovery of infinities: NumPy has none);
- divide: Smith's algorithm with NumPy's branch on |re| >= |im| of the divisor, and x / 0 as
  the parts divided by |0|;
- abs: hypot, scaled so no intermediate overflows or underflows, infinity beating NaN;
- exp, log, sqrt: C99 Annex G's special values; log's real part through log1p near |z| = 1;
- sign: z / |z| (NumPy 2), with NumPy's cases for infinite and NaN parts;
- sinh, cosh, tanh (glibc's csinh/ccosh/ctanh; tanh with the standard's edge of
  complex_math.tanh), sin = -i sinh(iz), cos = cosh(iz), tan = -i tanh(iz), with glibc's
  special values (csin's and ctan's own where they differ from the identity);
- pow: NumPy's npy_cpow (integer exponents by repeated squaring, else exp(y log x));
- eq/ne, isnan/isinf: part by part; convert: complex -> real keeps the real part (as JAX).
- expm1: complex_math.expm1's accurate form (the reference's);
Ops not here (the inverse trigonometric and hyperbolic functions, log1p: NumPy's log(1 + z)
loses its own precision near 0, which no bound relative to it survives) keep complex kernels
that use them on the host (codegen/cpu/backend.py, complex_gap).
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir

from ...ir.ops import Op
from .llvm_math import fconst, intrinsic
from .llvm_math_table import FUNCTIONS

F32, F64 = ir.FloatType(), ir.DoubleType()
PART = {"complex64": "float32", "complex128": "float64"}
TYPES = {name: ir.LiteralStructType([F32 if p == "float32" else F64] * 2)
         for name, p in PART.items()}


def part_dtype(dt) -> str:
    """The dtype of a complex dtype's parts (float32 for complex64)."""
    return PART[np.dtype(dt).name]


def const(dt, value):
    t = TYPES[np.dtype(dt).name]
    v = complex(value)
    return ir.Constant(t, [ir.Constant(t.elements[0], v.real), ir.Constant(t.elements[0], v.imag)])


def parts(b, z):
    return b.extract_value(z, 0), b.extract_value(z, 1)


def pack(b, re, im):
    t = ir.LiteralStructType([re.type, re.type])
    return b.insert_value(b.insert_value(ir.Constant(t, ir.Undefined), re, 0), im, 1)


def _math(name, x):
    return FUNCTIONS[name, "float32" if x.type == F32 else "float64"]


# ----------------------------------------------------------------------------- helpers

def _fabs(b, x):
    return intrinsic(b, "llvm.fabs", x.type, x)


def _copysign(b, x, s):
    return intrinsic(b, "llvm.copysign", x.type, x, s)


def _isinf(b, x):
    return b.fcmp_ordered("==", _fabs(b, x), fconst(x.type, math.inf))


def _isnan(b, x):
    return b.fcmp_unordered("uno", x, x)


def _finite(b, x):
    return b.fcmp_ordered("<", _fabs(b, x), fconst(x.type, math.inf))


# (threshold, factor): |z| (complex64) or its larger part (complex128) above the threshold is
# scaled by 1/factor, below 1/threshold by factor, so squares and logarithms stay in range
_SCALING = {F32: (2.0 ** 64, 2.0 ** 64), F64: (2.0 ** 500, 2.0 ** 600)}


def _scale(b, m, ty):
    """(factor, k) for a magnitude m: factor = 2**-k, k = 0 or +-log2(_SCALING's factor)."""
    limit, factor = _SCALING[ty]
    down = b.fcmp_ordered(">", m, fconst(m.type, limit))
    up = b.fcmp_ordered("<", m, fconst(m.type, 1 / limit))
    e = math.log2(factor)
    s = b.select(down, fconst(m.type, 1 / factor), b.select(up, fconst(m.type, factor),
                                                             fconst(m.type, 1)))
    return s, b.select(down, fconst(ty, e), b.select(up, fconst(ty, -e), fconst(ty, 0)))


def _hypot_scaled(b, x, y):
    """(h, k) with hypot(x, y) = h * 2**k, h neither overflowing nor subnormal (log|z| = log h
    + k log 2). complex64: the squares summed in double precision (exactly), then scaled;
    complex128: the parts scaled by a power of two first."""
    ty = x.type
    if ty == F32:
        xd, yd = b.fpext(x, F64), b.fpext(y, F64)
        hd = intrinsic(b, "llvm.sqrt", F64, b.fadd(b.fmul(xd, xd), b.fmul(yd, yd)))
        s, k = _scale(b, hd, ty)
        h = b.fptrunc(b.fmul(hd, s), F32)
    else:
        s, k = _scale(b, _max_abs(b, x, y), ty)
        xs, ys = b.fmul(x, s), b.fmul(y, s)
        h = intrinsic(b, "llvm.sqrt", ty, b.fadd(b.fmul(xs, xs), b.fmul(ys, ys)))
    inf = b.or_(_isinf(b, x), _isinf(b, y))         # hypot(inf, nan) = inf
    return b.select(inf, fconst(ty, math.inf), h), b.select(inf, fconst(ty, 0), k)


def _max_abs(b, x, y):
    ax, ay = _fabs(b, x), _fabs(b, y)
    return b.select(b.fcmp_ordered(">", ax, ay), ax, ay)


def hypot(b, x, y):
    """sqrt(x^2 + y^2) without intermediate overflow or underflow; inf when a part is, even
    beside a NaN."""
    ty = x.type
    h, k = _hypot_scaled(b, x, y)
    _, factor = _SCALING[ty]
    e = math.log2(factor)
    if ty == F32:           # from the double result: one rounding
        xd, yd = b.fpext(x, F64), b.fpext(y, F64)
        hd = b.fptrunc(intrinsic(b, "llvm.sqrt", F64, b.fadd(b.fmul(xd, xd), b.fmul(yd, yd))), F32)
        return b.select(b.or_(_isinf(b, x), _isinf(b, y)), fconst(ty, math.inf), hd)
    back = b.select(b.fcmp_ordered("==", k, fconst(ty, e)), fconst(ty, factor),
                    b.select(b.fcmp_ordered("==", k, fconst(ty, -e)), fconst(ty, 1 / factor),
                             fconst(ty, 1)))
    return b.fmul(h, back)


# ----------------------------------------------------------------------------- arithmetic

def add(b, x, y):
    (xr, xi), (yr, yi) = parts(b, x), parts(b, y)
    return pack(b, b.fadd(xr, yr), b.fadd(xi, yi))


def _sub(b, a, dts, dt):
    (xr, xi), (yr, yi) = parts(b, a[0]), parts(b, a[1])
    return pack(b, b.fsub(xr, yr), b.fsub(xi, yi))


def _fma(b, x, y, z):
    return intrinsic(b, "llvm.fma", x.type, x, y, z)


def multiply(b, x, y):
    """NumPy's SIMD loop: (fma(xr, yr, -xi yi), fma(xr, yi, xi yr))."""
    (xr, xi), (yr, yi) = parts(b, x), parts(b, y)
    return pack(b, _fma(b, xr, yr, b.fneg(b.fmul(xi, yi))), _fma(b, xr, yi, b.fmul(xi, yr)))


def divide(b, x, y):
    """NumPy's complex divide (Smith's algorithm), both branches computed and one selected."""
    (ar, ai), (br, bi) = parts(b, x), parts(b, y)
    ty = ar.type
    one = fconst(ty, 1)
    abr, abi = _fabs(b, br), _fabs(b, bi)
    rat1 = b.fdiv(bi, br)                       # |br| >= |bi|
    scl1 = b.fdiv(one, b.fadd(br, b.fmul(bi, rat1)))
    re1 = b.fmul(b.fadd(ar, b.fmul(ai, rat1)), scl1)
    im1 = b.fmul(b.fsub(ai, b.fmul(ar, rat1)), scl1)
    rat2 = b.fdiv(br, bi)                       # |br| < |bi| (or a NaN)
    scl2 = b.fdiv(one, b.fadd(bi, b.fmul(br, rat2)))
    re2 = b.fmul(b.fadd(b.fmul(ar, rat2), ai), scl2)
    im2 = b.fmul(b.fsub(b.fmul(ai, rat2), ar), scl2)
    zero = b.and_(b.fcmp_ordered("==", abr, fconst(ty, 0)),
                  b.fcmp_ordered("==", abi, fconst(ty, 0)))
    re1 = b.select(zero, b.fdiv(ar, abr), re1)
    im1 = b.select(zero, b.fdiv(ai, abr), im1)
    first = b.fcmp_ordered(">=", abr, abi)
    return pack(b, b.select(first, re1, re2), b.select(first, im1, im2))


def _square(b, a, dts, dt):
    return multiply(b, a[0], a[0])


def _neg(b, a, dts, dt):
    xr, xi = parts(b, a[0])
    return pack(b, b.fneg(xr), b.fneg(xi))


def _conj(b, a, dts, dt):
    xr, xi = parts(b, a[0])
    return pack(b, xr, b.fneg(xi))


def _abs(b, a, dts, dt):
    return hypot(b, *parts(b, a[0]))


def _sign(b, a, dts, dt):
    """NumPy 2's sign, its branches in order: NaN where |z| is; where |z| is infinite (a part
    infinite, or |z| over the largest float): (+-1, 0) along an infinite real part (NaN when
    both are), else (0, +-1) by the imaginary part's sign; 0 at 0; else z / |z|."""
    xr, xi = parts(b, a[0])
    ty = xr.type
    h = hypot(b, xr, xi)
    zero, one, nan = fconst(ty, 0), fconst(ty, 1), fconst(ty, math.nan)

    def unit(v):
        return b.select(b.fcmp_ordered(">", v, zero), one, fconst(ty, -1))
    at0 = b.fcmp_ordered("==", h, zero)
    re = b.select(at0, zero, b.fdiv(xr, h))
    im = b.select(at0, zero, b.fdiv(xi, h))
    both = b.and_(_isinf(b, xr), _isinf(b, xi))
    inf_re = b.select(_isinf(b, xr), b.select(both, nan, unit(xr)), zero)
    inf_im = b.select(_isinf(b, xr), b.select(both, nan, zero), unit(xi))
    hinf = _isinf(b, h)
    re, im = b.select(hinf, inf_re, re), b.select(hinf, inf_im, im)
    isnan = _isnan(b, h)
    return pack(b, b.select(isnan, nan, re), b.select(isnan, nan, im))


# ----------------------------------------------------------------------------- exp, log, sqrt

def _exp(b, a, dts, dt):
    """exp(x) (cos y, sin y); past exp's overflow e^(x/2) (e^(x/2) cos y), so e^710 cos y may
    be finite; a zero imaginary part kept (exp(inf + 0j) = inf + 0j); an infinite x with a
    non-finite y: (0, 0) for -inf, (inf, nan) for +inf (glibc's cexp)."""
    x, y = parts(b, a[0])
    ty = x.type
    big = fconst(ty, 88.0 if ty == F32 else 709.0)
    c, s = _math("cos", y)(b, y), _math("sin", y)(b, y)
    over = b.fcmp_ordered(">", x, big)
    e = _math("exp", x)(b, b.select(over, b.fmul(x, fconst(ty, 0.5)), x))    # one exp
    re = b.select(over, b.fmul(b.fmul(e, c), e), b.fmul(e, c))
    im = b.select(over, b.fmul(b.fmul(e, s), e), b.fmul(e, s))
    yzero = b.fcmp_ordered("==", y, fconst(ty, 0))
    re, im = b.select(yzero, b.select(over, b.fmul(e, e), e), re), b.select(yzero, y, im)
    wild = b.and_(_isinf(b, x), b.not_(_finite(b, y)))
    neg = b.fcmp_ordered("<", x, fconst(ty, 0))
    re = b.select(wild, b.select(neg, fconst(ty, 0), x), re)
    im = b.select(wild, b.select(neg, _copysign(b, fconst(ty, 0), y), fconst(ty, math.nan)), im)
    return pack(b, re, im)


def _expm1(b, a, dts, dt):
    """complex_math.expm1 (the reference): (expm1(x) cos y - 2 sin(y/2)^2, e^x sin y), +0 + 0j
    at +-0 + 0j; where a part is not finite, exp's value shifted by -1 (a zero y kept)."""
    x, y = parts(b, a[0])
    ty = x.type
    zero = fconst(ty, 0)
    h = _math("sin", y)(b, b.fmul(y, fconst(ty, 0.5)))
    re = b.fsub(b.fmul(_math("expm1", x)(b, x), _math("cos", y)(b, y)),
                b.fmul(fconst(ty, 2), b.fmul(h, h)))
    at0 = b.and_(b.fcmp_ordered("==", x, zero), b.fcmp_ordered("==", y, zero))
    re = b.select(at0, zero, re)
    im = b.fmul(_math("exp", x)(b, x), _math("sin", y)(b, y))
    er, ei = parts(b, _exp(b, a, dts, dt))
    edge_im = b.select(b.fcmp_ordered("==", y, zero), y, ei)
    fine = b.and_(_finite(b, x), _finite(b, y))
    return pack(b, b.select(fine, re, b.fsub(er, fconst(ty, 1))), b.select(fine, im, edge_im))


def _log(b, a, dts, dt):
    """(log|z|, atan2(y, x)); log|z| as log1p(|z|^2 - 1) / 2 where |z| is near 1 (the squares
    summed exactly in double precision for complex64, with exact scaling else)."""
    x, y = parts(b, a[0])
    ty = x.type
    im = _math("atan2", x)(b, y, x)
    h, k = _hypot_scaled(b, x, y)
    far = b.fadd(_math("log", h)(b, h), b.fmul(k, fconst(ty, math.log(2))))
    m = _max_abs(b, x, y)
    n = b.select(b.fcmp_ordered(">", _fabs(b, x), _fabs(b, y)), _fabs(b, y), _fabs(b, x))
    wide = F64 if ty == F32 else ty
    md, nd = (b.fpext(m, F64), b.fpext(n, F64)) if ty == F32 else (m, n)
    one = fconst(wide, 1)
    d = b.fadd(b.fmul(b.fsub(md, one), b.fadd(md, one)), b.fmul(nd, nd))    # |z|^2 - 1
    near = b.fmul(_math("log1p", d)(b, d), fconst(wide, 0.5))
    near = b.fptrunc(near, F32) if ty == F32 else near
    close = b.and_(b.fcmp_ordered(">", m, fconst(ty, 0.5)), b.fcmp_ordered("<", m, fconst(ty, 2)))
    return pack(b, b.select(close, near, far), im)


def _sqrt(b, a, dts, dt):
    """complex64 in double precision (then rounded), complex128 by _csqrt."""
    x, y = parts(b, a[0])
    if x.type == F64:
        return pack(b, *_csqrt(b, x, y))
    re, im = _csqrt(b, b.fpext(x, F64), b.fpext(y, F64))
    return pack(b, b.fptrunc(re, F32), b.fptrunc(im, F32))


def _csqrt(b, x, y):
    """Kahan's csqrt (FreeBSD's, NumPy's fallback) in double precision: t = sqrt((|x| + |z|) / 2),
    then (t, y / 2t) or (|y| / 2t, copysign(t, y)); inputs over THRESH scaled by 1/4 first, both
    parts below 4 * DBL_MIN by 2^54 (then the root by 2^-27)."""
    ty = F64
    zero, inf, nan = fconst(ty, 0), fconst(ty, math.inf), fconst(ty, math.nan)
    f = np.finfo(np.float64)
    big = _max_abs(b, x, y)
    scaled = b.fcmp_ordered(">=", big, fconst(ty, f.max / (1 + math.sqrt(2))))
    tiny = b.fcmp_ordered("<", big, fconst(ty, 4 * f.tiny))
    q = b.select(scaled, fconst(ty, 0.25), b.select(tiny, fconst(ty, 2.0 ** 54), fconst(ty, 1)))
    back = b.select(scaled, fconst(ty, 2), b.select(tiny, fconst(ty, 2.0 ** -27), fconst(ty, 1)))
    xs, ys = b.fmul(x, q), b.fmul(y, q)
    half = b.fmul(b.fadd(_fabs(b, xs), hypot(b, xs, ys)), fconst(ty, 0.5))
    t = intrinsic(b, "llvm.sqrt", ty, half)
    two_t = b.fmul(t, fconst(ty, 2))
    pos = b.fcmp_ordered(">=", xs, zero)
    re = b.select(pos, t, b.fdiv(_fabs(b, ys), two_t))
    im = b.select(pos, b.fdiv(ys, two_t), _copysign(b, t, ys))
    re, im = b.fmul(re, back), b.fmul(im, back)
    # the special cases, the last one here first (the first that applies wins)
    xinf = _isinf(b, x)
    nan_unless_finite = b.fsub(y, y)            # 0 for a finite y, NaN else
    neg_inf = b.and_(xinf, b.fcmp_ordered("<", x, zero))
    re = b.select(xinf, b.select(neg_inf, _fabs(b, nan_unless_finite), x), re)
    im = b.select(xinf, b.select(neg_inf, _copysign(b, x, y), _copysign(b, nan_unless_finite, y)),
                  im)
    xnan = _isnan(b, x)
    re, im = b.select(xnan, x, re), b.select(xnan, nan, im)
    yinf = _isinf(b, y)
    re, im = b.select(yinf, inf, re), b.select(yinf, y, im)
    at0 = b.and_(b.fcmp_ordered("==", x, zero), b.fcmp_ordered("==", y, zero))
    return b.select(at0, zero, re), b.select(at0, y, im)


def _sinh_cosh(b, x, y, odd):
    """sinh(x + iy) = (sinh x cos y, cosh x sin y) (odd) or cosh(x + iy) = (cosh x cos y,
    sinh x sin y), as glibc's csinh/ccosh: past the overflow of e^|x|, e^|x|/2 as
    ((e^(|x|/2) / 2) part) e^(|x|/2) (so a subnormal y still counts); a zero y kept (with x's
    sign in cosh); then Annex G's cases for an infinite or NaN y: (+-0, NaN) at x = +-0
    (cosh: (NaN, 0)), (+inf, NaN) at an infinite x."""
    ty = x.type
    zero, half = fconst(ty, 0), fconst(ty, 0.5)
    c, s = _math("cos", y)(b, y), _math("sin", y)(b, y)
    sh, ch = _math("sinh", x)(b, x), _math("cosh", x)(b, x)
    ax = _fabs(b, x)
    over = b.fcmp_ordered(">", ax, fconst(ty, 88.0 if ty == F32 else 709.0))
    e = _math("exp", x)(b, b.fmul(ax, half))
    he = b.fmul(half, e)
    big_c, big_s = b.fmul(b.fmul(he, c), e), b.fmul(b.fmul(he, s), e)
    signed = _copysign(b, fconst(ty, 1), x)
    if odd:
        re = b.select(over, b.fmul(signed, big_c), b.fmul(sh, c))
        im = b.select(over, big_s, b.fmul(ch, s))
        im = b.select(b.fcmp_ordered("==", y, zero), y, im)
    else:
        re = b.select(over, big_c, b.fmul(ch, c))
        im = b.select(over, b.fmul(signed, big_s), b.fmul(sh, s))
        y0 = b.select(_isnan(b, x), y, b.fmul(signed, y))
        im = b.select(b.fcmp_ordered("==", y, zero), y0, im)
    wild = b.not_(_finite(b, y))
    x0 = b.and_(wild, b.fcmp_ordered("==", x, zero))
    if odd:
        re = b.select(x0, _copysign(b, zero, x), re)
    else:
        im = b.select(x0, zero, im)
    xinf = b.and_(wild, _isinf(b, x))
    re = b.select(xinf, fconst(ty, math.inf), re)
    im = b.select(xinf, b.fsub(y, y), im)
    return re, im


def _sinh(b, a, dts, dt):
    return pack(b, *_sinh_cosh(b, *parts(b, a[0]), True))


def _cosh(b, a, dts, dt):
    return pack(b, *_sinh_cosh(b, *parts(b, a[0]), False))


def _sin(b, a, dts, dt):
    """-i sinh(iz) (iz = -y + ix), with glibc's csin's +inf imaginary part where y is infinite
    and x is not finite."""
    x, y = parts(b, a[0])
    re, im = _sinh_cosh(b, b.fneg(y), x, True)
    inf = b.and_(_isinf(b, y), b.not_(_finite(b, x)))
    return pack(b, im, b.select(inf, fconst(x.type, math.inf), b.fneg(re)))


def _cos(b, a, dts, dt):
    """cosh(iz) (iz = -y + ix)."""
    x, y = parts(b, a[0])
    return pack(b, *_sinh_cosh(b, b.fneg(y), x, False))


def _tanh_parts(b, x, y):
    """glibc's ctanh: (sinh x cosh x, sin y cos y) / (sinh^2 x + cos^2 y) (cos^2 y alone where
    sinh^2 x is below its rounding); past |x| = T (half the exponent range), (+-1, 4 sin y
    cos y / e^(2|x|)) in two steps; an infinite x gives (+-1, copysign(0, y)) (the standard's
    value, complex_math.tanh), a NaN x (NaN, y) at y = 0, else NaN."""
    ty = x.type
    zero, one = fconst(ty, 0), fconst(ty, 1)
    t = 44 if ty == F32 else 354
    eps = float(np.finfo(np.float32 if ty == F32 else np.float64).eps)
    c, s = _math("cos", y)(b, y), _math("sin", y)(b, y)
    sh, ch = _math("sinh", x)(b, x), _math("cosh", x)(b, x)
    cc = b.fmul(c, c)
    den = b.select(b.fcmp_ordered(">", _fabs(b, sh), b.fmul(_fabs(b, c), fconst(ty, eps))),
                   b.fadd(b.fmul(sh, sh), cc), cc)
    re = b.fdiv(b.fmul(sh, ch), den)
    im = b.fdiv(b.fmul(s, c), den)
    ax = _fabs(b, x)
    rx = b.fsub(ax, fconst(ty, t))
    e2t = fconst(ty, math.exp(2 * t))
    rest = b.select(b.fcmp_ordered(">", rx, fconst(ty, t)), e2t,
                    _math("exp", x)(b, b.fmul(rx, fconst(ty, 2))))
    big_im = b.fdiv(b.fdiv(b.fmul(fconst(ty, 4), b.fmul(s, c)), e2t), rest)
    big = b.fcmp_ordered(">", ax, fconst(ty, t))
    unit = _copysign(b, one, x)
    re, im = b.select(big, unit, re), b.select(big, big_im, im)
    odd = b.not_(b.and_(_finite(b, x), _finite(b, y)))     # a part infinite or NaN
    nan = fconst(ty, math.nan)
    y0 = b.fcmp_ordered("==", y, zero)
    odd_re = b.select(_isinf(b, x), unit, nan)
    odd_im = b.select(_isinf(b, x), _copysign(b, zero, y), b.select(y0, y, nan))
    return b.select(odd, odd_re, re), b.select(odd, odd_im, im)


def _tanh(b, a, dts, dt):
    return pack(b, *_tanh_parts(b, *parts(b, a[0])))


def _tan(b, a, dts, dt):
    """-i tanh(iz) (iz = -y + ix), with glibc's ctan's own edges: an infinite y gives
    (copysign(0, sin x cos x) for a finite |x| > 1, else copysign(0, x); +-1), a non-finite x
    with y = 0 (NaN, y)."""
    x, y = parts(b, a[0])
    ty = x.type
    zero = fconst(ty, 0)
    th_re, th_im = _tanh_parts(b, b.fneg(y), x)
    re, im = th_im, b.fneg(th_re)
    sc = b.fmul(_math("sin", x)(b, x), _math("cos", x)(b, x))
    wide = b.and_(_finite(b, x), b.fcmp_ordered(">", _fabs(b, x), fconst(ty, 1)))
    re = b.select(_isinf(b, y), _copysign(b, zero, b.select(wide, sc, x)), re)
    nan_y0 = b.and_(b.not_(_finite(b, x)), b.fcmp_ordered("==", y, zero))
    return pack(b, b.select(nan_y0, fconst(ty, math.nan), re), b.select(nan_y0, y, im))


def _naive_multiply(b, x, y):
    """(xr yr - xi yi, xr yi + xi yr), no fused multiply-add: NumPy's cmul in npy_cpow."""
    (xr, xi), (yr, yi) = parts(b, x), parts(b, y)
    return pack(b, b.fsub(b.fmul(xr, yr), b.fmul(xi, yi)), b.fadd(b.fmul(xr, yi), b.fmul(xi, yr)))


POW_BITS = 7        # NumPy's integer powers: |n| < 100, n's bits from the lowest


def _pow(b, a, dts, dt):
    """NumPy's npy_cpow, its cases in order: x^0 = 1; 0^y = 0 for re y > 0, else NaN; an
    integer y with |y| < 100 by repeated squaring (y = 1, 2, 3 unrolled; 1 / x^-y for y < 0);
    else exp(y log x) (glibc's cpow). Every case is computed and one selected; a constant
    exponent (x ** 2) folds to its own case."""
    x, y = a
    (xr, xi), (yr, yi) = parts(b, x), parts(b, y)
    ty = xr.type
    zero, one = fconst(ty, 0), const(dt, 1)
    nan = const(dt, complex(math.nan, math.nan))
    general = _exp(b, [_naive_multiply(b, y, _log(b, [x], dts, dt))], dts, dt)
    small = b.fcmp_ordered("<", _fabs(b, yr), fconst(ty, 100))     # and not NaN
    n = b.fptosi(b.select(small, yr, zero), ir.IntType(64))        # in range: no poison
    integral = b.and_(b.and_(small, b.fcmp_ordered("==", yi, zero)),
                      b.fcmp_ordered("==", b.sitofp(n, ty), yr))
    m = b.select(b.icmp_signed("<", n, ir.Constant(n.type, 0)), b.neg(n), n)
    p, acc = x, one
    for k in range(POW_BITS):
        bit = b.icmp_unsigned("!=", b.and_(m, ir.Constant(m.type, 1 << k)), ir.Constant(m.type, 0))
        acc = b.select(bit, _naive_multiply(b, acc, p), acc)
        p = _naive_multiply(b, p, p) if k < POW_BITS - 1 else p
    square = _naive_multiply(b, x, x)
    acc = b.select(b.fcmp_ordered("<", yr, zero), divide(b, one, acc), acc)
    for k, v in ((3, _naive_multiply(b, x, square)), (2, square), (1, x)):
        acc = b.select(b.icmp_signed("==", n, ir.Constant(n.type, k)), v, acc)
    out = b.select(integral, acc, general)
    x0 = b.and_(b.fcmp_ordered("==", xr, zero), b.fcmp_ordered("==", xi, zero))
    out = b.select(x0, b.select(b.fcmp_ordered(">", yr, zero), const(dt, 0), nan), out)
    y0 = b.and_(b.fcmp_ordered("==", yr, zero), b.fcmp_ordered("==", yi, zero))
    return b.select(y0, one, out)


def _rsqrt(b, a, dts, dt):
    """1 / sqrt(z), as the reference computes it (NumPy's complex divide)."""
    return divide(b, const(dt, 1), _sqrt(b, a, dts, dt))


# ----------------------------------------------------------------------------- parts, casts

def convert(b, a, dts, dt, real_convert):
    """real -> complex: (x, 0); complex -> complex: each part; complex -> real: the real part,
    converted as a float of the part's width (`real_convert`: llvm_exprs' real rule)."""
    src, dst = np.dtype(dts[0]), np.dtype(dt)
    if src.kind != "c":
        p = part_dtype(dst)
        re = real_convert(b, a, dts, p)
        return pack(b, re, fconst(re.type, 0))
    re, im = parts(b, a[0])
    if dst.kind == "c":
        p = part_dtype(dst)
        return pack(b, *(real_convert(b, [v], [part_dtype(src)], p) for v in (re, im)))
    return real_convert(b, [re], [part_dtype(src)], dt)


def _compare(sym):
    def emit(b, a, dts, dt):
        (xr, xi), (yr, yi) = parts(b, a[0]), parts(b, a[1])
        if sym == "==":
            return b.and_(b.fcmp_ordered("==", xr, yr), b.fcmp_ordered("==", xi, yi))
        return b.or_(b.fcmp_unordered("!=", xr, yr), b.fcmp_unordered("!=", xi, yi))
    return emit


def _either(test):
    return lambda b, a, dts, dt: b.or_(*(test(b, v) for v in parts(b, a[0])))


def _select(b, a, dts, dt):
    (xr, xi), (yr, yi) = parts(b, a[1]), parts(b, a[2])
    return pack(b, b.select(a[0], xr, yr), b.select(a[0], xi, yi))


def _binary(fn):
    return lambda b, a, dts, dt: fn(b, a[0], a[1])


def _unary(fn):
    """A function of z from its parts: fn(b, x, y) -> (re, im)."""
    return lambda b, a, dts, dt: pack(b, *fn(b, *parts(b, a[0])))


RULES = {
    Op.add: _binary(add), Op.sub: _sub, Op.mul: _binary(multiply), Op.div: _binary(divide),
    Op.neg: _neg, Op.conj: _conj, Op.square: _square, Op.abs: _abs, Op.sign: _sign,
    Op.exp: _exp, Op.expm1: _expm1, Op.log: _log, Op.sqrt: _sqrt, Op.rsqrt: _rsqrt, Op.pow: _pow,
    Op.sinh: _sinh, Op.cosh: _cosh, Op.sin: _sin, Op.cos: _cos, Op.tanh: _tanh, Op.tan: _tan,
    Op.real: lambda b, a, dts, dt: b.extract_value(a[0], 0),
    Op.imag: lambda b, a, dts, dt: b.extract_value(a[0], 1),
    Op.complex: lambda b, a, dts, dt: pack(b, a[0], a[1]),
    Op.eq: _compare("=="), Op.ne: _compare("!="),
    Op.isnan: _either(_isnan), Op.isinf: _either(_isinf),
    Op.select: _select,
    Op.stop_gradient: lambda b, a, dts, dt: a[0],
}


def supported(op, in_dtypes, out_dtype) -> bool:
    """Whether RULES (or the convert rule) computes `op` where one of its dtypes is complex."""
    names = [np.dtype(d).name for d in (*in_dtypes, out_dtype)]
    if op == Op.convert:
        return all(n in TYPES or np.dtype(n).kind in "fiub" for n in names)
    if op not in RULES:
        return False
    if op == Op.complex:
        return len(set(names[:2])) == 1 and PART.get(names[-1]) == names[0]
    values = names[1:] if op == Op.select else names
    return all(n in TYPES or np.dtype(n).kind == "b" or n == PART.get(values[0])
               for n in values)


# ----------------------------------------------------------------------------- reductions

def combine(b, kind, acc, v):
    """A reduction's accumulator absorbing v: sums part by part (reassociable, as the float
    sums), products by the complex multiply."""
    if kind == "sum":
        (ar, ai), (vr, vi) = parts(b, acc), parts(b, v)
        return pack(b, b.fadd(ar, vr, flags=("reassoc",)), b.fadd(ai, vi, flags=("reassoc",)))
    if kind == "prod":
        return multiply(b, acc, v)
    return None
