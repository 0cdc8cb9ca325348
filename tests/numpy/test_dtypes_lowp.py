"""float16, bfloat16, int8, int16, uint8, uint16, uint32 (and uint64) on every path.

Each dtype is itself (no silent widening), promotes with JAX's lattice, computes elementwise ops
bit for bit as NumPy's float16 / ml_dtypes' bfloat16 ufuncs (float32 and one rounding) and wraps
small ints as NumPy does, accumulates reductions and matmul in float32, and differentiates with
cotangents of its own dtype -- eagerly, jitted on the reference interpreter and jitted through
the LLVM units. Results are compared with NumPy/ml_dtypes, and with JAX where it is importable.
"""
from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import tree_util
from jitgrad.ir.types import DTYPES, FROM_SHORT, SHORT_NAME
from tests.support.promotion_table import ORDER, jax_table

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
LOW_FLOATS = (F16, BF16)
SMALL_INTS = tuple(np.dtype(n) for n in ("int8", "int16", "uint8", "uint16", "uint32", "uint64"))
NEW = LOW_FLOATS + SMALL_INTS
PATHS = ("eager", "interpreter", "compiled")


@pytest.fixture(params=PATHS)
def run(request, monkeypatch):
    """run(fn, *numpy_args) -> list of NumPy results on one path."""
    path = request.param
    if path == "interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")

    def runner(fn, *args):
        xs = [jnp.asarray(a) for a in args]
        out = fn(*xs) if path == "eager" else jg.jit(fn)(*xs)
        return [np.asarray(o) for o in (out if isinstance(out, (tuple, list)) else [out])]
    runner.path = path
    return runner


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype != np.bool_ else a


