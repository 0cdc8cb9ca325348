"""erf and the hyperbolic functions as LLVM IR, for the LLVM kernel units.

float64 erf and float32 sinh/cosh are Cephes' algorithms; float32 erf is XLA's rational,
evaluated in float64. float64 sinh/cosh use the same
formulas over this backend's float64 exp/expm1. asinh, acosh and atanh are musl's formulas over
log/log1p/sqrt, selects instead of branches; float32 evaluates them in float64 and rounds once.
"""
from __future__ import annotations

import math

from llvmlite import ir

from . import math_constants as C
from .llvm_math import (F32, F64, clamp, copysign, exp_f64, expm1_f32, expm1_f64,
                        expm1_reduced_f32, expm1_reduced_f64, fabs, fconst, intrinsic, ldexp, log1p_f64,
                        log_f64, poly, sel)

I32, I64 = ir.IntType(32), ir.IntType(64)

# Cephes erf
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


# XLA's float32 erf (Eigen's generic_fast_erf_float): odd over even polynomials in x*x with x
# clamped to [-4, 4]. Evaluated in float32 it is 7 ulp off in the tails; in float64 (these are
# its double coefficients) and rounded once, 1.6 ulp, with no branch and one division
_ERF_NUM = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
            -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
            -1.60960333262415e-02)
_ERF_DEN = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
            -7.37332916720468e-03, -1.42647390514189e-02)


def erf_f32(b, x):
    c = clamp(b, b.fpext(x, F64), fconst(F64, -4), fconst(F64, 4))
    z = b.fmul(c, c)
    return b.fptrunc(b.fdiv(b.fmul(c, poly(b, z, _ERF_NUM)), poly(b, z, _ERF_DEN)), F32)


def erf_f64(b, x):
    one = fconst(F64, 1)
    a = fabs(b, x)
    z = b.fmul(a, a)
    small = b.fmul(a, b.fdiv(poly(b, z, _ERF_T64), poly(b, z, _ERF_U64)))
    c = clamp(b, a, one, fconst(F64, 8))
    large = b.fsub(one, b.fmul(exp_f64(b, b.fmul(b.fneg(c), c)),
                               b.fdiv(poly(b, c, _ERFC_P64), poly(b, c, _ERFC_Q64))))
    return copysign(b, sel(b, b.fcmp_ordered("<", a, one), small, large), x)


# ----------------------------------------------------------------------------- sinh, cosh

_EXP_LIMITS = {F32: (C.EXP_MIN32, C.EXP_MAX32), F64: (C.EXP_MIN64, 712.0)}


def _half_exp(b, x):
    """exp(x) / 2 rounded once: finite where exp(x) is not.
    float64 clamps above 710 (sinh and cosh overflow only past 710.47)."""
    ty = x.type
    lo, hi = _EXP_LIMITS[ty]
    reduced = expm1_reduced_f32 if ty == F32 else expm1_reduced_f64
    q, n = reduced(b, clamp(b, x, fconst(ty, lo), fconst(ty, hi)))
    return ldexp(b, b.fadd(q, fconst(ty, 1)), b.sub(n, ir.Constant(n.type, 1)))


def _sinh(expm1):
    def sinh(b, x):
        ty = x.type
        one = fconst(ty, 1)
        a = fabs(b, x)
        em = expm1(b, a)
        small = b.fmul(fconst(ty, 0.5), b.fadd(em, b.fdiv(em, b.fadd(em, one))))
        h = _half_exp(b, a)
        large = b.fsub(h, b.fdiv(fconst(ty, 0.25), h))
        return copysign(b, sel(b, b.fcmp_ordered("<", a, one), small, large), x)
    return sinh


def cosh(b, x):
    h = _half_exp(b, fabs(b, x))
    return b.fadd(h, b.fdiv(fconst(x.type, 0.25), h))


# ----------------------------------------------------------------------------- inverse hyperbolic

_LN2 = math.log(2)


