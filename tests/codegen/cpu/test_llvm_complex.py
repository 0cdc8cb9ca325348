"""Issue 26: complex kernels are LLVM units (codegen/cpu/llvm_complex.py), not host steps, checked
against NumPy on special and random values, complex64 and complex128, and against the
interpreter path (JITGRAD_BACKEND=interpreter); gradients through complex intermediates too.

Bounds (measured here, NumPy 2.4 on glibc):
- exact (the same bits as NumPy, NaN and the signs of zeros included): add, subtract,
  multiply, divide (Smith's algorithm as NumPy's loop), negative, conj, real, imag, square,
  equal, not_equal, isnan, isinf, isfinite, where, casts, the copy kernels;
- integer powers (|n| < 100, NumPy's repeated squaring): exact; other powers exp(y log x),
  within 8 eps |want| (1 + |y log x|);
- normwise, |got - want| <= k (eps |want| + the smallest subnormal), NumPy's infinities and NaNs
  (and a zero's sign where both give zero) equal: k = 2 for abs, sign and sqrt, k = 4 for exp,
  expm1, log, sin, cos, tan, sinh, cosh and tanh. Measured over 60k special, random, wide and
  near-|z| = 1 values, in eps of the larger part (complex64 / complex128): abs 1.39 / 1.98
  (NumPy's own hypot is not correctly rounded), sign 0 / 1.41, sqrt 1.00 / 1.22, exp 2.04 /
  1.33, log 1.98 / 2.10, sinh 2.84 / 2.03, cosh 2.52 / 2.03, tanh 3.01 / 2.96, sin 2.44 /
  2.13, cos 2.53 / 2.37, tan 2.96 / 2.99, expm1 3.00 / 1.97 (tanh and expm1 against
  complex_math's, the eager path's);
- reductions (the float sums' blocked and reassociated order): 8 eps sum|x| (prod: 8 eps n
  |want|); matmul (BLAS cgemm/zgemm): 8 eps |a| |b|.
"""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp

COMPLEX = (np.complex64, np.complex128)


@pytest.fixture
def llvm_unit(monkeypatch, capsys):
    """Fails the test if a kernel it compiles runs on the host, as the CPU backend logs at
    JITGRAD_DEBUG=1 with the reason (a kernel the LLVM units refuse is an internal error)."""
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    yield
    host = [line for line in capsys.readouterr().err.splitlines() if "runs on the host" in line]
    assert host == [], "complex kernels on the host:\n" + "\n".join(host)


def complex_values(dt, n=200, seed=0):
    """Every pair of special parts (zeros of both signs, +-1, +-inf, NaN, tiny, subnormal, huge),
    then random values of moderate and of wide magnitude."""
    part = np.dtype(dt).type(0).real.dtype
    f = np.finfo(part)
    special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -3.0, np.inf, -np.inf, np.nan, f.tiny,
                        f.smallest_subnormal, -f.max, f.max / 3, 1e-20], part)
    re, im = np.meshgrid(special, special)
    rng = np.random.default_rng(seed)
    mag = np.exp(rng.uniform(-30, 30, (2, n)))
    rand = [rng.uniform(-3, 3, (2, n)),
            rng.standard_normal((2, n)) * mag * rng.choice([-1, 1], (2, n)),
            1 + rng.standard_normal((2, n)) * 1e-4]          # near |z| = 1: log's cancellation
    parts = np.concatenate([np.stack([re.ravel(), im.ravel()]), *rand], axis=1).astype(part)
    out = np.empty(parts.shape[1], dt)
    out.real, out.imag = parts
    return out


def same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "c":
        for g, w in ((got.real, want.real), (got.imag, want.imag)):
            same_bits(g, w)
        return
    if got.dtype.kind == "f":
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan), np.flatnonzero(np.isnan(got) != nan)[:5]
        bad = (got[~nan] != want[~nan]) | (np.signbit(got[~nan]) != np.signbit(want[~nan]))
        assert not bad.any(), (got[~nan][bad][:5], want[~nan][bad][:5])
    else:
        assert np.array_equal(got, want)