def assert_identical(got, want, what=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    same = _bits(got) == _bits(want)
    if got.dtype.kind in "fV":      # every NaN is a NaN
        same |= np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, (f"{what}: {bad.size} elements differ, first at {bad[0]}: "
                           f"{got.flat[bad[0]]!r} != {want.flat[bad[0]]!r}")


def ulps(got, want):
    """Distance in units of the last place of a float16/bfloat16 result (NaNs equal)."""
    g = _bits(got).astype(np.int64)
    w = _bits(want).astype(np.int64)
    sign = 1 << (8 * np.asarray(got).dtype.itemsize - 1)
    g = np.where(g & sign, sign - g, g)    # sign-magnitude to a monotone integer line
    w = np.where(w & sign, sign - w, w)
    d = np.abs(g - w)
    nan = np.isnan(np.asarray(got, np.float32)) & np.isnan(np.asarray(want, np.float32))
    return int(np.where(nan, 0, d).max(initial=0))


# --------------------------------------------------------------------------- the dtypes exist

@pytest.mark.parametrize("dt", NEW, ids=str)
def test_creation_and_conversion_keep_the_dtype(dt):
    assert jnp.zeros(3, dtype=dt).dtype == dt
    assert jnp.ones((2, 2), dt).dtype == dt
    assert jnp.full(3, 7, dtype=dt).dtype == dt
    assert jnp.arange(5, dtype=dt).tolist() == [0, 1, 2, 3, 4]
    a = np.arange(6).reshape(2, 3).astype(dt)
    x = jnp.asarray(a)
    assert x.dtype == dt and np.asarray(x).dtype == dt and x.numpy().dtype == dt
    assert jg.tensor(a).dtype == dt
    assert_identical(np.asarray(x), a)
    assert x.astype(jnp.float32).dtype == np.float32
    assert jnp.asarray(a.astype(np.float32)).astype(dt).dtype == dt
    assert jnp.zeros_like(x).dtype == dt
    assert x.sum(dtype=dt).dtype == dt
    assert jg.jit(lambda t: t)(x).dtype == dt


def test_names_and_namespace_info():
    assert jg.bfloat16 == BF16 == jnp.bfloat16
    assert np.dtype(jnp.float16) == F16 and np.dtype(jnp.uint8) == np.uint8
    info = jnp.__array_namespace_info__().dtypes()
    for name in ("int8", "int16", "uint8", "uint16", "uint32", "uint64"):
        assert info[name] == np.dtype(name)
    assert jnp.isdtype(jnp.bfloat16, "real floating") and not jnp.isdtype(jnp.bfloat16, "integral")
    assert jnp.finfo(jnp.bfloat16).eps == 2.0 ** -7
    assert jnp.finfo(jnp.float16).max == 65504.0
    assert jnp.iinfo(jnp.uint16).max == 65535
    with pytest.raises(TypeError, match="not supported; jitgrad's dtypes are float32"):
        jnp.zeros(2, dtype="datetime64[s]")


def test_sum_of_small_ints_accumulates_like_numpy():
    u = jnp.asarray(np.array([200, 100], np.uint8))
    assert jnp.sum(u).dtype == np.uint64 and int(jnp.sum(u)) == 300
    assert jnp.sum(u, dtype=jnp.uint8).dtype == np.uint8 and int(jnp.sum(u, dtype=jnp.uint8)) == 44
    i = jnp.asarray(np.array([-100, -100], np.int8))
    assert jnp.sum(i).dtype == np.int64 and int(jnp.sum(i)) == -200
    assert jnp.cumsum(u).dtype == np.uint64


# --------------------------------------------------------------------------- promotion

# JAX's promotion table (tests/support/promotion_table.py), which jitgrad follows for every pair
# of dtypes: int32 + float32 is float32 as in JAX and PyTorch (NumPy: float64)


def test_promotion_table_is_jaxs(x64):
    table = jax_table()
    assert set(ORDER) == {SHORT_NAME[d] for d in DTYPES}
    wrong = []
    for (a, b), want in table.items():
        got = jnp.promote_types(FROM_SHORT[a], FROM_SHORT[b])
        arrays = jnp.result_type(jnp.zeros(1, FROM_SHORT[a]), jnp.zeros(1, FROM_SHORT[b]))
        op = (jnp.zeros(1, FROM_SHORT[a]) + jnp.zeros(1, FROM_SHORT[b])).dtype
        if not got == arrays == op == want:
            wrong.append(f"{a}+{b}: {got}/{arrays}/{op}, want {want}")
    assert not wrong, wrong


def test_promotion_without_x64_resolves_the_weak_float_to_float32():
    assert jnp.promote_types(np.uint64, np.int64) == np.float32
    assert jnp.promote_types(jnp.bfloat16, jnp.float16) == np.float32
    assert jnp.promote_types(np.int16, np.float16) == F16


def test_promotion_table_matches_jax_promote_types():
    jax = pytest.importorskip("jax")
    import jax.numpy as jax_np
    prev = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    try:
        table = jax_table()
        for (a, b), want in table.items():
            assert np.dtype(jax_np.promote_types(FROM_SHORT[a], FROM_SHORT[b])) == want, (a, b)
    finally:
        jax.config.update("jax_enable_x64", prev)


@pytest.mark.parametrize("dt", NEW, ids=str)
def test_weak_python_scalars_keep_the_array_dtype(dt):
    x = jnp.ones(3, dt)
    assert (x + 1).dtype == dt and (2 * x).dtype == dt and (x + True).dtype == dt
    if dt in LOW_FLOATS:
        assert (x * 2.0).dtype == dt and (x / 3.0).dtype == dt and (0.5 - x).dtype == dt
    else:
        assert (x * 2.5).dtype == np.float32      # a float scalar meets ints: the default float


def test_weak_int_out_of_range_raises():
    with pytest.raises(OverflowError):
        jnp.ones(3, jnp.uint8) + 300


# --------------------------------------------------------------------------- elementwise

def _floats(dt, n=257, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 4).astype(np.float32)
    x[:12] = [0.0, -0.0, 1.0, -1.0, 0.5, 65504.0, 1e-7, -2.5, 3.0e4, np.inf, -np.inf, np.nan]
    return x.astype(dt)


FLOAT_BINARY = ("add", "subtract", "multiply", "divide", "maximum", "minimum", "equal", "less",
                "greater_equal", "not_equal")
FLOAT_UNARY = ("negative", "abs", "square", "floor", "ceil")
FLOAT_TRANSCENDENTAL = ("exp", "log", "tanh", "sin", "sqrt")


def _float_program(x, y):
    out = [getattr(jnp, n)(x, y) for n in FLOAT_BINARY]
    out += [getattr(jnp, n)(x) for n in FLOAT_UNARY]
    out += [jnp.where(x > y, x, y * 2.0), x * 0.1 + 1.0]
    return out


def _float_numpy(x, y, dt):
    out = [getattr(np, n)(x, y) for n in FLOAT_BINARY]
    out += [getattr(np, n)(x) for n in FLOAT_UNARY]
    out += [np.where(x > y, x, y * dt.type(2.0)),
            (x.astype(np.float32) * np.float32(dt.type(0.1))).astype(dt) + dt.type(1.0)]
    return out


@pytest.mark.parametrize("dt", LOW_FLOATS, ids=str)
def test_float_elementwise_bit_identical_to_numpy(run, dt):
    x, y = _floats(dt), _floats(dt, seed=1)
    with np.errstate(all="ignore"):
        want = _float_numpy(x, y, dt)
    got = run(_float_program, x, y)
    for name, g, w in zip(FLOAT_BINARY + FLOAT_UNARY + ("where", "affine"), got, want):
        assert_identical(g, w, f"{run.path} {dt} {name}")


@pytest.mark.parametrize("dt", LOW_FLOATS, ids=str)
def test_float_transcendentals_round_once_from_float32(run, dt):
    x = np.abs(_floats(dt)) + dt.type(0.25)
    got = run(lambda t: [getattr(jnp, n)(t) for n in FLOAT_TRANSCENDENTAL], x)
    with np.errstate(all="ignore"):
        for name, g in zip(FLOAT_TRANSCENDENTAL, got):
            ref = getattr(np, name)(x.astype(np.float32)).astype(dt)    # float32, one rounding
            native = getattr(np, name)(x)                               # NumPy / ml_dtypes ufunc
            assert g.dtype == dt
            # the reference paths are exactly that; generated code's float32 math is within an
            # ulp of NumPy's, so one rounding later within one ulp of the narrow type
            assert ulps(g, ref) <= (0 if run.path != "compiled" else 1), (run.path, name)
            assert ulps(g, native) <= 1, (run.path, name)


@pytest.mark.parametrize("dt", LOW_FLOATS, ids=str)
def test_float_elementwise_bit_identical_to_jax(dt):
    jax = pytest.importorskip("jax")
    import jax.numpy as jax_np
    x, y = _floats(dt)[12:], _floats(dt, seed=1)[12:]
    got = _float_program(jnp.asarray(x), jnp.asarray(y))
    want = _float_program.__wrapped__(jax_np, x, y) if hasattr(_float_program, "__wrapped__") \
        else [getattr(jax_np, n)(x, y) for n in FLOAT_BINARY] + \
        [getattr(jax_np, n)(x) for n in FLOAT_UNARY]
    for name, g, w in zip(FLOAT_BINARY + FLOAT_UNARY, got, want):
        assert_identical(np.asarray(g), np.asarray(jax.device_get(w)), f"jax {dt} {name}")
    compiled = jg.jit(lambda a, b: [jnp.exp(a), jnp.tanh(b), a / b])(jnp.asarray(x), jnp.asarray(y))
    for g, w in zip(compiled, [jax_np.exp(x), jax_np.tanh(y), jax_np.divide(x, y)]):
        assert ulps(np.asarray(g), np.asarray(w)) <= 1


@pytest.mark.parametrize("dt", LOW_FLOATS, ids=str)
def test_ops_left_to_numba_get_float32(run, dt):
    # floor_divide and remainder compile with numba (their records' llvm gap), which has no
    # half types: fusion keeps the converts out of those kernels (ir/lowp.fusion_blocked)
    x, y = _floats(dt)[12:], _floats(dt, seed=1)[12:]
    with np.errstate(all="ignore"):
        want = [np.floor_divide(x, y), np.remainder(x, y), np.signbit(x), np.copysign(x, y)]
    got = run(lambda a, b: [jnp.floor_divide(a, b), jnp.remainder(a, b) * 1.0, jnp.signbit(a),
                            jnp.copysign(a, b)], x, y)
    for name, g, w in zip(("floor_divide", "remainder", "signbit", "copysign"), got, want):
        assert_identical(g, w, f"{run.path} {dt} {name}")


def _ints(dt, n=200, seed=0):
    info = np.iinfo(dt)
    x = np.random.default_rng(seed).integers(info.min, info.max, n, endpoint=True, dtype=dt)
    edges = [info.min, info.max, 0, 1, info.max // 2, info.min + 1]
    if info.min < 0:
        edges += [-1, -2]
    x[:len(edges)] = edges
    return x


INT_BINARY = ("add", "subtract", "multiply", "floor_divide", "remainder", "bitwise_and",
              "bitwise_or", "bitwise_xor", "maximum", "minimum", "less", "equal")
INT_UNARY = ("negative", "abs", "bitwise_not", "square")


@pytest.mark.parametrize("dt", SMALL_INTS, ids=str)
def test_int_elementwise_wraps_like_numpy(run, dt):
    x, y = _ints(dt), _ints(dt, seed=1)
    y[::7] = 0                                        # x // 0 == x % 0 == 0 as in NumPy
    s = (np.arange(x.size) % (dt.itemsize * 8 + 2)).astype(dt)
    with np.errstate(all="ignore"):
        want = [getattr(np, n)(x, y) for n in INT_BINARY] + \
            [getattr(np, n)(x) for n in INT_UNARY] + [np.left_shift(x, s), np.right_shift(x, s)]
    got = run(lambda a, b, c: [getattr(jnp, n)(a, b) for n in INT_BINARY] +
              [getattr(jnp, n)(a) for n in INT_UNARY] +
              [jnp.left_shift(a, c), jnp.right_shift(a, c)], x, y, s)
    for name, g, w in zip(INT_BINARY + INT_UNARY + ("left_shift", "right_shift"), got, want):
        assert_identical(g, w, f"{run.path} {dt} {name}")


def test_int8_uint8_wrap_at_their_width(run):
    got = run(lambda a, b: [a + 1, a * 2, b - 1, b * b, -b, (a + b).dtype == np.int16 and a + b],
              np.array([127, -128], np.int8), np.array([0, 16], np.uint8))
    assert got[0].tolist() == [-128, -127] and got[0].dtype == np.int8
    assert got[1].tolist() == [-2, 0]
    assert got[2].tolist() == [255, 15] and got[2].dtype == np.uint8
    assert got[3].tolist() == [0, 0]
    assert got[4].tolist() == [0, 240]
    assert got[5].tolist() == [127, -112] and got[5].dtype == np.int16


def test_mixed_dtypes_compute_in_the_promoted_type(run):
    a = np.array([1000, -7, 3], np.int16)
    h = np.array([0.1, 2.5, 65504.0], np.float16)
    b = np.array([1.5, 3.0, -2.0], BF16)
    got = run(lambda x, y, z: [x + y, y + z, z * x], a, h, b)
    assert_identical(got[0], (a.astype(np.float32) + h.astype(np.float32)).astype(F16))
    assert_identical(got[1], h.astype(np.float32) + b.astype(np.float32))
    assert_identical(got[2], (b.astype(np.float32) * a.astype(np.float32)).astype(BF16))


# --------------------------------------------------------------------------- casts

CAST_DTYPES = tuple(np.dtype(n) for n in ("float32", "float64", "int32", "int64", "bool")) + NEW


def _cast_source(src, dst):
    if src.kind in "fV" or src == BF16:
        v = np.array([-3.75, -1.0, -0.0, 0.0, 0.5, 1.5, 2.5, 100.25, 127.0, 200.5], np.float32)
        if dst.kind == "u" and dst.itemsize == 8:
            v = np.abs(v)                     # negative floats to uint64 are undefined in C
        if dst.kind in "fcbV" or dst == BF16:
            v = np.concatenate([v, [np.nan, np.inf, -np.inf, 70000.0, 1 + 2 ** -8, 1e-8]])
        return v.astype(src)
    if src == np.bool_:
        return np.array([True, False, True])
    info = np.iinfo(src)
    v = np.array([info.min, info.max, 0, 1, 2, 127, 255, 1000, 2 ** 24 + 1], np.float64)
    return v.clip(info.min, info.max).astype(src)


@pytest.mark.parametrize("dst", CAST_DTYPES, ids=str)
def test_casts_match_numpy(run, dst):
    srcs = [s for s in CAST_DTYPES if s != dst]
    args = [_cast_source(s, dst) for s in srcs]
    got = run(lambda *xs: [x.astype(dst) for x in xs], *args)
    with np.errstate(all="ignore"):
        for s, a, g in zip(srcs, args, got):
            # bfloat16 to integers as its float32 value (ml_dtypes' own cast of out-of-range
            # values is its C++ compiler's, and differs between machines)
            want = a.astype(np.float32).astype(dst) if s == BF16 and dst.kind in "iu" else \
                a.astype(dst)
            assert_identical(g, want, f"{run.path} {s} -> {dst}")


def test_float64_to_float16_rounds_once(run):
    x = np.array([1 + 2 ** -11 + 2 ** -40, -(1 + 2 ** -11 + 2 ** -40), 65519.99, 6e-8, 1e-9])
    (got,) = run(lambda t: t.astype(jnp.float16), x)
    assert_identical(got, x.astype(np.float16))
    assert got.view(np.uint16)[0] == 15361          # float64 -> float32 -> float16 would be 15360


def test_bfloat16_rounds_to_nearest_even_and_keeps_nan(run):
    x = np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8), np.nan, -np.nan, 3.4e38, 1e-40],
                 np.float32)
    (got,) = run(lambda t: t.astype(jnp.bfloat16), x)
    assert_identical(got, x.astype(BF16))
    assert got.view(np.uint16).tolist()[:5] == [0x3F80, 0x3F82, 0xBF80, 0x7FC0, 0xFFC0]


