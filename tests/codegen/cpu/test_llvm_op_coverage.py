"""Issue 26, item 1: the ops the LLVM units took over from the numba units, each compiled
through LLVM (none on the host, none refused: a refused kernel is an internal error) and
checked against NumPy on random and special values, float32 and float64, int32 and int64.

Bounds: every op here is exact (0 ulp) against NumPy. Integer ops wrap as NumPy's; the float
floor_divide/remainder are NumPy's npy_divmod step by step (fmod, one correctly rounded
division, floor), so they give NumPy's bits, signs of zeros and NaNs included.
"""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

INTS = (np.int32, np.int64)
FLOATS = (np.float32, np.float64)


@pytest.fixture
def llvm_only(monkeypatch, capsys):
    """Fails the test if a kernel it compiles runs on the host, as the CPU backend logs at
    JITGRAD_DEBUG=1 (a kernel the LLVM units refuse is already an internal error)."""
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    yield
    host = [line for line in capsys.readouterr().err.splitlines() if "runs on the host" in line]
    assert host == [], "kernels on the host:\n" + "\n".join(host)


def same_bits(got, want):
    """Equal values, NaN where NumPy has NaN, and the same sign of every zero."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "f":
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan)
        assert np.array_equal(got[~nan], want[~nan])
        assert np.array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]))
    else:
        assert np.array_equal(got, want)


def int_values(dt, n=300, seed=0):
    i = np.iinfo(dt)
    edges = np.array([i.min, i.min + 1, -7, -3, -2, -1, 0, 1, 2, 3, 7, i.max - 1, i.max], dt)
    rng = np.random.default_rng(seed)
    rand = np.concatenate([rng.integers(i.min, i.max, n, dtype=dt, endpoint=True),
                           rng.integers(-50, 50, n).astype(dt)])
    return np.concatenate([edges, rand])


def float_values(dt, n=300, seed=0):
    f = np.finfo(dt)
    special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 3.0, -3.0, 7.5, -7.5, np.inf, -np.inf,
                        np.nan, f.tiny, -f.tiny, f.max, -f.max, f.eps, 1e-30, -1e-30], dt)
    rng = np.random.default_rng(seed)
    rand = np.concatenate([rng.uniform(-10, 10, n), rng.standard_normal(n) * 1e6,
                           np.exp(rng.uniform(-30, 30, n)) * rng.choice([-1, 1], n)]).astype(dt)
    return np.concatenate([special, rand])


def pairs(values):
    """Every special value against every other, and the random ones against shuffled ones."""
    a, b = np.meshgrid(values[:20], values[:20])
    rng = np.random.default_rng(1)
    return (np.concatenate([a.ravel(), values[20:]]),
            np.concatenate([b.ravel(), rng.permutation(values[20:])]))


DIVISION = {"floor_divide": (lambda a, b: a // b, np.floor_divide),
            "remainder": (lambda a, b: a % b, np.remainder),
            "fused": (lambda a, b: a // b * 2 + a % b, lambda a, b: a // b * 2 + a % b)}


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("name", DIVISION)
def test_integer_division_is_numpys(name, dt, llvm_only):
    fn, ref = DIVISION[name]
    a, b = pairs(int_values(dt))
    with np.errstate(all="ignore"):
        want = ref(a, b)
    same_bits(jg.jit(fn)(a, b), want)
    i = np.iinfo(dt)        # the edges named in the issue: by zero, min // -1
    x = np.array([i.min, i.min, 7, -7, 7, -7, 0], dt)
    y = np.array([-1, 0, 0, 0, -2, 2, -1], dt)
    with np.errstate(all="ignore"):
        same_bits(jg.jit(fn)(x, y), ref(x, y))


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("name", DIVISION)
def test_float_division_is_numpys_bit_for_bit(name, dt, llvm_only):
    fn, ref = DIVISION[name]
    a, b = pairs(float_values(dt))
    with np.errstate(all="ignore"):
        want = ref(a, b)
    same_bits(jg.jit(fn)(a, b), want)


def shift_counts(dt):
    bits = np.dtype(dt).itemsize * 8
    return np.array([-65, -bits, -1, 0, 1, 3, bits - 1, bits, bits + 1, 100], dt)


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("fn, ref", [(jnp.left_shift, np.left_shift),
                                     (jnp.right_shift, np.right_shift)])
def test_shifts_past_the_width_are_numpys(fn, ref, dt, llvm_only):
    x = int_values(dt)[:, None]
    n = shift_counts(dt)[None, :]
    same_bits(jg.jit(fn)(x, n), ref(x, n))


BITWISE = {"and": (lambda a, b: a & b, np.bitwise_and), "or": (lambda a, b: a | b, np.bitwise_or),
           "xor": (lambda a, b: a ^ b, np.bitwise_xor),
           "not": (lambda a, b: ~a + ~b * 0, lambda a, b: ~a + ~b * 0)}


@pytest.mark.parametrize("dt", (*INTS, np.bool_))
@pytest.mark.parametrize("name", BITWISE)
def test_bitwise_ops(name, dt, llvm_only):
    fn, ref = BITWISE[name]
    if dt is np.bool_:
        if name == "not":
            fn = ref = lambda a, b: ~a & b
        rng = np.random.default_rng(0)
        a, b = rng.random(64) < 0.5, rng.random(64) < 0.5
    else:
        a, b = pairs(int_values(dt))
    same_bits(jg.jit(fn)(a, b), ref(a, b))


@pytest.mark.parametrize("dt", INTS)
def test_integer_power_wraps_as_numpy(dt, llvm_only):
    rng = np.random.default_rng(0)
    x = np.concatenate([int_values(dt), rng.integers(-3, 4, 200).astype(dt)])
    e = np.concatenate([rng.integers(0, 70, x.size - 200), rng.integers(0, 5, 200)]).astype(dt)
    same_bits(jg.jit(jnp.power)(x, e), np.power(x, e))
    e = np.array([0, 1, 31, 32, 63, 64, np.iinfo(dt).max], dt)
    x = np.array([-1, 2, -2, 3, 1, 0, -1], dt)
    same_bits(jg.jit(jnp.power)(x, e), np.power(x, e))


@pytest.mark.parametrize("shape", [(7,), (3, 5), (700, 300), (5, 0)])
@pytest.mark.parametrize("name", ["any", "all", "argmax", "argmin", "max", "min"])
def test_bool_reductions(name, shape, llvm_only):
    rng = np.random.default_rng(0)
    x = rng.random(shape) < 0.3
    fn, ref = getattr(jnp, name), getattr(np, name)
    for axis in (None, 0, -1):
        if name in ("argmax", "argmin", "max", "min") and x.size == 0:
            continue
        if name in ("argmax", "argmin") and axis is None and x.ndim > 1:
            continue
        same_bits(jg.jit(lambda a: fn(a, axis=axis))(x), ref(x, axis=axis))


ORDERED = (*FLOATS, *INTS, np.bool_)
LINES = [((7,), 0), ((5, 9), 1), ((5, 9), 0), ((3, 4, 5), 1), ((2, 3000), 1), ((1,), 0),
         ((4, 0), 1), ((20000,), 0)]     # the last: scratch over 64 KiB, malloc'd


def ordered_values(dt, shape, seed=0):
    """Few distinct values (ties: stability shows), NaNs, -0.0 beside 0.0, infinities."""
    rng = np.random.default_rng(seed)
    if dt is np.bool_:
        return rng.random(shape) < 0.5
    x = rng.integers(-3, 4, shape).astype(dt)
    if np.dtype(dt).kind == "f":
        x[rng.random(shape) < 0.2] = np.nan
        x[rng.random(shape) < 0.1] = -0.0
        x[rng.random(shape) < 0.05] = np.inf
        x[rng.random(shape) < 0.05] = -np.inf
    else:
        i = np.iinfo(dt)
        x[rng.random(shape) < 0.05] = i.min
        x[rng.random(shape) < 0.05] = i.max
    return x


@pytest.mark.parametrize("dt", ORDERED)
@pytest.mark.parametrize("shape, axis", LINES)
def test_sort_puts_nan_last(shape, axis, dt, llvm_only):
    x = ordered_values(dt, shape)
    got = np.asarray(jg.jit(lambda a: jnp.sort(a, axis=axis))(x))
    want = np.sort(x, axis=axis)            # 0.0 == -0.0: their order is not NumPy's contract
    assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=x.dtype.kind == "f")


@pytest.mark.parametrize("dt", ORDERED)
@pytest.mark.parametrize("shape, axis", LINES)
def test_argsort_is_numpys_stable_argsort(shape, axis, dt, llvm_only):
    x = ordered_values(dt, shape)
    got = np.asarray(jg.jit(lambda a: jnp.argsort(a, axis=axis))(x))
    assert np.array_equal(got, np.argsort(x, axis=axis, kind="stable"))


@pytest.mark.parametrize("dt", (*FLOATS, *INTS))
@pytest.mark.parametrize("shape, axis", LINES)
def test_cumsum_adds_in_numpys_order(shape, axis, dt, llvm_only):
    rng = np.random.default_rng(0)
    if np.dtype(dt).kind == "f":
        x = (rng.standard_normal(shape) * np.exp(rng.uniform(-20, 20, shape))).astype(dt)
        x[rng.random(shape) < 0.01] = np.nan
    else:
        x = int_values(dt, n=max(1, int(np.prod(shape))))[:int(np.prod(shape))].reshape(shape)
    got = jg.jit(lambda a: jnp.cumsum(a, axis=axis, dtype=x.dtype))(x)
    with np.errstate(all="ignore"):
        same_bits(got, np.cumsum(x, axis=axis, dtype=x.dtype))


# ----------------------------------------------------------------------------- LAPACK

def signs_fixed(v, axis=-2):
    """Eigen/singular vectors with the sign that makes each one's largest entry positive."""
    big = np.take_along_axis(v, np.abs(v).argmax(axis=axis, keepdims=True), axis=axis)
    return v * np.sign(big)


