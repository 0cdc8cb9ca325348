"""float16/bfloat16 reductions accumulate in float32 and round once (DESIGN §14).

Every reduction -- sums, means, variances, norms, the softmax family, the normalizations,
cumsum and the products -- on 16-bit inputs of 3000 elements (past 2**11, where float16 stops
holding consecutive integers) and 70000 (past 65504, float16's largest value: the element count
itself overflows), eagerly, jitted through the LLVM units and jitted on the reference
interpreter, against NumPy computed in float32 and rounded once to the 16-bit dtype.
"""
from __future__ import annotations

import functools

import ml_dtypes
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
import jitgrad.nn.functional as F
import jitgrad.scipy.special as jsp

F16, BF16 = np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
# one unit in the last place of the 16-bit result: float32 sums in another order may round the
# other way
RTOL = {F16: 2.0 ** -10, BF16: 2.0 ** -7}
SIZES = (3000, 70000)
PATHS = ("eager", "jit", pytest.param("interpreter", marks=pytest.mark.interpreter))


def _softmax(a, axis=-1):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _normalized(a, axes):
    m = a.mean(axis=axes, keepdims=True)
    return (a - m) / np.sqrt(a.var(axis=axes, keepdims=True) + np.float32(1e-5))


def _group_norm(a):
    g = a.reshape(a.shape[0], 2, -1)
    return _normalized(g, 2).reshape(a.shape)


# name -> (jitgrad function, NumPy reference on float32, the input's shape from the size n)
FLAT, ROWS, CHANNELS = (lambda n: (n,)), (lambda n: (2, n // 2)), (lambda n: (2, 4, n // 8))
REDUCTIONS = {
    "sum": (jnp.sum, np.sum, FLAT),
    "sum_axis": (lambda x: jnp.sum(x, axis=1), lambda a: a.sum(axis=1), ROWS),
    "prod": (lambda x: jnp.prod(x[:40]), lambda a: np.prod(a[:40]), FLAT),
    "cumprod": (lambda x: jnp.cumprod(x[:40]), lambda a: np.cumprod(a[:40]), FLAT),
    "max": (jnp.max, np.max, FLAT),
    "min": (lambda x: jnp.min(x, axis=0), lambda a: a.min(axis=0), ROWS),
    "mean": (jnp.mean, np.mean, FLAT),
    "mean_keepdims": (lambda x: jnp.mean(x, axis=-1, keepdims=True),
                      lambda a: a.mean(axis=-1, keepdims=True), ROWS),
    "Tensor.mean": (lambda x: x.mean(), np.mean, FLAT),
    "var": (jnp.var, np.var, FLAT),
    "std_ddof": (lambda x: jnp.std(x, axis=1, ddof=1), lambda a: a.std(axis=1, ddof=1), ROWS),
    "average": (lambda x: jnp.average(x, weights=x), lambda a: np.average(a, weights=a), FLAT),
    # each running sum in float32, rounded once, as PyTorch's CPU cumsum (JAX's CPU cumsum adds
    # in the 16-bit dtype, in a tree order of its own)
    "cumsum": (jnp.cumsum, lambda a: np.cumsum(a, dtype=np.float32), FLAT),
    "norm": (jnp.linalg.norm, np.linalg.norm, FLAT),
    "vector_norm_1": (lambda x: jnp.linalg.vector_norm(x, ord=1),
                      lambda a: np.linalg.norm(a, 1), FLAT),
    "matrix_norm_fro": (jnp.linalg.matrix_norm, lambda a: np.linalg.norm(a, "fro"), ROWS),
    "logsumexp": (lambda x: F.logsumexp(x, axis=-1),
                  lambda a: np.log(np.sum(np.exp(a - a.max()))) + a.max(), FLAT),
    "scipy_logsumexp_b": (lambda x: jsp.logsumexp(x, axis=1, b=x),
                          lambda a: np.log(np.sum(a * np.exp(a), axis=1)), ROWS),
    "softmax": (lambda x: F.softmax(x, -1), _softmax, ROWS),
    "log_softmax": (lambda x: F.log_softmax(x, -1), lambda a: np.log(_softmax(a)), ROWS),
    "layer_norm": (lambda x: F.layer_norm(x, (x.shape[-1],)), lambda a: _normalized(a, -1),
                   ROWS),
    "batch_norm": (lambda x: F.batch_norm(x, None, None, training=True),
                   lambda a: _normalized(a, (0, 2)), CHANNELS),
    "instance_norm": (F.instance_norm, lambda a: _normalized(a, 2), CHANNELS),
    "group_norm": (lambda x: F.group_norm(x, 2), _group_norm, CHANNELS),
    "dot": (lambda x: jnp.dot(x, x), lambda a: np.dot(a, a), FLAT),
    "matmul": (lambda x: jnp.matmul(x, x.T), lambda a: a @ a.T, ROWS),
    "einsum": (lambda x: jnp.einsum("ij,ij->i", x, x), lambda a: np.einsum("ij,ij->i", a, a),
               ROWS),
    "einsum_3": (lambda x: jnp.einsum("i,i,i->", x, x, x), lambda a: np.sum(a * a * a), FLAT),
    "vecdot": (lambda x: jnp.vecdot(x, x), lambda a: np.sum(a * a, axis=-1), ROWS),
}


def _input(dtype, n, shape):
    rng = np.random.default_rng(n)
    return (rng.standard_normal(shape(n)) * 0.5 + 1.0).astype(dtype)


def _run(fn, x, path):
    return np.asarray((fn if path == "eager" else jg.jit(fn))(jnp.asarray(x)))


@functools.lru_cache(maxsize=None)
def _jitted(dtype, n, path):
    """Every reduction of one dtype and size in ONE jitted call (a compile, not 27 of them);
    `path` keys the cache: the interpreter's tests run with JITGRAD_BACKEND=interpreter."""
    names = list(REDUCTIONS)
    xs = [jnp.asarray(_input(dtype, n, REDUCTIONS[k][2])) for k in names]
    outs = jg.jit(lambda *args: [REDUCTIONS[k][0](x) for k, x in zip(names, args)])(*xs)
    return dict(zip(names, (np.asarray(o) for o in outs)))


def _check(got, want_f32, dtype):
    """`got` is `want_f32` rounded once to the 16-bit dtype, within one unit in the last place."""
    with np.errstate(over="ignore"):        # a float16 sum of 70000 values near 1 is inf
        want = np.asarray(want_f32, np.float32).astype(dtype)
    assert got.dtype == dtype, f"dtype {got.dtype}, expected {dtype}"
    assert got.shape == want.shape
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32),
                               rtol=RTOL[dtype], atol=1e-5)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", (F16, BF16), ids=str)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction_accumulates_in_float32(name, dtype, n, path):
    fn, ref, shape = REDUCTIONS[name]
    x = _input(dtype, n, shape)
    got = _run(fn, x, path) if path == "eager" else _jitted(dtype, n, path)[name]
    _check(got, ref(x.astype(np.float32)), dtype)