# --------------------------------------------------------------------------- accumulation

@pytest.mark.parametrize("dt,n", [(F16, 4096), (BF16, 1024)], ids=["float16", "bfloat16"])
def test_reductions_accumulate_in_float32(run, dt, n):
    # accumulated in the narrow type the sum would stop at 2048 (float16) / 256 (bfloat16):
    # there x + 1 == x
    ones = np.ones(n, dt)
    tenths = np.full((4, n), 0.1, dt)
    got = run(lambda a, b: [jnp.sum(a), jnp.mean(a), jnp.sum(b, axis=1), jnp.mean(b),
                            jnp.cumsum(a)[-1], jnp.max(b)], ones, tenths)
    assert [g.dtype for g in got] == [dt] * 6
    assert float(got[0]) == n and float(got[1]) == 1.0
    want = (tenths.astype(np.float32).sum(axis=1)).astype(dt)
    assert_identical(got[2], want)
    assert_identical(got[3], tenths.astype(np.float32).mean().astype(dt))
    assert float(got[4]) == n
    assert_identical(got[5], dt.type(0.1))


def test_reductions_match_jax():
    pytest.importorskip("jax")
    import jax.numpy as jax_np
    x = _floats(F16)[12:]
    for fn in (lambda m, a: m.sum(a), lambda m, a: m.mean(a)):
        for dt in LOW_FLOATS:
            a = x.astype(dt)
            got, want = np.asarray(fn(jnp, jnp.asarray(a))), np.asarray(fn(jax_np, a))
            assert got.dtype == want.dtype == dt
            assert ulps(got, want) <= 1         # summation order differs: within one rounding