def spd(x):
    return x @ np.swapaxes(x, -1, -2) + x.shape[-1] * np.eye(x.shape[-1], dtype=x.dtype)


LAPACK = {
    "cholesky": (lambda a: jnp.linalg.cholesky(a), np.linalg.cholesky, spd),
    "eigh_values": (lambda a: jnp.linalg.eigh(a)[0], lambda a: np.linalg.eigh(a)[0], spd),
    "eigh_vectors": (lambda a: jnp.linalg.eigh(a)[1], lambda a: np.linalg.eigh(a)[1], spd),
    "slogdet": (lambda a: jnp.stack(jnp.linalg.slogdet(a)), lambda a: np.stack(np.linalg.slogdet(a)),
                None),
    "solve": (lambda a: jnp.linalg.solve(a, a[..., :2] + 1), lambda a: np.linalg.solve(a, a[..., :2] + 1),
              None),
    "svd_values": (lambda a: jnp.linalg.svd(a)[1], lambda a: np.linalg.svd(a)[1], None),
    "svd_u": (lambda a: jnp.linalg.svd(a[..., :3])[0], lambda a: np.linalg.svd(a[..., :3])[0], None),
    "svd_vh_reduced": (lambda a: jnp.linalg.svd(a[..., :3, :], full_matrices=False)[2],
                       lambda a: np.linalg.svd(a[..., :3, :], full_matrices=False)[2], None),
    "qr": (lambda a: jnp.linalg.qr(a[..., :3]), lambda a: np.linalg.qr(a[..., :3]), None),
    "qr_complete": (lambda a: jnp.linalg.qr(a[..., :3], mode="complete"),
                    lambda a: np.linalg.qr(a[..., :3], mode="complete"), None),
    "qr_wide": (lambda a: jnp.linalg.qr(a[..., :3, :]), lambda a: np.linalg.qr(a[..., :3, :]), None),
}
# the bound, in units of eps * max |NumPy's result|. Measured: float64 bit for bit (0), float32
# 0.5-7 (eigenvectors 52: their error scales with 1 / the eigengap): the numba units' numbers
# exactly, both being scipy's LAPACK, which differs from NumPy's OpenBLAS build in single precision
LAPACK_ULPS = {np.float32: 16, np.float64: 4}
VECTOR_ULPS = 128           # float32 eigenvectors


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("name", LAPACK)
def test_lapack_kernels_match_numpy(name, dt, llvm_only):
    fn, ref, prep = LAPACK[name]
    a = np.random.default_rng(0).standard_normal((3, 5, 5)).astype(dt)
    a = prep(a) if prep else a
    got, want = jg.jit(fn)(a), ref(a)
    got = [np.asarray(g) for g in (got if isinstance(got, tuple) else (got,))]
    want = list(want) if isinstance(want, tuple) else [want]
    for g, w in zip(got, want):
        if name.startswith(("eigh_vectors", "svd_u", "svd_vh")):
            g, w = signs_fixed(g, -2 if "vh" not in name else -1), \
                signs_fixed(w, -2 if "vh" not in name else -1)
        assert g.dtype == w.dtype and g.shape == w.shape
        ulps = VECTOR_ULPS if name == "eigh_vectors" and dt == np.float32 else LAPACK_ULPS[dt]
        bound = ulps * np.finfo(dt).eps * np.abs(w).max()
        assert np.abs(g - w).max() <= bound, (name, np.abs(g - w).max() / np.finfo(dt).eps)