def close(got, want, ulps):
    """Normwise within ulps * eps * |want| where NumPy's result is finite; NaN and infinities
    (with their signs) where NumPy has them, and the sign of a zero part both give as zero."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    eps = np.finfo(want.dtype).eps
    w, g = want.astype(np.complex128), got.astype(np.complex128)
    fin = np.isfinite(w)
    err = np.abs(g[fin] - w[fin])
    bound = ulps * (eps * np.abs(w[fin]) + np.finfo(want.dtype).smallest_subnormal)
    worst = np.argmax(err - bound) if err.size else 0
    assert (err <= bound).all(), (err[worst] / (eps * np.abs(w[fin][worst])), g[fin][worst],
                                  w[fin][worst])
    for gp, wp in ((got.real, want.real), (got.imag, want.imag)):
        odd = ~np.isfinite(wp) | ((wp == 0) & (gp == 0))     # a zero's sign where both are 0
        same_bits(gp[odd], wp[odd])


# name -> (function, reference, bound: None exact, else (ulps complex64, ulps complex128))
UNARY = {
    "negative": (lambda a: -a, np.negative, None),
    "conj": (jnp.conj, np.conj, None),
    "real": (jnp.real, np.real, None),
    "imag": (jnp.imag, np.imag, None),
    "square": (jnp.square, np.square, None),
    "reciprocal": (lambda a: 1 / a, lambda a: 1 / a, None),
    "isnan": (jnp.isnan, np.isnan, None),
    "isinf": (jnp.isinf, np.isinf, None),
    "isfinite": (jnp.isfinite, np.isfinite, None),
    "abs": (jnp.abs, np.abs, (2, 2)),
    "sign": (jnp.sign, np.sign, (2, 2)),
    "sqrt": (jnp.sqrt, np.sqrt, (2, 2)),
    "exp": (jnp.exp, np.exp, (4, 4)),
    "log": (jnp.log, np.log, (4, 4)),
    "sinh": (jnp.sinh, np.sinh, (4, 4)),
    "cosh": (jnp.cosh, np.cosh, (4, 4)),
    "sin": (jnp.sin, np.sin, (4, 4)),
    "cos": (jnp.cos, np.cos, (4, 4)),
    "tanh": (jnp.tanh, jnp.tanh, (4, 4)),         # eager: complex_math.tanh's standard edges
    "tan": (jnp.tan, np.tan, (4, 4)),
    "expm1": (jnp.expm1, jnp.expm1, (4, 4)),      # eager: complex_math.expm1
}


@pytest.mark.parametrize("dt", COMPLEX)
@pytest.mark.parametrize("name", UNARY)
def test_unary_ops_match_numpy(name, dt, llvm_unit):
    fn, ref, ulps = UNARY[name]
    x = complex_values(dt)
    with np.errstate(all="ignore"):
        want = ref(x)
    got = jg.jit(fn)(x)
    if ulps is None:
        same_bits(got, want)
    else:
        close(got, want, ulps[dt is np.complex128])


BINARY = {
    "add": (lambda a, b: a + b, np.add), "subtract": (lambda a, b: a - b, np.subtract),
    "multiply": (lambda a, b: a * b, np.multiply), "divide": (lambda a, b: a / b, np.divide),
    "equal": (lambda a, b: a == b, np.equal), "not_equal": (lambda a, b: a != b, np.not_equal),
    "where": (lambda a, b: jnp.where(jnp.abs(a) > jnp.abs(b), a, b),
              lambda a, b: np.where(np.abs(a) > np.abs(b), a, b)),
    "fused": (lambda a, b: (a * b - a / (b + 1j)) * 2.5 + jnp.conj(a),
              lambda a, b: (a * b - a / (b + 1j)) * 2.5 + np.conj(a)),
}


@pytest.mark.parametrize("dt", COMPLEX)
@pytest.mark.parametrize("name", BINARY)
def test_binary_ops_are_numpys_bit_for_bit(name, dt, llvm_unit):
    fn, ref = BINARY[name]
    v = complex_values(dt)
    a, b = np.meshgrid(v[:196], v[:196])          # every special value against every other
    rng = np.random.default_rng(1)
    a = np.concatenate([a.ravel(), v[196:]])
    b = np.concatenate([b.ravel(), rng.permutation(v[196:])])
    with np.errstate(all="ignore"):
        want = ref(a, b)
        got = jg.jit(fn)(a, b)
    same_bits(got, want)


CASTS = [(np.float32, np.complex64), (np.float64, np.complex64), (np.int32, np.complex128),
         (np.bool_, np.complex64), (np.complex64, np.complex128), (np.complex128, np.complex64),
         (np.complex128, np.float32), (np.complex64, np.int32), (np.complex64, np.bool_)]


@pytest.mark.parametrize("src, dst", CASTS)
def test_casts_to_and_from_complex(src, dst, llvm_unit):
    v = complex_values(np.complex128)
    with np.errstate(all="ignore"):         # float64 parts overflowing complex64: inf as NumPy
        if np.dtype(src).kind == "c":
            x = v[np.isfinite(v) & (np.abs(v.real) < 1e9)] if np.dtype(dst).kind in "iu" else v
            x = x.astype(src)
            want = x.real.astype(dst) if np.dtype(dst).kind != "c" else x.astype(dst)
        else:
            x = np.real(v[np.isfinite(v) & (np.abs(v) < 1e9)]).astype(src)
            want = x.astype(dst)
        same_bits(jg.jit(lambda a: (a.astype(dst),))(x)[0], want)


REDUCTIONS = [("sum", (700, 300), 1), ("sum", (700, 300), 0), ("sum", (300000,), None),
              ("sum", (3, 4, 5), (0, 2)), ("mean", (50, 40), 1), ("prod", (40, 6), 1),
              ("prod", (6, 40), 0), ("sum", (4, 0), 1)]


@pytest.mark.parametrize("dt", COMPLEX)
@pytest.mark.parametrize("name, shape, axis", REDUCTIONS)
def test_reductions(name, shape, axis, dt, llvm_unit):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    if name == "prod":
        x = x / np.abs(x) * np.exp(rng.uniform(-0.1, 0.1, shape))     # no overflow
    fn, ref = getattr(jnp, name), getattr(np, name)
    got, want = np.asarray(jg.jit(lambda a: fn(a, axis=axis))(x)), ref(x, axis=axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    scale = np.abs(x).sum(axis=axis) if name != "prod" else np.abs(want) * shape[-1 if axis else 0]
    scale = scale / (x.size // max(np.size(want), 1)) if name == "mean" else scale
    assert (np.abs(got - want) <= 8 * np.finfo(dt).eps * (scale + np.finfo(dt).tiny)).all()


@pytest.mark.parametrize("dt", COMPLEX)
@pytest.mark.parametrize("sa, sb", [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (2, 4, 6)),
                                    ((5,), (5,)), ((300, 200), (200, 100)), ((3, 0), (0, 4))])
def test_matmul_through_complex_gemm(sa, sb, dt, llvm_unit):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(sa) + 1j * rng.standard_normal(sa)).astype(dt)
    b = (rng.standard_normal(sb) + 1j * rng.standard_normal(sb)).astype(dt)
    bound = 8 * np.finfo(dt).eps * (np.abs(a) @ np.abs(b) + 1)
    want = a @ b
    got = np.asarray(jg.jit(lambda x, y: x @ y * (2 - 1j) + 1)(a, b))
    assert got.dtype == want.dtype and (np.abs(got - (want * (2 - 1j) + 1)) <= 3 * bound).all()
    if len(sa) == len(sb) == 2:         # transposed operands: BLAS's own transposes
        got = np.asarray(jg.jit(lambda x, y: jnp.swapaxes(y, 0, 1) @ jnp.swapaxes(x, 0, 1))(a, b))
        assert (np.abs(got - want.T) <= bound.T).all()


def test_copy_kernels_move_complex_elements(llvm_unit):
    x = complex_values(np.complex64)[:240].reshape(4, 6, 10)
    fns = [lambda a: jnp.transpose(a, (2, 0, 1)), lambda a: a[1:3, ::2, 3:],
           lambda a: jnp.concatenate([a, a[:, :2]], axis=1), lambda a: jnp.flip(a, axis=2),
           lambda a: jnp.pad(a, ((1, 0), (0, 2), (1, 1))), lambda a: a[jnp.asarray([3, 0, 3])],
           lambda a: jnp.take(a, jnp.asarray([9, 0, -1]), axis=2)]
    for fn in fns:
        same_bits(jg.jit(fn)(x), np.asarray(fn(jnp.asarray(x))))


def test_compiled_matches_the_interpreter(monkeypatch, llvm_unit):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((64, 33)) + 1j * rng.standard_normal((64, 33))).astype(np.complex64)
    y = rng.standard_normal((33,)).astype(np.float32)

    def fn(a, b):
        z = jnp.exp(a * 0.3) / (a + b) - jnp.sqrt(a) * jnp.log(a + 2)
        return jnp.abs(z).sum(axis=1), z.mean(axis=0), jnp.real(z * jnp.conj(a))
    got = jg.jit(fn)(x, y)
    monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    want = jg.jit(fn)(x, y)
    eager = fn(jnp.asarray(x), jnp.asarray(y))
    for g, w, e in zip(got, want, eager):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=1e-5)
        np.testing.assert_allclose(np.asarray(w), np.asarray(e), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dt", (np.float32, np.float64))
def test_gradients_through_complex_intermediates(dt, monkeypatch, llvm_unit):
    x = np.random.default_rng(3).uniform(-2, 2, (40,)).astype(dt)

    def loss(v):
        z = jnp.exp(1j * v) * (v + 2j)
        return jnp.sum(jnp.abs(z) + jnp.real(jnp.sqrt(z) * jnp.conj(z)) + jnp.imag(jnp.log(z)))
    got = jg.jit(jg.value_and_grad(loss))(x)
    monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    want = jg.jit(jg.value_and_grad(loss))(x)
    rtol = 1e-5 if dt == np.float32 else 1e-12
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=rtol)


def test_an_op_without_a_complex_rule_keeps_its_kernel_on_the_host(monkeypatch, capsys):
    """The one rule (codegen/cpu/host.complex_gap): a kernel with complex values runs on the host
    when llvm_kernels.why_not refuses it, logged with its reason at JITGRAD_DEBUG=1."""
    monkeypatch.setenv("JITGRAD_DEBUG", "1")
    x = complex_values(np.complex128)[196:260]
    got = jg.jit(lambda a: jnp.arcsinh(a * 2) + 1)(x)
    np.testing.assert_allclose(np.asarray(got), np.arcsinh(x * 2) + 1, rtol=1e-12)
    err = capsys.readouterr().err
    assert "(complex values) runs on the host (NumPy reference): op asinh on complex128" in err
    jg.jit(lambda a: jnp.exp(a * 2) + 1)(x)
    assert "runs on the host" not in capsys.readouterr().err


@pytest.mark.parametrize("dt", COMPLEX)
def test_integer_powers_are_numpys_bit_for_bit(dt, llvm_unit):
    """npy_cpow's integer exponents (|n| < 100): its repeated squaring, special values included;
    a constant exponent (z ** 2, z ** -3) and an array of exponents."""
    x = complex_values(dt)
    n = np.array([0, 1, 2, 3, 4, 5, 7, -1, -2, -3, -8, 13, 64, 99, -99], dt)
    with np.errstate(all="ignore"):
        same_bits(jg.jit(lambda a, e: a ** e)(x[:, None], n[None, :]),
                  np.power(x[:, None], n[None, :]))
        for k in (2, 3, -3):
            same_bits(jg.jit(lambda a: a ** k)(x), np.power(x, np.asarray(k, dt)))


@pytest.mark.parametrize("dt", COMPLEX)
def test_other_powers_are_exp_of_y_log_x(dt, llvm_unit):
    """Non-integer (or |n| >= 100) exponents: exp(y log x) as glibc's cpow, within k eps |want|
    (1 + |y log x|) (the product's rounding is magnified by exp), k = 8; 0 ** y, x ** 0."""
    rng = np.random.default_rng(4)
    x = (rng.uniform(-3, 3, 300) + 1j * rng.uniform(-3, 3, 300)).astype(dt)
    y = (rng.uniform(-3, 3, 300) + 1j * rng.uniform(-1, 1, 300)).astype(dt)
    y[:20] = [100, -100, 0.5, 2.5, 1e30, np.inf, *(rng.uniform(-3, 3, 14) + 0j)]
    with np.errstate(all="ignore"):
        want = np.power(x, y)
        got = np.asarray(jg.jit(lambda a, e: a ** e)(x, y))
    size = 1 + np.abs(y.astype(np.complex128) * np.log(x.astype(np.complex128)))
    fin = np.isfinite(want) & np.isfinite(size)
    err = np.abs(got[fin] - want[fin])
    assert (err <= 8 * np.finfo(dt).eps * np.abs(want[fin]) * size[fin]).all()
    same_bits(got[~fin], want[~fin])        # overflow to infinities, x ** inf
    edges = np.array([0, 0, 0, 1 + 1j, 0], dt), np.array([2.5, -1, 1j, 0, 0], dt)
    with np.errstate(all="ignore"):
        same_bits(jg.jit(lambda a, e: a ** e)(*edges), np.power(*edges))


@pytest.mark.parametrize("dt", COMPLEX)
def test_cumsum_and_scatter_add_of_complex_values(dt, llvm_unit):
    """cumsum in NumPy's add order (exact); scatter_add (the gradient of indexing) exact too."""
    x = complex_values(dt)[:240].reshape(8, 30)
    with np.errstate(all="ignore"):
        for axis in (0, 1):
            same_bits(jg.jit(lambda a: jnp.cumsum(a, axis=axis))(x), np.cumsum(x, axis=axis))
    rng = np.random.default_rng(5)
    w = (rng.standard_normal((6, 4)) + 1j * rng.standard_normal((6, 4))).astype(dt)
    idx = np.array([1, 4, 1, 0, 4, 4])
    want = np.zeros((5, 4), dt)
    np.add.at(want, idx, w)
    base = np.zeros((5, 4), dt)
    got = jg.jit(lambda u: jg.vjp(lambda a: a[jnp.asarray(idx)], base)[1](u)[0])(w)
    np.testing.assert_allclose(np.asarray(got), want, rtol=4 * np.finfo(dt).eps)


@pytest.mark.parametrize("disable", ["", "fuse"])
def test_large_chains_on_the_pool_and_unfused(disable, monkeypatch, llvm_unit):
    """A chain over 2^18 elements (split over the thread pool) and the same with fusion off
    (one unit per op), against NumPy."""
    monkeypatch.setenv("JITGRAD_DISABLE", disable)
    rng = np.random.default_rng(6)
    z = (rng.standard_normal(1 << 18) + 1j * rng.standard_normal(1 << 18)).astype(np.complex128)

    def fn(a, xp):
        return (a * a + 1j) / (a - 2.0) * xp.conj(a) + xp.sqrt(a) * xp.exp(a * 0.25)
    got = np.asarray(jg.jit(lambda a: fn(a, jnp))(z))
    np.testing.assert_allclose(got, fn(z, np), rtol=1e-13, atol=1e-13)
