"""Vectorizable math functions as LLVM IR, for the LLVM kernels (codegen/cpu/llvm_kernels.py).

Branch-free algorithms with the constants of codegen/cpu/math_constants.py (Cephes, musl): selects
instead of branches, Horner polynomials with fmuladd, exponents built from bits. Each
function is emitted inline at its use, so the loop vectorizer sees straight-line code and packs
it. `FUNCTIONS[(name, dtype name)](b, x) -> value`; a name/dtype pair missing here means the
op is not supported by the LLVM backend (llvm_kernels.why_not says so).
"""
from __future__ import annotations

from llvmlite import ir

from . import math_constants as C

F32, F64 = ir.FloatType(), ir.DoubleType()
I32, I64 = ir.IntType(32), ir.IntType(64)


def fconst(ty, v):
    return ir.Constant(ty, float(v))


def intrinsic(b, name, ty, *args):
    """name(args) overloaded on ty, a scalar or (llvmlite names no vector overload) a vector."""
    if isinstance(ty, ir.VectorType):
        full = f"{name}.v{ty.count}{ty.element.intrinsic_name}"
        fn = b.module.globals.get(full) or ir.Function(b.module, ir.FunctionType(ty, [ty] * len(args)),
                                                       name=full)
    else:
        fn = b.module.declare_intrinsic(name, [ty], ir.FunctionType(ty, [ty] * len(args)))
    return b.call(fn, list(args))


def poly(b, x, coeffs):
    """Horner evaluation, coefficients from the highest power down."""
    ty = x.type
    acc = fconst(ty, coeffs[0])
    for c in coeffs[1:]:
        acc = intrinsic(b, "llvm.fmuladd", ty, acc, x, fconst(ty, c))
    return acc


def sel(b, cond, x, y):
    return b.select(cond, x, y)


def clamp(b, x, lo, hi):
    """min(max(x, lo), hi) that lets NaN through."""
    x = sel(b, b.fcmp_ordered("<", x, lo), lo, x)
    return sel(b, b.fcmp_ordered(">", x, hi), hi, x)


def _log_edges(b, x, res, inf):
    """log-like results at the edge of the domain, as NumPy gives them."""
    ty = x.type
    res = sel(b, b.fcmp_ordered("<", x, fconst(ty, 0)), fconst(ty, float("nan")), res)
    res = sel(b, b.fcmp_ordered("==", x, fconst(ty, 0)), fconst(ty, -float("inf")), res)
    return sel(b, b.fcmp_ordered("<", x, inf), res, x)       # +inf and NaN pass through


def copysign(b, x, s):
    return intrinsic(b, "llvm.copysign", x.type, x, s)


def fabs(b, x):
    return intrinsic(b, "llvm.fabs", x.type, x)


def _div(b, x, y):
    return b.fdiv(x, y)


# ----------------------------------------------------------------------------- float32

# per float type: (integer type of its bits, the rounding constant, exponent bias, mantissa bits)
_FLOAT = {F32: (I32, C.ROUNDER32, 127, 23), F64: (I64, C.ROUNDER64, 1023, 52)}


def round_int(b, v):
    """(round(v) as a float, as an integer of the float's width) for |v| < 2**22 (2**51)."""
    it, rounder, _, _ = _FLOAT[v.type]
    r = fconst(v.type, rounder)
    n = b.sub(b.bitcast(b.fadd(v, r), it), b.bitcast(r, it))
    return b.sitofp(n, v.type), n


def ldexp(b, p, n):
    """p * 2**n for p near 1, in two halves so neither factor leaves the normal range."""
    it, _, bias, mant = _FLOAT[p.type]
    half = b.ashr(n, ir.Constant(it, 1))

    def pow2(e):
        return b.bitcast(b.shl(b.add(e, ir.Constant(it, bias)), ir.Constant(it, mant)), p.type)
    return b.fmul(b.fmul(p, pow2(half)), pow2(b.sub(n, half)))


def expm1_reduced_f32(b, x):
    kf, n = round_int(b, b.fmul(x, fconst(F32, C.LOG2E32)))
    r = b.fsub(b.fsub(x, b.fmul(kf, fconst(F32, C.LN2_HI32))), b.fmul(kf, fconst(F32, C.LN2_LO32)))
    return b.fadd(b.fmul(b.fmul(r, r), poly(b, r, C.EXP_P32)), r), n


