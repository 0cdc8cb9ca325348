"""The LLVM units' trigonometric, inverse-trigonometric, hyperbolic and erf functions
(codegen/cpu/llvm_math_trig.py, llvm_math_special.py) against NumPy/SciPy, in ulps of the result
type, on special values (zeros, infinities, NaN, subnormals, huge values, the branch points of
each algorithm) and random ones; float32 loops over them compile to packed SIMD.

ULP_BOUND is the stated bound per function and dtype (README "Code generation"). The float32
branch-free versions are within 4 ulp; what is evaluated in float64 and rounded once is within 1;
float64 libm calls (sin, cos, tan) within 1 of NumPy's.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.special
from llvmlite import ir

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.codegen.cpu import units as cpu_units, llvm_jit
from jitgrad.codegen.cpu.llvm_exprs import counted_loop
from jitgrad.codegen.cpu.llvm_math_table import FUNCTIONS

#          name: (jnp function, reference, float32 bound, float64 bound)
ULP_BOUND = {
    "sin": (jnp.sin, np.sin, 4, 1),
    "cos": (jnp.cos, np.cos, 4, 1),
    "tan": (jnp.tan, np.tan, 4, 1),
    "asin": (jnp.arcsin, np.arcsin, 4, 2),
    "acos": (jnp.arccos, np.arccos, 4, 2),
    "atan": (jnp.arctan, np.arctan, 4, 2),
    "sinh": (jnp.sinh, np.sinh, 4, 2),
    "cosh": (jnp.cosh, np.cosh, 4, 2),
    "asinh": (jnp.arcsinh, np.arcsinh, 1, 2),
    "acosh": (jnp.arccosh, np.arccosh, 1, 2),
    "atanh": (jnp.arctanh, np.arctanh, 1, 2),
    "erf": (jnp.erf, scipy.special.erf, 2, 4),   # float32: a float64 rational, rounded once
    "atan2": (jnp.arctan2, np.arctan2, 4, 2),
    "pow": (jnp.power, np.power, 4, 1),
}
BINARY = {"atan2", "pow"}
# the float32 functions (and float64 erf) computed by branch-free polynomials
PORTS = [("sin", "float32"), ("cos", "float32"), ("tan", "float32"), ("asin", "float32"),
         ("acos", "float32"), ("atan", "float32"), ("sinh", "float32"), ("cosh", "float32"),
         ("erf", "float32"), ("atan2", "float32"), ("erf", "float64")]

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, 1e-300, -1e-310, 1e-8, -1e-8,
           1.0, -1.0, 0.5, -0.5, 0.625, -0.625, 0.66, 0.4142135, 2.4142137, 2.0, -2.0, 3.0, 8.0,
           1.0000001, 0.99999994, -0.99999994, np.pi / 4, np.pi / 2, np.pi, 1e10, -1e10,
           16777216.0, 1e30, -1e30, 3.4e38, 88.7, 89.5, -103.0, 710.0, 710.5, -711.0, 1e300,
           2.0 ** 26, 2.0 ** -26, 2.0 ** -28]


def _fn(name):
    return ULP_BOUND[name][0]


@np.errstate(over="ignore")
def samples(dt):
    rng = np.random.default_rng(0)
    sign = rng.choice([-1.0, 1.0], 1500)
    x = np.concatenate([SPECIAL, rng.standard_normal(1500) * 10, rng.uniform(-1.2, 1.2, 1500),
                        np.exp(rng.uniform(-80, 80, 1500)) * sign]).astype(dt)
    y = np.concatenate([SPECIAL[::-1], rng.standard_normal(x.size - len(SPECIAL)) * 3]).astype(dt)
    y[100:300] = np.round(y[100:300])
    grid = np.array(SPECIAL, dt)
    return (np.concatenate([x, np.repeat(grid, grid.size)]),
            np.concatenate([y, np.tile(grid, grid.size)]))


def ulps(got, want):
    """Distance in representable values of the dtype; NaN must meet NaN."""
    it = np.int32 if got.dtype == np.float32 else np.int64

    def ordered(a):
        b = a.view(it).astype(np.int64)
        return np.where(b < 0, -(b & np.iinfo(it).max), b)
    err = np.abs(ordered(got) - ordered(want)).astype(np.float64)
    err[np.isnan(got) & np.isnan(want)] = 0
    err[np.isnan(got) != np.isnan(want)] = np.inf
    return err


def _compute(names, dt, kernels, monkeypatch):
    """Every function of `names` over the samples in one jitted call (one fused kernel)."""
    assert kernels == "llvm"
    cpu_units.forget()
    x, y = samples(dt)

    def f(x, y):
        return tuple(_fn(n)(x, y) if n in BINARY else _fn(n)(x) for n in names)
    jf = jg.jit(f)
    outs = [np.asarray(o) for o in jf(x, y)]
    targets = {u.target for u in jf.lower(x, y).compile().units}
    assert targets == {"cpu-llvm"}, targets
    return dict(zip(names, outs)), x, y


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_within_the_stated_ulp_bound_of_numpy(dt, monkeypatch):
    names = list(ULP_BOUND)
    got, x, y = _compute(names, dt, "llvm", monkeypatch)
    bad = []
    for name in names:
        ref = ULP_BOUND[name][1]
        with np.errstate(all="ignore"):
            want = (ref(x.astype(np.float64), y.astype(np.float64)) if name in BINARY
                    else ref(x.astype(np.float64))).astype(dt)
            if name == "pow" and dt == "float64":
                want = ref(x, y)
        err = ulps(got[name], want)
        i = int(np.argmax(err))
        bound = ULP_BOUND[name][2 if dt == "float32" else 3]
        if err[i] > bound:
            bad.append(f"{name}_{dt}({x[i]!r}{', ' + repr(y[i]) if name in BINARY else ''}) = "
                       f"{got[name][i]!r}, NumPy {want[i]!r}: {err[i]} ulp > {bound}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_special_values_exactly_as_numpy(dt, monkeypatch):
    """At zeros, infinities and NaN the result is NumPy's exactly (signed zeros included)."""
    names = [n for n in ULP_BOUND if n not in BINARY]
    got, x, _ = _compute(names, dt, "llvm", monkeypatch)
    at = np.isin(x, np.array([0.0, np.inf, -np.inf], dt)) | np.isnan(x)
    for name in names:
        with np.errstate(all="ignore"):
            want = ULP_BOUND[name][1](x[at].astype(np.float64)).astype(dt)
        g = got[name][at]
        assert ((g == want) & (np.signbit(g) == np.signbit(want)) |
                (np.isnan(g) & np.isnan(want))).all(), (name, x[at], g, want)