def asinh_f64(b, x):
    """musl asinh: log(a) + ln2 from 2**26, log(2a + 1/(sqrt(a^2+1) + a)) from 2,
    log1p(a + a^2/(sqrt(a^2+1) + 1)) below (a itself below 2**-26)."""
    one = fconst(F64, 1)
    a = fabs(b, x)
    a2 = b.fmul(a, a)
    root = intrinsic(b, "llvm.sqrt", F64, b.fadd(a2, one))
    huge = b.fadd(log_f64(b, a), fconst(F64, _LN2))
    big = log_f64(b, b.fadd(b.fadd(a, a), b.fdiv(one, b.fadd(root, a))))
    mid = log1p_f64(b, b.fadd(a, b.fdiv(a2, b.fadd(root, one))))
    res = sel(b, b.fcmp_ordered(">=", a, fconst(F64, 2.0 ** 26)), huge,
              sel(b, b.fcmp_ordered(">=", a, fconst(F64, 2)), big,
                  sel(b, b.fcmp_ordered(">=", a, fconst(F64, 2.0 ** -26)), mid, a)))
    return copysign(b, res, x)


def acosh_f64(b, x):
    """musl acosh: log1p(t + sqrt(2t + t^2)) with t = x - 1 below 2, log(2x - 1/(x +
    sqrt(x^2 - 1))) below 2**26, log(x) + ln2 above; NaN below 1."""
    one = fconst(F64, 1)
    t = b.fsub(x, one)
    near = log1p_f64(b, b.fadd(t, intrinsic(b, "llvm.sqrt", F64, b.fadd(b.fadd(t, t), b.fmul(t, t)))))
    root = intrinsic(b, "llvm.sqrt", F64, b.fsub(b.fmul(x, x), one))
    big = log_f64(b, b.fsub(b.fadd(x, x), b.fdiv(one, b.fadd(x, root))))
    huge = b.fadd(log_f64(b, x), fconst(F64, _LN2))
    res = sel(b, b.fcmp_unordered("<", x, fconst(F64, 2)), near,
              sel(b, b.fcmp_ordered("<", x, fconst(F64, 2.0 ** 26)), big, huge))
    return sel(b, b.fcmp_ordered("<", x, one), fconst(F64, float("nan")), res)


def atanh_f64(b, x):
    """musl atanh: log1p(2a + 2a^2/(1 - a)) / 2 below 1/2, log1p(2a/(1 - a)) / 2 above."""
    one, half = fconst(F64, 1), fconst(F64, 0.5)
    a = fabs(b, x)
    a2 = b.fadd(a, a)
    low = log1p_f64(b, b.fadd(a2, b.fdiv(b.fmul(a2, a), b.fsub(one, a))))
    high = log1p_f64(b, b.fdiv(a2, b.fsub(one, a)))
    res = b.fmul(half, sel(b, b.fcmp_ordered("<", a, half), low, high))
    res = sel(b, b.fcmp_ordered("<", a, fconst(F64, 2.0 ** -28)), a, res)
    return copysign(b, res, x)


def _via_f64(fn):
    """A float32 function evaluated in float64 and rounded once (within 1 ulp of float32)."""
    return lambda b, x: b.fptrunc(fn(b, b.fpext(x, F64)), F32)


FUNCTIONS = {
    ("erf", "float32"): erf_f32, ("erf", "float64"): erf_f64,
    ("sinh", "float32"): _sinh(expm1_f32), ("sinh", "float64"): _sinh(expm1_f64),
    ("cosh", "float32"): cosh, ("cosh", "float64"): cosh,
    ("asinh", "float64"): asinh_f64, ("acosh", "float64"): acosh_f64,
    ("atanh", "float64"): atanh_f64,
    ("asinh", "float32"): _via_f64(asinh_f64), ("acosh", "float32"): _via_f64(acosh_f64),
    ("atanh", "float32"): _via_f64(atanh_f64),
}