def _zero_below(b, x, lo, compute):
    """compute(x) where x >= lo, else +0.0 (what exp rounds to there), with the lanes below lo
    computing at 0: exp(-inf) (a causal attention mask's entries) made ldexp underflow to 0
    through subnormal products, ~10x slower per element on x86 (micro-code assists)."""
    under = b.fcmp_ordered("<", x, lo)
    zero = fconst(x.type, 0.0)
    return b.select(under, zero, compute(b.select(under, zero, x)))


def exp_f32(b, x):
    def compute(x):
        x = clamp(b, x, fconst(F32, C.EXP_MIN32), fconst(F32, C.EXP_MAX32))
        q, n = expm1_reduced_f32(b, x)
        return ldexp(b, b.fadd(q, fconst(F32, 1)), n)
    return _zero_below(b, x, fconst(F32, C.EXP_MIN32), compute)


def tanh_f32(b, x):
    a = fabs(b, x)
    z = b.fmul(a, a)
    small = b.fadd(a, b.fmul(b.fmul(a, z), poly(b, z, C.TANH_P32)))
    one = fconst(F32, 1)
    large = b.fsub(one, _div(b, fconst(F32, 2), b.fadd(exp_f32(b, b.fadd(a, a)), one)))
    return copysign(b, sel(b, b.fcmp_ordered("<", a, fconst(F32, 0.625)), small, large), x)


def sigmoid_f32(b, x):
    return _sigmoid(b, x, exp_f32)


def _sigmoid(b, x, exp):
    ty = x.type
    e = exp(b, b.fneg(fabs(b, x)))          # in (0, 1]: never overflows
    one = fconst(ty, 1)
    return _div(b, sel(b, b.fcmp_ordered(">=", x, fconst(ty, 0)), one, e), b.fadd(one, e))


def _log_reduced_f32(b, x):
    """(f, e, y): x = 2**e (1 + f), sqrt(1/2) <= 1 + f < sqrt(2), log(1 + f) = f + y."""
    sub = b.fcmp_ordered("<", x, fconst(F32, C.MIN_NORMAL32))
    bits = b.bitcast(sel(b, sub, b.fmul(x, fconst(F32, 2.0 ** 23)), x), I32)
    e = b.sub(b.and_(b.ashr(bits, ir.Constant(I32, 23)), ir.Constant(I32, 0xFF)),
              sel(b, sub, ir.Constant(I32, 149), ir.Constant(I32, 126)))
    m = b.bitcast(b.or_(b.and_(bits, ir.Constant(I32, 0x7FFFFF)), ir.Constant(I32, 0x3F000000)), F32)
    low = b.fcmp_ordered("<", m, fconst(F32, C.SQRT_HALF32))
    f = b.fsub(sel(b, low, b.fadd(m, m), m), fconst(F32, 1))
    z = b.fmul(f, f)
    y = b.fsub(b.fmul(b.fmul(f, z), poly(b, f, C.LOG_P32)), b.fmul(fconst(F32, 0.5), z))
    return f, b.sitofp(sel(b, low, b.sub(e, ir.Constant(I32, 1)), e), F32), y


def log_f32(b, x):
    f, e, y = _log_reduced_f32(b, x)
    res = b.fadd(b.fadd(f, b.fadd(y, b.fmul(e, fconst(F32, C.LN2_LO32)))),
                 b.fmul(e, fconst(F32, C.LN2_HI32)))
    return _log_edges(b, x, res, fconst(F32, float("inf")))


def log1p_f32(b, x):
    one = fconst(F32, 1)
    u = b.fadd(x, one)
    f, e, y = _log_reduced_f32(b, u)
    c = _div(b, b.fsub(x, b.fsub(u, one)), u)      # log(1 + x) - log(u), to first order
    res = b.fadd(b.fadd(f, b.fadd(y, b.fadd(b.fmul(e, fconst(F32, C.LN2_LO32)), c))),
                 b.fmul(e, fconst(F32, C.LN2_HI32)))
    res = _log_edges(b, u, res, fconst(F32, float("inf")))
    return sel(b, b.fcmp_ordered("==", x, fconst(F32, 0)), x, res)   # keeps the sign of -0.0