# ------------------------------------------------------------------- the reproducers

@pytest.mark.parametrize("path", PATHS)
def test_mean_of_70000_float16_ones_is_one(path):
    # float16's 70000 is inf: a count in the input dtype gave nan
    got = _run(jnp.mean, np.ones(70000, np.float16), path)
    assert got.dtype == F16 and got == 1.0


@pytest.mark.parametrize("path", PATHS)
def test_mean_of_100000_float16_halves_is_a_half(path):
    # the float16 sum 50000 over an infinite count gave 0
    got = _run(jnp.mean, np.full(100000, 0.5, np.float16), path)
    assert got.dtype == F16 and got == 0.5


@pytest.mark.parametrize("path", PATHS)
def test_layer_norm_over_70000_float16_features_is_finite(path):
    x = _input(F16, 140000, ROWS)
    got = _run(lambda v: F.layer_norm(v, (70000,)), x, path)
    assert np.isfinite(got.astype(np.float32)).all()
    _check(got, _normalized(x.astype(np.float32), -1), F16)


def test_explicit_dtype_float16_mean_computes_in_float32():
    # NumPy's mean(dtype=float16) of float32 input: the float32 mean, rounded once
    x = np.full(70000, 0.25, np.float32)
    got = np.asarray(jnp.mean(jnp.asarray(x), dtype="float16"))
    assert got.dtype == F16 and got == 0.25


def test_var_with_dtype_computes_in_that_dtype():
    x = np.array([1.0, 1.0 + 2.0 ** -20, 1.0 - 2.0 ** -20], np.float32)
    got = jnp.var(jnp.asarray(x), dtype="float64")
    np.testing.assert_allclose(np.asarray(got), np.var(x, dtype=np.float64), rtol=1e-12)


# ---------------------------------------------------------------- gradients, vmap, fused tiers

@pytest.mark.parametrize("path", ("eager", "jit"))
def test_grad_of_a_float16_mean_is_one_over_n(path):
    g = jg.grad(jnp.mean)
    got = np.asarray((g if path == "eager" else jg.jit(g))(jnp.ones(70000, jnp.float16)))
    assert got.dtype == F16
    np.testing.assert_array_equal(got, np.full(70000, 1 / 70000, np.float32).astype(F16))