@pytest.mark.parametrize("dt", FLOATS)
def test_lapack_failures_give_nan_and_singular_slogdet(dt, llvm_only):
    a = spd(np.random.default_rng(0).standard_normal((2, 4, 4)).astype(dt))
    a[1] = -a[1]                            # not positive definite: NaN, the first one factors
    got = np.asarray(jg.jit(jnp.linalg.cholesky)(a))
    assert np.isnan(got[1]).all() and np.allclose(got[0], np.linalg.cholesky(a[0]), rtol=1e-5)
    s = np.zeros((3, 3), dt)
    sign, logdet = jg.jit(jnp.linalg.slogdet)(s)
    assert float(sign) == 0 and float(logdet) == -np.inf


# ----------------------------------------------------------------------------- integer matmul

MATMULS = [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (2, 4, 6)), ((5,), (5,)),
           ((4, 5), (5,)), ((300, 200), (200, 100)), ((3, 0), (0, 4))]   # 6M products: threads


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("sa, sb", MATMULS)
def test_integer_matmul_wraps_as_numpy(sa, sb, dt, llvm_only):
    rng = np.random.default_rng(0)
    i = np.iinfo(dt)
    a = rng.integers(i.min, i.max, sa, dtype=dt, endpoint=True)
    b = rng.integers(-9, 9, sb).astype(dt)
    with np.errstate(all="ignore"):
        want = a @ b
        same_bits(jg.jit(lambda x, y: x @ y)(a, b), want)
        same_bits(jg.jit(lambda x, y: (x @ y) * 3 - 1)(a, b), want * 3 - 1)     # an epilogue
        if len(sa) == len(sb) == 2:         # transposed operands
            same_bits(jg.jit(lambda x, y: jnp.swapaxes(y, 0, 1) @ jnp.swapaxes(x, 0, 1))(a, b),
                      want.T)


