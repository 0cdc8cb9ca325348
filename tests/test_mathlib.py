"""codegen/mathlib: accuracy in ulps against NumPy/SciPy in float64, NumPy's
special values, and that loops over the float32 functions compile to SIMD.

float32 functions are checked on every 97th float32 bit pattern (44M values,
all signs and exponents) plus special values; float64 ones on dense samples.
"""
import functools
import re

import numpy as np
import pytest
import scipy.special
from numba import njit

from jitgrad.codegen import mathlib
from jitgrad.codegen.bitcast import f32_to_bits

MAX_ULPS = 4

REFERENCE = {  # float64 references
    "exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p, "tanh": np.tanh, "erf": scipy.special.erf,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh,
    "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos, "atan2": np.arctan2, "pow": np.power,
    # scipy's expit is 1/(1+exp(-x)), which flushes x < -709 to 0 in float64
    "sigmoid": lambda x: np.where(x < 0, np.exp(x) / (1 + np.exp(x)), 1 / (1 + np.exp(-x))),
}
UNARY = [name for name in mathlib.NAMES if name not in mathlib.BINARY]
FAST_F64 = ["exp", "expm1", "log", "log1p", "tanh", "sigmoid", "erf"]
SPECIAL_F32 = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0,
                        1e-45, -1e-45, 1.1754944e-38, 3.4028235e38, -3.4028235e38, 88.72, 89.0, -87.3,
                        -103.9, -104.0, 200.0, -200.0, 1e10, -1e10, 16777216.0, -16777217.0,
                        33554434.0, 1.0000001, 0.99999994], np.float32)


@functools.cache
def kernel(name, dtype):
    """A loop applying mathlib's `name` in `dtype` elementwise, compiled once per test session."""
    fn = mathlib.math_function(name, dtype)
    if name in mathlib.BINARY:
        @njit
        def loop(x, y, out):
            for i in range(x.size):
                out[i] = fn(x[i], y[i])
    else:
        @njit
        def loop(x, out):
            for i in range(x.size):
                out[i] = fn(x[i])
    return loop


def apply(name, *args):
    out = np.empty_like(args[0])
    kernel(name, args[0].dtype.name)(*args, out)
    return out


def reference(name, *args):
    with np.errstate(all="ignore"):
        return REFERENCE[name](*(a.astype(np.float64) for a in args))


@njit
def _ordered(bits):  # sign-magnitude bits -> integers in float order (+0 and -0 both 0)
    return bits if bits >= 0 else -(bits & 0x7FFFFFFF)


@njit
def worst_f32(got, ref):
    """(largest ulp distance from float32(ref), its index); NaN must match NaN."""
    worst, where = 0, 0
    for i in range(got.size):
        want = np.float32(ref[i])
        if np.isnan(got[i]) or np.isnan(want):
            err = 0 if np.isnan(got[i]) and np.isnan(want) else 1 << 40
        else:
            err = abs(_ordered(np.int64(f32_to_bits(got[i]))) - _ordered(np.int64(f32_to_bits(want))))
        if err > worst:
            worst, where = err, i
    return worst, where


def ulps_f64(got, ref):
    def ordered(a):
        bits = a.view(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFFFFFFFFFF), bits)
    a, b = ordered(got), ordered(ref)
    far = 1 << 60  # across zero, capped so the sum cannot overflow
    across_zero = np.minimum(np.abs(a), far) + np.minimum(np.abs(b), far)
    err = np.where((a >= 0) == (b >= 0), np.abs(a - b), across_zero)
    err[np.isnan(got) & np.isnan(ref)] = 0
    err[np.isnan(got) ^ np.isnan(ref)] = far
    return err


def assert_specials_exact(got, ref64, inputs):
    """Where NumPy gives 0, inf or NaN, the result is exactly that, sign included."""
    with np.errstate(over="ignore"):
        want = ref64.astype(got.dtype)
    edge = (want == 0) | np.isinf(want) | np.isnan(want)
    same = (got == want) & (np.signbit(got) == np.signbit(want)) | np.isnan(got) & np.isnan(want)
    bad = edge & ~same
    assert not bad.any(), f"inputs {[a[bad][:5] for a in inputs]}: got {got[bad][:5]}, want {want[bad][:5]}"