@pytest.mark.parametrize("dtype", (F16, BF16), ids=str)
def test_grad_of_float16_softmax_and_layer_norm(dtype):
    x = _input(dtype, 3000, FLAT)
    w = np.random.default_rng(1).standard_normal(3000).astype(dtype)
    a, wa = x.astype(np.float32), w.astype(np.float32)
    y = _softmax(a)
    _check(np.asarray(jg.grad(lambda v: jnp.sum(F.softmax(v, 0) * jnp.asarray(w)))(
        jnp.asarray(x))), y * (wa - np.sum(wa * y)), dtype)
    # layer_norm's input gradient: (g - mean(g) - y mean(g y)) / sigma
    sigma = np.sqrt(a.var() + np.float32(1e-5))
    y = (a - a.mean()) / sigma
    want = (wa - wa.mean() - y * np.mean(wa * y)) / sigma
    got = np.asarray(jg.grad(lambda v: jnp.sum(F.layer_norm(v, (3000,)) * jnp.asarray(w)))(
        jnp.asarray(x)))
    np.testing.assert_allclose(got.astype(np.float32), want.astype(dtype).astype(np.float32),
                               rtol=RTOL[dtype], atol=RTOL[dtype] * np.abs(want).max())


def test_vmap_of_a_float16_mean():
    x = np.ones((3, 70000), np.float16)
    got = np.asarray(jg.vmap(jnp.mean)(jnp.asarray(x)))
    assert got.dtype == F16
    np.testing.assert_array_equal(got, np.ones(3, np.float16))


@pytest.mark.parametrize("name", ("softmax", "log_softmax", "layer_norm"))
def test_fused_eager_composites_round_once_in_their_compiled_tier(name):
    """fused_in_eager runs the third call of a signature as one compiled unit: same values."""
    fn, ref, shape = REDUCTIONS[name]
    x = _input(F16, 3000, shape)
    for _ in range(3):
        _check(np.asarray(fn(jnp.asarray(x))), ref(x.astype(np.float32)), F16)


def test_float16_softmax_backward_in_eager_autograd_and_its_compiled_tier():
    """softmax's saved-output backward widens too; the third call runs the compiled tier."""
    x = _input(F16, 3000, FLAT)
    w = np.random.default_rng(1).standard_normal(3000).astype(F16)
    a, wa = x.astype(np.float32), w.astype(np.float32)
    y = _softmax(a)
    for _ in range(3):
        t = jg.tensor(x, requires_grad=True)
        (F.softmax(t, 0) * jg.tensor(w)).sum().backward()
        _check(np.asarray(t.grad), y * (wa - np.sum(wa * y)), F16)


def test_mixed_precision_normalization_keeps_the_promoted_dtype():
    # float16 input with float32 affine parameters promotes to float32, as before
    x = _input(F16, 3000, ROWS)
    got = F.layer_norm(jnp.asarray(x), (1500,), weight=jnp.ones(1500, "float32"))
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), _normalized(x.astype(np.float32), -1),
                               rtol=1e-5, atol=1e-5)


# name -> the PyTorch call (its CPU kernels accumulate 16-bit floats in float32: at::acc_type)
TORCH = {"sum": lambda torch, t: t.sum(), "mean": lambda torch, t: t.mean(),
         "var": lambda torch, t: t.var(0, unbiased=False), "cumsum": lambda torch, t: t.cumsum(0),
         "norm": lambda torch, t: torch.linalg.vector_norm(t),
         "logsumexp": lambda torch, t: t.logsumexp(-1), "softmax": lambda torch, t: t.softmax(-1),
         "log_softmax": lambda torch, t: t.log_softmax(-1),
         "layer_norm": lambda torch, t: torch.nn.functional.layer_norm(t, (t.shape[-1],))}


@pytest.mark.parametrize("dtype", (F16, BF16), ids=str)
@pytest.mark.parametrize("name", TORCH)
def test_matches_torch(name, dtype):
    torch = pytest.importorskip("torch")
    fn, _, shape = REDUCTIONS[name]
    x = _input(dtype, 70000, shape)
    tdt = {F16: torch.float16, BF16: torch.bfloat16}[dtype]
    want = TORCH[name](torch, torch.from_numpy(x.astype(np.float32)).to(tdt)).float().numpy()
    _check(_run(fn, x, "eager"), want, dtype)


# name -> the jax.numpy call (its statistics upcast 16-bit floats to float32: `_upcast_f16`)
JAX = {"sum": lambda jx: jx.sum, "mean": lambda jx: jx.mean, "var": lambda jx: jx.var,
       "std_ddof": lambda jx: lambda x: jx.std(x, axis=1, ddof=1)}
# (not average: jax.numpy's sums the 16-bit products in the 16-bit dtype, inf at 70000 here)


@pytest.mark.parametrize("dtype", (F16, BF16), ids=str)
@pytest.mark.parametrize("name", JAX)
def test_matches_jax(name, dtype):
    jax_numpy = pytest.importorskip("jax.numpy")
    fn, _, shape = REDUCTIONS[name]
    x = _input(dtype, 70000, shape)
    want = np.asarray(JAX[name](jax_numpy)(jax_numpy.asarray(x)), np.float32)
    _check(_run(fn, x, "eager"), want, dtype)
