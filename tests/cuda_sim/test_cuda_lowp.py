"""The low-precision dtypes on cuda under the simulator: float16, bfloat16, int8, uint8, int16,
uint16, uint32 and uint64, eager and jitted, give the CPU's bits (codegen/cuda/lowp.py).
Run by tests/codegen/cuda/test_cuda_sim_runner.py.

Reductions and matmuls use values whose float32 sums are exact (multiples of 1/8), so the
different summation orders of the two backends cannot differ; exp and tanh compare the half
results of the two float32 math libraries at a fixed seed."""
import importlib.util

import numpy as np
import pytest

from jitgrad.codegen.cuda.toolchain import cuda_simulator_enabled

if not cuda_simulator_enabled() or importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("needs numba-cuda and NUMBA_ENABLE_CUDASIM=1 (tests/codegen/cuda/test_cuda_sim_runner.py)",
                allow_module_level=True)

import ml_dtypes  # noqa: E402

import jitgrad as jg  # noqa: E402
import jitgrad.numpy as jnp  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
HALVES = [F16, BF16]
INTS = [np.dtype(d) for d in ("int8", "uint8", "int16", "uint16", "uint32", "uint64")]
NEW = HALVES + INTS
ALL = NEW + [np.dtype(d) for d in ("float32", "float64", "int32", "int64", "bool")]
ids = lambda d: np.dtype(d).name  # noqa: E731


def _data(dtype, shape, seed=0, exact=False):
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.standard_normal(shape) > 0
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -100), min(info.max, 100)
        return rng.integers(lo, hi, shape, endpoint=True).astype(dtype)
    if exact:      # multiples of 1/8 in [-4, 4]: float32 sums of a few hundred are exact
        return (rng.integers(-32, 33, shape) / 8).astype(dtype)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    flat = x.reshape(-1)
    if flat.size >= 8:
        flat[:4] = np.array([0.0, -0.0, np.inf, -np.inf]).astype(dtype)
    return x


def _bits(a):
    a = np.asarray(a)
    return a if a.dtype.kind == "b" else a.view(f"u{a.dtype.itemsize}")


def _same(got, want, what=""):
    """got (a cuda tensor) holds exactly want's (a CPU tensor's) dtype, shape and bits."""
    assert got.device == jg.device("cuda"), what
    g, w = got.numpy(), want.numpy()
    assert g.dtype == w.dtype and g.shape == w.shape, (what, g.dtype, w.dtype, g.shape, w.shape)
    np.testing.assert_array_equal(_bits(g), _bits(w), err_msg=f"{what}: {g} != {w}")


def _both(fn, *arrays, jit=False):
    """fn on cuda tensors (jitted when asked) against fn on CPU tensors, bit for bit. The CPU
    side runs eagerly: the NumPy reference, which the CPU's compiled units match bit for bit
    (tests/numpy/test_dtypes_lowp.py), so one oracle serves the eager and the jitted cuda paths."""
    want = fn(*[jg.tensor(a) for a in arrays])
    got = (jg.jit(fn) if jit else fn)(*[jg.tensor(a, device="cuda") for a in arrays])
    for g, w in zip(jg.tree_util.tree_leaves(got), jg.tree_util.tree_leaves(want)):
        _same(g, w, f"{getattr(fn, '__name__', fn)} jit={jit}")
    return got