# ----------------------------------------------------------------------------- unsigned, narrow

NARROW_INTS = (np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16)
NARROW_OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "floor_divide": lambda a, b: a // b, "remainder": lambda a, b: a % b,
    "less": lambda a, b: a < b, "greater_equal": lambda a, b: a >= b,
    "and": lambda a, b: a & b, "xor": lambda a, b: a ^ b, "invert": lambda a, b: ~a,
    "right_shift": lambda a, b: a >> (b % 70), "left_shift": lambda a, b: a << (b % 70),
    "abs": lambda a, b: abs(a), "negative": lambda a, b: -a,
}
NARROW_REFS = {"maximum": (jnp.maximum, np.maximum), "minimum": (jnp.minimum, np.minimum)}


def narrow_values(dt, seed=0):
    i = np.iinfo(dt)
    edges = np.array([i.min, i.min + 1, 0, 1, 2, 3, 7, i.max // 2, i.max // 2 + 1, i.max - 1,
                      i.max], dt)
    rng = np.random.default_rng(seed)
    return np.concatenate([edges, rng.integers(i.min, i.max, 200, dtype=dt, endpoint=True)])


@pytest.mark.parametrize("dt", NARROW_INTS)
@pytest.mark.parametrize("name", [*NARROW_OPS, *NARROW_REFS])
def test_unsigned_and_narrow_integer_ops(name, dt, llvm_only):
    fn, ref = NARROW_REFS.get(name) or (NARROW_OPS[name], NARROW_OPS[name])
    a, b = pairs(narrow_values(dt))
    if "shift" in name:
        b = b % np.asarray(70).astype(dt)
    with np.errstate(all="ignore"):
        want = ref(a, b)
    same_bits(jg.jit(fn)(a, b), want)


@pytest.mark.parametrize("dt", NARROW_INTS)
def test_unsigned_and_narrow_reductions(dt, llvm_only):
    x = narrow_values(dt)[:200].reshape(20, 10)
    for name in ("sum", "prod", "max", "min", "argmax", "argmin"):
        fn, ref = getattr(jnp, name), getattr(np, name)
        for axis in (0, 1):
            with np.errstate(all="ignore"):
                want = ref(x, axis=axis)
            same_bits(jg.jit(lambda a: fn(a, axis=axis))(x), want)
    same_bits(jg.jit(lambda a: jnp.sort(a, axis=0))(x), np.sort(x, axis=0))
    same_bits(jg.jit(lambda a: jnp.argsort(a, axis=1))(x), np.argsort(x, axis=1, kind="stable"))


def test_uint64_matmul_wraps(llvm_only):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2 ** 64 - 1, (6, 7), dtype=np.uint64, endpoint=True)
    b = rng.integers(0, 9, (7, 3)).astype(np.uint64)
    same_bits(jg.jit(lambda x, y: x @ y)(a, b), a @ b)