def expm1_f32(b, x):
    q, n = expm1_reduced_f32(b, clamp(b, x, fconst(F32, -25.0), fconst(F32, C.EXP_MAX32)))
    n25 = sel(b, b.icmp_signed("<", n, ir.Constant(I32, 25)), n, ir.Constant(I32, 25))
    pow2 = b.bitcast(b.shl(b.sub(ir.Constant(I32, 127), n25), ir.Constant(I32, 23)), F32)
    res = ldexp(b, b.fadd(q, b.fsub(fconst(F32, 1), pow2)), n)
    return sel(b, b.fcmp_ordered("==", x, fconst(F32, 0)), x, res)


# constant exponents computed by multiplying in float64: x*x is exact there and a cube or a 4th
# power is rounded once, so the float32 result is as close as exp(y log|x|)'s and every special
# value (inf, NaN, -0.0, overflow) falls out of the products; a GELU's x**3 ran 4x slower by exp/log
SMALL_POWERS = {2: lambda b, x: b.fmul(x, x), 3: lambda b, x: b.fmul(b.fmul(x, x), x),
                4: lambda b, x: b.fmul(b.fmul(x, x), b.fmul(x, x))}


def pow_f32(b, x, y):
    """x**y as NumPy's float32 power: exp(y log|x|) in float64, then C99 powf's special cases."""
    small = SMALL_POWERS.get(y.constant) if isinstance(y, ir.Constant) else None
    if small is not None:
        return b.fptrunc(small(b, b.fpext(x, F64)), F32)
    one, zero, inf = fconst(F32, 1), fconst(F32, 0), fconst(F32, float("inf"))
    xd, yd = b.fpext(fabs(b, x), F64), b.fpext(y, F64)
    res = b.fptrunc(exp_f64(b, b.fmul(yd, log_f64(b, xd))), F32)
    floor = lambda v: intrinsic(b, "llvm.floor", F32, v)      # noqa: E731
    y_int = b.fcmp_ordered("==", floor(y), y)
    half = b.fmul(y, fconst(F32, 0.5))
    y_odd = b.and_(y_int, b.fcmp_unordered("!=", floor(half), half))
    neg_x = b.icmp_signed("<", b.bitcast(x, I32), ir.Constant(I32, 0))
    res = sel(b, b.and_(y_odd, neg_x), b.fneg(res), res)
    neg_frac = b.and_(b.and_(b.fcmp_ordered("<", x, zero), b.fcmp_ordered(">", x, b.fneg(inf))),
                      b.xor(y_int, ir.Constant(ir.IntType(1), 1)))
    res = sel(b, neg_frac, fconst(F32, float("nan")), res)
    unit_inf = b.and_(b.fcmp_ordered("==", fabs(b, x), one), b.fcmp_ordered("==", fabs(b, y), inf))
    res = sel(b, unit_inf, one, res)
    return sel(b, b.or_(b.fcmp_ordered("==", y, zero), b.fcmp_ordered("==", x, one)), one, res)


def pow_f64(b, x, y):
    return intrinsic(b, "llvm.pow", F64, x, y)      # libm's pow, as numba's x ** y


# ----------------------------------------------------------------------------- float64

def expm1_reduced_f64(b, x):
    kf, n = round_int(b, b.fmul(x, fconst(F64, C.LOG2E64)))
    r = b.fsub(b.fsub(x, b.fmul(kf, fconst(F64, C.LN2_HI64))), b.fmul(kf, fconst(F64, C.LN2_LO64)))
    rr = b.fmul(r, r)
    return b.fadd(r, b.fadd(b.fmul(fconst(F64, 0.5), rr),
                            b.fmul(b.fmul(rr, r), poly(b, r, C.EXPM1_P64)))), n


def exp_f64(b, x):
    def compute(x):
        q, n = expm1_reduced_f64(b, clamp(b, x, fconst(F64, C.EXP_MIN64), fconst(F64, C.EXP_MAX64)))
        return ldexp(b, b.fadd(q, fconst(F64, 1)), n)
    return _zero_below(b, x, fconst(F64, C.EXP_MIN64), compute)


