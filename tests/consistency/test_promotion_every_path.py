"""Issue 49: arrays of any two dtypes promote with JAX's lattice (which PyTorch's table agrees
with wherever torch promotes), on every path: eager, jit on the reference interpreter, jit
compiled, grad and vmap. float32 + int32 is float32 as in jax.numpy and torch (NumPy: float64).

Expected dtypes come from JAX's table pasted in tests/support/promotion_table.py; expected values
are NumPy's sums computed in that dtype. A 0-d tensor meeting a dimensioned one is the exception
of Tensor operators and torch-named functions (torch's rule, TORCH_ZERO_DIM there; every pair in
tests/consistency/test_zero_dim_promotion.py); jitgrad.numpy's functions keep JAX's table."""
from __future__ import annotations

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.ir.types import dtype_from_short
from tests.support.promotion_table import ORDER, expected

F32, F64 = np.dtype("float32"), np.dtype("float64")
PAIRS = [(a, b) for i, a in enumerate(ORDER) for b in ORDER[i:]]
# the pairs where JAX's answer is not NumPy's (bfloat16 aside, which NumPy does not promote),
# compiled below; compiling all 120 sums costs ~10 s of cold kernel builds, so the other pairs
# are checked compiled by their traced dtypes (test_every_pair_traces_to_jaxs_dtype)
CHANGED = [("f32", "i32"), ("f32", "i64"), ("f32", "u32"), ("f32", "u64"), ("i32", "c64"),
           ("i32", "f16"), ("i64", "c64"), ("i64", "f16"), ("c64", "u32"), ("c64", "u64"),
           ("f16", "i16"), ("f16", "u16"), ("f16", "u32"), ("f16", "u64"), ("i64", "u64")]


@pytest.fixture
def x64():
    jg.config.update("enable_x64", True)
    yield
    jg.config.update("enable_x64", False)


def _inputs(names):
    return {n: np.array([1, 0, 3]).astype(dtype_from_short(n)) for n in names}


def _sums(path, pairs, monkeypatch):
    """{(a, b): a + b as NumPy} for arrays [1, 0, 3] of dtypes a and b, on one path."""
    xs = {n: jnp.asarray(v) for n, v in _inputs({n for p in pairs for n in p}).items()}

    def fn(xs):
        return [xs[a] + xs[b] for a, b in pairs]
    if path == "interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    out = fn(xs) if path == "eager" else jg.jit(fn)(xs)
    return {p: np.asarray(o) for p, o in zip(pairs, out)}


def _check(got, default_float):
    vals = _inputs(ORDER)
    wrong = []
    for (a, b), r in got.items():
        want = expected(a, b, default_float)
        if r.dtype != want or not np.array_equal(r, vals[a].astype(want) + vals[b].astype(want)):
            wrong.append(f"{a}+{b}: {r.dtype} {r.tolist()}, want {want}")
    assert not wrong, wrong


@pytest.mark.parametrize("path", ["eager", "interpreter"])
def test_every_pair_of_dtypes_promotes_as_jax(path, monkeypatch):
    _check(_sums(path, PAIRS, monkeypatch), F32)


def test_pairs_where_jax_differs_from_numpy_compiled(monkeypatch):
    _check(_sums("compiled", CHANGED, monkeypatch), F32)


def test_every_pair_traces_to_jaxs_dtype():
    xs = {n: jnp.asarray(v) for n, v in _inputs(ORDER).items()}
    graph = jg.make_graph(lambda xs: [xs[a] + xs[b] for a, b in PAIRS])(xs)
    got = [np.dtype(v.type.dtype) for v in graph.outputs]
    assert got == [expected(a, b, F32) for a, b in PAIRS]


@pytest.mark.parametrize("path", ["eager", "interpreter"])
def test_x64_resolves_jaxs_weak_float_to_float64(path, monkeypatch, x64):
    _check(_sums(path, [("u64", "i64"), ("u64", "i8"), ("f32", "i64"), ("c64", "i64")],
                 monkeypatch), F64)