@pytest.mark.parametrize("dt", LOW_FLOATS, ids=str)
def test_matmul_accumulates_in_float32(run, dt):
    a = np.ones((2, 4096), dt)
    b = np.ones((4096, 3), dt)
    rng = np.random.default_rng(0)
    c = rng.integers(-8, 8, (16, 32)).astype(dt)       # small ints: every float32 sum is exact
    d = rng.integers(-8, 8, (32, 8)).astype(dt)
    got = run(lambda p, q, r, s: [p @ q, jnp.matmul(r, s), jnp.dot(r, s) * 0.5], a, b, c, d)
    assert got[0].dtype == dt and np.all(got[0].astype(np.float32) == 4096)
    exact = c.astype(np.float32) @ d.astype(np.float32)
    assert_identical(got[1], exact.astype(dt))
    assert_identical(got[2], (exact.astype(dt).astype(np.float32) * 0.5).astype(dt))


# --------------------------------------------------------------------------- gradients

@pytest.mark.parametrize("dt,rtol", [(F16, 5e-3), (BF16, 4e-2)], ids=["float16", "bfloat16"])
def test_gradients_have_the_dtype_of_their_primal(dt, rtol):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((8, 5)) * 0.5).astype(dt)
    w = (rng.standard_normal((5, 3)) * 0.5).astype(dt)

    def loss(w, x):
        return jnp.mean(jnp.tanh(x @ w) ** 2)

    want = jg.grad(loss)(jnp.asarray(w.astype(np.float32)), jnp.asarray(x.astype(np.float32)))
    for how, g in (("grad", jg.grad(loss)(jnp.asarray(w), jnp.asarray(x))),
                   ("jit(grad)", jg.jit(jg.grad(loss))(jnp.asarray(w), jnp.asarray(x)))):
        assert g.dtype == dt, how
        np.testing.assert_allclose(np.asarray(g, np.float32), np.asarray(want), rtol=rtol,
                                   atol=rtol * np.abs(np.asarray(want)).max(), err_msg=how)
    t = jnp.asarray(w)
    t.requires_grad = True
    loss(t, jnp.asarray(x)).backward()
    assert t.grad.dtype == dt
    assert_identical(np.asarray(t.grad), np.asarray(jg.grad(loss)(jnp.asarray(w), jnp.asarray(x))))


