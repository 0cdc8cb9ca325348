"""Constants of the vectorizable math functions of the LLVM units (codegen/cpu/llvm_math*.py):
Cephes/musl coefficients, range limits. numpy only."""

import math

import numpy as np

F32 = np.float32


def as_f32(*values):
    return tuple(F32(v) for v in values)


# Adding 1.5 * 2**23 to |v| < 2**22 rounds v to an integer (ties to even), which
# then sits in the low mantissa bits.
ROUNDER32 = F32(1.5 * 2**23)
ROUNDER64 = 1.5 * 2**52

# float32

ONE32, HALF32, TWO32, ZERO32 = as_f32(1.0, 0.5, 2.0, 0.0)
INF32 = F32(np.inf)
SIGN32 = 0x80000000

LOG2E32 = F32(1.44269504088896341)
# ln 2 in two parts (Cody-Waite): n * LN2_HI32 is exact for the n used here.
LN2_HI32, LN2_LO32 = as_f32(0.693359375, -2.12194440e-4)
# Cephes expf: exp(r) = 1 + r + r**2 P(r) for |r| <= ln2/2.
EXP_P32 = as_f32(1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
                5.0000001201e-1)
# Past these, exp rounds to 0 or overflows; the scaling produces both.
EXP_MIN32, EXP_MAX32 = as_f32(-104.0, 90.0)

TANH_P32 = as_f32(-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1)

# Cephes logf: log(1 + f) = f - f**2/2 + f**3 P(f) for sqrt(1/2) <= 1 + f < sqrt(2).
LOG_P32 = as_f32(7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
                -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)
SQRT_HALF32 = F32(0.70710678118654752440)
MIN_NORMAL32 = F32(2.0**-126)

# float64

INF64 = np.inf
LOG2E64 = 1.4426950408889634073599
LN2_HI64, LN2_LO64 = 6.93145751953125e-1, 1.42860682030941723212e-6
# expm1(r) = r + r**2/2 + r**3 P(r) with P the Taylor coefficients 1/3! ... 1/13!:
# for |r| <= ln2/2 the first omitted term is below 2**-56 relative. The exact
# leading terms keep expm1(r) within about half an ulp, which expm1 needs (a
# rational form like Cephes exp loses ~2 ulp that 2**n (q + 1) - 1 amplifies).
EXPM1_P64 = tuple(1.0 / math.factorial(k) for k in range(13, 2, -1))
EXP_MIN64, EXP_MAX64 = -746.0, 710.0

# s = f / (2 + f), for sqrt(1/2) <= 1 + f < sqrt(2); R is split in even and
# odd powers of s**4 as in musl (Lg6, Lg4, Lg2 and Lg7, Lg5, Lg3, Lg1).
LOG_R_EVEN64 = (1.531383769920937332e-01, 2.222219843214978396e-01, 3.999999999940941908e-01)
LOG_R_ODD64 = (1.479819860511658591e-01, 1.818357216161805012e-01, 2.857142874366239149e-01,
                6.666666666666735130e-01)
LN2_HI_LOG64, LN2_LO_LOG64 = 6.93147180369123816490e-01, 1.90821492927058770002e-10