@pytest.mark.parametrize("path", ["eager", "interpreter", "compiled"])
def test_int_meeting_float32_rounds_once_in_float32(path, monkeypatch):
    # 2**24 + 1 is not a float32: the int converts to float32 and the sum rounds in float32
    x = np.array([0.5, 1.0, -3.0], np.float32)
    i = np.array([2 ** 24 + 1, -(2 ** 31) + 1, 7], np.int32)
    n = np.array([2 ** 40 + 3, 5, -2], np.int64)
    h = np.array([0.5, 1.0, 2.0], np.float16)
    s = np.array([2049, -3, 1], np.int16)
    if path == "interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")

    def fn(x, i, n, h, s):
        return x + i, n * x, h - s
    args = [jnp.asarray(v) for v in (x, i, n, h, s)]
    got = [np.asarray(o) for o in (fn(*args) if path == "eager" else jg.jit(fn)(*args))]
    want = [x + i.astype(F32), n.astype(F32) * x, h - s.astype(np.float16)]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w), (g, w)


@pytest.mark.parametrize("x64_on", [False, True])
def test_int_math_that_goes_to_float_gives_the_default_float(x64_on):
    jg.config.update("enable_x64", x64_on)
    try:
        want = F64 if x64_on else F32
        i = jnp.asarray(np.array([1, 2, 3], np.int32))
        assert jnp.true_divide(i, i).dtype == want and (i / i).dtype == want
        assert jnp.sin(i).dtype == want and jnp.sqrt(i.astype(jnp.int8)).dtype == want
        assert jg.jit(lambda a: a / a)(i).dtype == want
    finally:
        jg.config.update("enable_x64", False)


def test_grad_and_vmap_of_mixed_dtypes():
    x = jnp.asarray(np.array([[0.5, 1.5], [2.0, -1.0]], np.float32))
    n = jnp.asarray(np.array([[3, -2], [1, 4]], np.int32))
    g = jg.grad(lambda x, n: jnp.sum(x * n))(x, n)
    assert g.dtype == F32 and np.array_equal(np.asarray(g), np.asarray(n).astype(F32))
    v = jg.vmap(lambda x, n: x + n)(x, n)
    assert v.dtype == F32
    np.testing.assert_array_equal(np.asarray(v), np.asarray(x) + np.asarray(n).astype(F32))


@pytest.mark.parametrize("path", ["eager", "interpreter", "compiled"])
def test_operators_rank_a_0d_tensor_below_jnp_functions_do_not(path, monkeypatch):
    x = jnp.asarray(np.array([1.5, 0.0, 3.0], np.float32))
    s = jnp.asarray(np.array(2.25, np.float64))
    i = jnp.asarray(np.array([1, 0, 3], np.int8))
    n = jnp.asarray(np.array(300, np.int64))

    def fn(x, s, i, n):
        return x + s, jnp.add(x, s), i * n, jnp.multiply(i, n), s - x, jnp.subtract(s, x)
    if path == "interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    got = [np.asarray(o) for o in (fn(x, s, i, n) if path == "eager" else jg.jit(fn)(x, s, i, n))]
    xs, ss, iv = np.asarray(x), np.asarray(s), np.asarray(i)
    want = [xs + np.float32(ss), xs.astype(F64) + ss, iv * np.int8(44), iv.astype(np.int64) * 300,
            np.float32(ss) - xs, ss - xs.astype(F64)]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w), (g, w)


def test_torch_named_functions_and_tensor_operators_promote_alike():
    a = jg.tensor([1.0, 2.0])
    b = jg.tensor([3, 4], dtype=jg.int64)
    assert (a + b).dtype == jg.float32 and (b * a).dtype == jg.float32
    assert jg.promote_types(jg.int64, jg.float32) == jg.float32
    assert jg.result_type(a, b) == jg.float32
    assert jnp.promote_types(jnp.uint64, jnp.int64) == F32      # JAX's weak float: the default


def test_an_unsupported_dtype_is_named():
    with pytest.raises(TypeError, match=r"promote_types: dtype datetime64\[s\] is not suppo"):
        jnp.promote_types(np.float32, np.dtype("datetime64[s]"))


def test_torch_agrees_wherever_torch_promotes():
    torch = pytest.importorskip("torch")
    refused = []
    for a, b in PAIRS:
        da, db = dtype_from_short(a), dtype_from_short(b)
        ta, tb = getattr(torch, da.name), getattr(torch, db.name)
        try:
            want = str(torch.promote_types(ta, tb)).removeprefix("torch.")
        except RuntimeError:        # torch promotes uint16/32/64 only with floats and itself
            refused.append((a, b))
            continue
        assert jg.promote_types(da, db).name == want, (a, b)
        assert (jg.ones(2, dtype=da) + jg.ones(2, dtype=db)).dtype.name == want, (a, b)
    assert all({"u16", "u32", "u64"} & {a, b} for a, b in refused)