@pytest.mark.parametrize("dtype", NEW, ids=ids)
def test_transfer_keeps_dtype_and_bits(dtype):
    a = _data(dtype, (3, 5))
    t = jg.tensor(a).to("cuda")
    assert t.dtype == dtype and t.device == jg.device("cuda")
    back = t.to("cpu")
    assert back.dtype == dtype
    np.testing.assert_array_equal(_bits(back.numpy()), _bits(a))
    c = jg.tensor(a, device="cuda")
    assert c.dtype == dtype
    np.testing.assert_array_equal(_bits(c.numpy()), _bits(a))


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("dtype", NEW, ids=ids)
def test_arithmetic(dtype, jit):
    a, b = _data(dtype, (4, 9), 1), _data(dtype, (4, 9), 2)
    if dtype.kind in "iu":
        b[b == 0] = 3
    _both(lambda x, y: x + y, a, b, jit=jit)
    _both(lambda x, y: x * y, a, b, jit=jit)
    _both(lambda x, y: x / y, a, b, jit=jit)
    _both(lambda x, y: x - y * 2, a, b, jit=jit)
    _both(lambda x, y: (x < y, x == y, jnp.maximum(x, y)), a, b, jit=jit)
    if dtype.kind in "iu":
        _both(lambda x, y: (x // y, x % y, x & y, x ^ y), a, b, jit=jit)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("dtype", HALVES, ids=ids)
def test_exp_tanh_and_a_broadcast_chain(dtype, jit):
    a, b = _data(dtype, (6, 16), 3), _data(dtype, (16,), 4)
    _both(jnp.exp, a, jit=jit)
    _both(jnp.tanh, a, jit=jit)
    _both(lambda x, y: jnp.tanh(x * y + 1) - jnp.exp(-x * x) * 0.5, a, b, jit=jit)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("dtype", NEW, ids=ids)
def test_sum_and_mean_accumulate_wide(dtype, jit):
    a = _data(dtype, (7, 33), 5, exact=True)
    _both(lambda x: jnp.sum(x), a, jit=jit)
    _both(lambda x: jnp.sum(x, axis=0), a, jit=jit)
    _both(lambda x: jnp.mean(x, axis=1), a, jit=jit)
    _both(lambda x: jnp.max(x, axis=1), a, jit=jit)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("dtype", NEW, ids=ids)
def test_matmul(dtype, jit):
    a, b = _data(dtype, (5, 12), 6, exact=True), _data(dtype, (12, 7), 7, exact=True)
    if dtype.kind in "iu":
        a, b = ((np.abs(v.astype(np.int64)) % 8).astype(dtype) for v in (a, b))
    _both(lambda x, y: x @ y, a, b, jit=jit)
    if dtype in HALVES:     # bigger than a tile, with the bias epilogue
        a, b = _data(dtype, (40, 36), 8, exact=True), _data(dtype, (36, 70), 9, exact=True)
        c = _data(dtype, (70,), 10, exact=True)
        _both(lambda x, y, z: jnp.maximum(x @ y + z, 0), a, b, c, jit=jit)


@pytest.mark.parametrize("src", ALL, ids=ids)
def test_convert_between_every_pair(src):
    """Every dtype to every other. Integers get the finite values only: a float outside the
    target's range (inf, NaN) has no defined integer (NumPy warns; x86 and PTX differ)."""
    a = _data(src, (2, 17), 11)
    if src.kind == "f" or src in HALVES:
        a.reshape(-1)[4:12] = np.array([np.nan, 300.7, -1.0, 65519.0, 1e-7, 2.5, -129.5,
                                        70000.75]).astype(src)
    finite = np.where(np.isfinite(a.astype(np.float64)), a, 7).astype(src)

    def fn(x, xi):
        return tuple((xi if d.kind in "iu" else x).astype(d) for d in ALL)
    _both(fn, a, finite)
    _both(fn, a, finite, jit=True)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_integers_wrap_like_numpy(jit):
    cases = {np.int8: (127, 1), np.int16: (32767, 1), np.uint8: (0, -1), np.uint16: (0, -1),
             np.uint32: (0, -1), np.uint64: (0, -1)}
    for dtype, (start, step) in cases.items():
        x = np.array([start, 5], dtype)
        fn = (lambda v: v + jnp.ones_like(v)) if step == 1 else (lambda v: v - jnp.ones_like(v))
        got = _both(fn, x, jit=jit)
        want = np.array([start, 5], np.int64) + step
        np.testing.assert_array_equal(got.numpy(), want.astype(dtype))
    got = _both(lambda v: v * v, np.array([100, -100, 16], np.int8), jit=jit)
    np.testing.assert_array_equal(got.numpy(), np.array([16, 16, 0], np.int8))


@pytest.mark.parametrize("dtype", HALVES, ids=ids)
def test_jitted_value_and_grad_of_an_mlp(dtype):
    rng = np.random.default_rng(12)
    shapes = [(12, 16), (16,), (16, 4), (4,)]
    params = [(rng.standard_normal(s) * 0.3).astype(dtype) for s in shapes]
    x = rng.standard_normal((8, 12)).astype(dtype)
    y = np.eye(4, dtype=dtype)[rng.integers(0, 4, 8)]

    def loss(params, x, y):
        w1, b1, w2, b2 = params
        h = jnp.tanh(x @ w1 + b1)
        return jnp.mean((h @ w2 + b2 - y) ** 2)

    fn = jg.value_and_grad(loss)
    want_v, want_g = fn([jg.tensor(p) for p in params], jg.tensor(x), jg.tensor(y))
    args = ([jg.tensor(p, device="cuda") for p in params], jg.tensor(x, device="cuda"),
            jg.tensor(y, device="cuda"))
    got_v, got_g = jg.jit(fn)(*args)
    # every scheduled kernel but the opaque ones is one generated kernel, converting in-kernel
    lowered = jg.jit(fn).lower(*args)
    kinds = [n.params["kind"] for n in lowered.schedule]
    assert lowered.kernels.count("# kernel ") == len(kinds) - kinds.count("opaque")
    assert "matmul" in kinds and "_TO_F32(" in lowered.kernels
    assert got_v.dtype == dtype and [g.dtype for g in got_g] == [dtype] * 4
    _same(got_v, want_v, "loss")
    for k, (g, w) in enumerate(zip(got_g, want_g)):
        _same(g, w, f"grad {k}")