def expm1_f64(b, x):
    q, n = expm1_reduced_f64(b, clamp(b, x, fconst(F64, -40.0), fconst(F64, C.EXP_MAX64)))
    n54 = sel(b, b.icmp_signed("<", n, ir.Constant(I64, 54)), n, ir.Constant(I64, 54))
    pow2 = b.bitcast(b.shl(b.sub(ir.Constant(I64, 1023), n54), ir.Constant(I64, 52)), F64)
    res = ldexp(b, b.fadd(q, b.fsub(fconst(F64, 1), pow2)), n)
    return sel(b, b.fcmp_ordered("==", x, fconst(F64, 0)), x, res)   # keeps the sign of -0.0


def tanh_f64(b, x):
    em = expm1_f64(b, b.fmul(fconst(F64, -2), fabs(b, x)))    # tanh|x| = -em / (em + 2)
    return copysign(b, _div(b, b.fneg(em), b.fadd(em, fconst(F64, 2))), x)


def sigmoid_f64(b, x):
    return _sigmoid(b, x, exp_f64)


def _log_reduced_f64(b, x):
    """(f, k, hfsq, t): x = 2**k (1 + f) and log(1 + f) = (t - hfsq) + f (musl's log)."""
    sub = b.fcmp_ordered("<", x, fconst(F64, 2.0 ** -1022))
    bits = b.bitcast(sel(b, sub, b.fmul(x, fconst(F64, 2.0 ** 54)), x), I64)
    c = lambda v: ir.Constant(I64, v)     # noqa: E731
    hx = b.add(b.ashr(bits, c(32)), c(0x3FF00000 - 0x3FE6A09E))
    k = b.sub(b.ashr(hx, c(20)), sel(b, sub, c(0x3FF + 54), c(0x3FF)))
    mant = b.or_(b.shl(b.add(b.and_(hx, c(0x000FFFFF)), c(0x3FE6A09E)), c(32)),
                 b.and_(bits, c(0xFFFFFFFF)))
    f = b.fsub(b.bitcast(mant, F64), fconst(F64, 1))
    hfsq = b.fmul(b.fmul(fconst(F64, 0.5), f), f)
    s = _div(b, f, b.fadd(fconst(F64, 2), f))
    z = b.fmul(s, s)
    w = b.fmul(z, z)
    r = b.fadd(b.fmul(w, poly(b, w, C.LOG_R_EVEN64)), b.fmul(z, poly(b, w, C.LOG_R_ODD64)))
    return f, b.sitofp(k, F64), hfsq, b.fmul(s, b.fadd(hfsq, r))


def log_f64(b, x):
    f, kf, hfsq, t = _log_reduced_f64(b, x)
    res = b.fadd(b.fadd(b.fsub(b.fadd(t, b.fmul(kf, fconst(F64, C.LN2_LO_LOG64))), hfsq), f),
                 b.fmul(kf, fconst(F64, C.LN2_HI_LOG64)))
    return _log_edges(b, x, res, fconst(F64, float("inf")))


def log1p_f64(b, x):
    one = fconst(F64, 1)
    u = b.fadd(x, one)
    f, kf, hfsq, t = _log_reduced_f64(b, u)
    c = _div(b, b.fsub(x, b.fsub(u, one)), u)
    res = b.fadd(b.fadd(b.fsub(b.fadd(t, b.fadd(b.fmul(kf, fconst(F64, C.LN2_LO_LOG64)), c)),
                               hfsq), f), b.fmul(kf, fconst(F64, C.LN2_HI_LOG64)))
    res = _log_edges(b, u, res, fconst(F64, float("inf")))
    return sel(b, b.fcmp_ordered("==", x, fconst(F64, 0)), x, res)


FUNCTIONS = {
    ("exp", "float32"): exp_f32, ("expm1", "float32"): expm1_f32, ("tanh", "float32"): tanh_f32,
    ("sigmoid", "float32"): sigmoid_f32, ("log", "float32"): log_f32,
    ("log1p", "float32"): log1p_f32, ("pow", "float32"): pow_f32,
    ("exp", "float64"): exp_f64, ("expm1", "float64"): expm1_f64, ("tanh", "float64"): tanh_f64,
    ("sigmoid", "float64"): sigmoid_f64, ("log", "float64"): log_f64,
    ("log1p", "float64"): log1p_f64, ("pow", "float64"): pow_f64,
}