def test_module_to_and_tree_map_cast_parameters():
    model = jg.nn.Sequential(jg.nn.Linear(4, 8), jg.nn.ReLU(), jg.nn.Linear(8, 2))
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    ref = np.asarray(model(jnp.asarray(x)))
    half = model.to(jnp.bfloat16)
    assert all(p.dtype == BF16 for p in half.parameters())
    out = jg.jit(lambda m, t: m(t))(half, jnp.asarray(x, dtype=jnp.bfloat16))
    assert out.dtype == BF16
    np.testing.assert_allclose(np.asarray(out, np.float32), ref, rtol=5e-2, atol=5e-2)
    params = {k: v for k, v in model.to(jnp.float32).named_parameters()}
    cast = tree_util.tree_map(lambda p: p.astype(jnp.float16), params)
    assert all(v.dtype == F16 for v in cast.values())
    grads = jg.grad(lambda p: jnp.sum(jnp.asarray(x, dtype=jnp.float16) @ p["0.weight"].T))(cast)
    assert grads["0.weight"].dtype == F16


def test_bfloat16_constants_inside_compiled_kernels(run):
    # a bfloat16 literal in a kernel is its 16 bits (the grad of linspace folds one in)
    def f(x0):
        return jnp.sum(jnp.linspace(jnp.mean(x0), jnp.sum(x0) * 0.5 - 1.0, 5) * jnp.arange(5))
    x = np.array(1.2, BF16)
    (g,) = run(lambda t: [jg.grad(f)(t)], x)
    assert g.dtype == BF16 and float(g) == 6.25
    (h,) = run(lambda t: t.astype(jnp.bfloat16) * 3.0 + jnp.asarray(np.array(2.5, BF16)),
               np.array([1, 2], np.float32))
    assert h.tolist() == [5.5, 8.5]