def every_97th_f32(chunk=1 << 20):
    """Every 97th float32 bit pattern, in chunks that stay in cache and reuse
    memory (the 44M values at once cost more in page faults than in math)."""
    count = -(-2**32 // 97)
    for start in range(0, count, chunk):
        index = np.arange(start, min(start + chunk, count), dtype=np.uint32)
        yield (index * np.uint32(97)).view(np.float32)


# ------------------------------------------------------------------ table


def test_table_has_every_name_for_both_dtypes():
    assert set(mathlib.MATH) == {(n, d) for n in mathlib.NAMES for d in ("float32", "float64")}
    for (name, dtype), fn in mathlib.MATH.items():
        assert mathlib.math_function(name, dtype) is fn
        assert fn is getattr(mathlib, f"{name}_{'f32' if dtype == 'float32' else 'f64'}")


def test_unknown_function_or_dtype_names_both():
    with pytest.raises(KeyError, match=r"'gamma'.*'float32'"):
        mathlib.math_function("gamma", "float32")
    with pytest.raises(KeyError, match=r"'exp'.*'float16'"):
        mathlib.math_function("exp", "float16")


# --------------------------------------------------------------- float32


@pytest.mark.parametrize("name", UNARY)
def test_f32_within_4_ulp_on_every_97th_float(name):
    worst, example = 0, None
    for x in every_97th_f32():
        got, ref = apply(name, x), reference(name, x)
        err, i = worst_f32(got, ref)
        if err > worst:
            worst, example = err, f"{name}_f32({x[i]!r}) = {got[i]!r}, NumPy float64 gives {ref[i]!r}"
    assert worst <= MAX_ULPS, example


@pytest.mark.parametrize("name", UNARY)
def test_f32_special_values_as_numpy(name):
    got = apply(name, SPECIAL_F32)
    ref = reference(name, SPECIAL_F32)
    assert worst_f32(got, ref)[0] <= MAX_ULPS
    assert_specials_exact(got, ref, [SPECIAL_F32])


def binary_samples(name):
    rng = np.random.default_rng(0)
    n = 1_000_000
    random_bits = rng.integers(0, 2**32, (2, n), dtype=np.uint64).astype(np.uint32).view(np.float32)
    if name == "pow":  # bases and exponents whose powers stay mostly finite
        families = [(np.exp(rng.uniform(-20, 20, n)), rng.uniform(-30, 30, n)),
                    (-np.exp(rng.uniform(-5, 5, n)), rng.integers(-40, 40, n)),
                    (rng.uniform(0.5, 2, n), rng.uniform(-300, 300, n))]
    else:
        families = [(rng.standard_normal(n), rng.standard_normal(n))]
    grid = np.meshgrid(SPECIAL_F32, SPECIAL_F32)
    xs = [random_bits[0]] + [a for a, _ in families] + [grid[0].ravel()]
    ys = [random_bits[1]] + [b for _, b in families] + [grid[1].ravel()]
    with np.errstate(invalid="ignore"):
        return np.concatenate(xs).astype(np.float32), np.concatenate(ys).astype(np.float32)


@pytest.mark.parametrize("name", sorted(mathlib.BINARY))
def test_f32_binary_within_4_ulp_and_numpy_special_cases(name):
    x, y = binary_samples(name)
    got = apply(name, x, y)
    ref = reference(name, x, y)
    worst, i = worst_f32(got, ref)
    assert worst <= MAX_ULPS, f"{name}_f32({x[i]!r}, {y[i]!r}) = {got[i]!r}, NumPy float64 gives {ref[i]!r}"
    assert_specials_exact(got, ref, [x, y])


def test_pow_f32_numpy_semantics():
    x = np.array([-8, -8, -2, 0, -0.0, -0.0, np.nan, 1, -1, 0.5, -np.inf, -np.inf], np.float32)
    y = np.array([1 / 3, 3, 0.5, 0, -3, 3, 0, np.nan, np.inf, -np.inf, 3, -2], np.float32)
    with np.errstate(all="ignore"):
        want = np.power(x, y)
    got = apply("pow", x, y)
    np.testing.assert_array_equal(got, want)
    assert_specials_exact(got, want, [x, y])


VECTORIZED = ["exp", "tanh", "sigmoid", "log", "erf"]
PACKED_FLOAT_OP = re.compile(r"\tv(fmadd\w*|mul|add|sub|div)ps\s[^\n]*%[yz]mm")


@pytest.mark.parametrize("name", VECTORIZED)
def test_f32_loops_compile_to_packed_simd_in_float32(name):
    loop = kernel(name, "float32")
    loop(SPECIAL_F32, np.empty_like(SPECIAL_F32))  # compiled by the accuracy test already
    signature = loop.signatures[0]
    assert PACKED_FLOAT_OP.search(loop.inspect_asm(signature)), f"{name}_f32 loop is not vectorized"
    assert "fpext" not in loop.inspect_llvm(signature), f"{name}_f32 computes in float64"


# --------------------------------------------------------------- float64


SPECIAL_F64 = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 5e-324, -5e-324,
                        2.2250738585072014e-308, 1e-300, 709.78, 709.79, -745.1, -745.2, -800.0])


def f64_samples():
    """All magnitudes (log-uniform), the range where most functions vary, and specials."""
    rng = np.random.default_rng(1)
    n = 300_000
    magnitudes = np.exp(rng.uniform(np.log(1e-310), np.log(1e308), n)) * rng.choice([-1, 1], n)
    return np.concatenate([magnitudes, rng.uniform(-40, 40, n), rng.uniform(-2, 2, n), SPECIAL_F64])


@pytest.mark.parametrize("name", FAST_F64)
def test_f64_within_4_ulp_on_dense_samples(name):
    x = f64_samples()
    got = apply(name, x)
    ref = reference(name, x)
    err = ulps_f64(got, ref)
    i = np.argmax(err)
    assert err[i] <= MAX_ULPS, f"{name}_f64({x[i]!r}) = {got[i]!r}, NumPy gives {ref[i]!r}"
    assert_specials_exact(got, ref, [x])


@pytest.mark.parametrize("name", [n for n in UNARY if n not in FAST_F64])
def test_f64_fallbacks_match_numpy(name):
    x = np.concatenate([SPECIAL_F64, np.random.default_rng(2).uniform(-10, 10, 1000)])
    got = apply(name, x)
    ref = reference(name, x)
    assert ulps_f64(got, ref).max() <= 2
    assert_specials_exact(got, ref, [x])


@pytest.mark.parametrize("name", sorted(mathlib.BINARY))
def test_f64_binary_fallbacks_match_numpy(name):
    grid = np.meshgrid(SPECIAL_F32.astype(np.float64), SPECIAL_F32.astype(np.float64))
    x, y = grid[0].ravel(), grid[1].ravel()
    got = apply(name, x, y)
    ref = reference(name, x, y)
    assert ulps_f64(got, ref).max() <= 2
    assert_specials_exact(got, ref, [x, y])