def test_every_record_math_function_has_both_dtypes():
    from jitgrad.codegen.cpu.llvm_exprs import EXPR
    from jitgrad.ir.ops import Op
    for op in (Op.sin, Op.cos, Op.tan, Op.asin, Op.acos, Op.atan, Op.atan2, Op.sinh, Op.cosh,
               Op.asinh, Op.acosh, Op.atanh, Op.erf, Op.pow):
        assert op in EXPR, op
    for name in ULP_BOUND:
        assert (name, "float32") in FUNCTIONS and (name, "float64") in FUNCTIONS, name


@pytest.mark.parametrize("name", [n for n, d in PORTS if d == "float32"]
                         + ["asinh", "acosh", "atanh"])
def test_float32_loops_compile_to_packed_simd(name):
    f32 = ir.FloatType()
    mod = ir.Module(name="simd_check")
    ptr = ir.PointerType(f32)
    i64 = ir.IntType(64)
    fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), [ptr, ptr, i64]), name="loop")
    x, out, n = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    with counted_loop(b, n) as i:
        v = b.load(b.gep(x, [i], inbounds=True))
        args = (v, v) if name in BINARY else (v,)
        b.store(FUNCTIONS[name, "float32"](b, *args), b.gep(out, [i], inbounds=True))
    b.ret_void()
    asm = llvm_jit.assembly(str(mod))
    assert re.search(r"\b\w+p[sd]\s+%[xyz]mm", asm), f"{name}: no packed float instruction"
    assert not re.search(r"call\s+\w*(sin|cos|tan|erf|asinh|acosh|atanh)f?\b", asm), name


@pytest.mark.parametrize("n", [3, 4, -3.0, 2.5])
def test_constant_exponents_float32(n):
    """x**3 and x**4 with a constant exponent are products in float64 rounded once
    (llvm_math.SMALL_POWERS): the float64 reference rounded to float32 exactly, special values
    and signed zeros included; other constants keep the exp/log form within its bound."""
    x, _ = samples("float32")
    got = np.asarray(jg.jit(lambda x: x ** n)(x))
    with np.errstate(all="ignore"):
        want = (x.astype(np.float64) ** n).astype(np.float32)
    exact = n in (3, 4)
    err = ulps(got, want)
    assert err.max() <= (0 if exact else ULP_BOUND["pow"][2]), (x[err.argmax()], got[err.argmax()])
    if exact:
        assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all()