@pytest.mark.parametrize("dt", LOW_FLOATS, ids=str)
def test_gradients_through_loops_accumulate_closed_over_values(run, dt):
    def g(x0):
        return jnp.sum(jg.fori_loop(0, 2, lambda i, v: -v * 0.5 + x0, x0))
    (got,) = run(lambda t: [jg.grad(g)(t)], np.array([0.7], dt))
    assert got.dtype == dt and got.tolist() == [0.75]


@pytest.mark.parametrize("dt", LOW_FLOATS, ids=str)
def test_uniform_draws_stay_below_one(run, dt):
    # drawn in the dtype's own mantissa bits (JAX's way): the largest is 1 - 2**-mantissa
    (u,) = run(lambda k: [jg.random.uniform(k, (100000,), dtype=dt)], np.array([0, 1], np.uint32))
    top = 1 - 2.0 ** -{"float16": 10, "bfloat16": 7}[np.dtype(dt).name]
    assert u.dtype == dt and float(u.astype(np.float32).min()) >= 0
    assert float(u.astype(np.float32).max()) == top < 1


def test_bfloat16_literals_print_and_parse_back():
    from jitgrad.ir.parser import parse
    graph = jg.make_graph(lambda t: t * 0.5 + 0.1)(jnp.ones(2, jnp.bfloat16))
    text = str(graph)
    assert "value=0.5 : bf16[]" in text and "value=0.100097656 : bf16[]" in text
    assert str(parse(text)) == text


@pytest.mark.parametrize("seed", range(8))
def test_fuzzed_low_precision_programs_agree_on_every_path(seed):
    from tests.support import fuzz_programs as fp
    prog = fp.lowp_program(seed)
    for mode in ("forward", "grad"):
        assert fp.check(prog, mode) is None, prog.source()
    prog = fp.small_int_program(seed)
    assert fp.check(prog, "forward") is None, prog.source()


# --------------------------------------------------------------------------- other backends

def test_compiled_kernels_see_the_narrow_dtypes_only_in_converts():
    x = jnp.ones((4, 4), jnp.bfloat16)
    text = str(jg.jit(lambda a: jnp.sum(jnp.exp(a) * a, axis=1)).lower(x).optimized_ir)
    typed = [re.match(r"\s*%\w+ = (\w+) .* : (\w+)\[", line) for line in text.splitlines()]
    body_ops = [m.group(1) for m in typed if m and m.group(2) == "bf16" and m.group(1) != "kernel"]
    assert body_ops and set(body_ops) == {"convert"}, text
