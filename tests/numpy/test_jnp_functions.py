"""jax.numpy's names added for issue 49 (nan-reductions, quantiles, statistics, polynomials,
windows, sets, index helpers, array editing, bit packing, float helpers, signal functions)
against NumPy: one table, each case written once against a module `m` and run with m=numpy
(the reference) and m=jitgrad.numpy, eagerly and under jit (on the reference interpreter; a few
compiled); derivatives in float64 with check_grads, vmap, and the error paths."""
import math
import warnings

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.test_util import check_grads

R = np.random.RandomState(0)
A = R.randn(3, 5)
A_NAN = A.copy()
A_NAN[0, 1] = A_NAN[2, 3] = np.nan
V = R.randn(7)
W = R.randn(3)
P = np.array([2.0, -1.0, 0.5, 3.0])
Q = np.array([1.5, -2.0])
X = np.linspace(-1.5, 2.5, 9)
I = np.array([5, 1, 3, 3, 7, 1, 9])
J = np.array([3, 4, 9, 9, 11, 1])
B = R.randint(0, 2, (3, 13)).astype(bool)
M = np.arange(12.0).reshape(3, 4)
INF = np.array([np.inf, -np.inf, 1.0, -0.0, np.nan])

# (id, f(m, *args) with m numpy or jitgrad.numpy, args, jit-able with static shapes)
CASES = [
    ("nansum", lambda m, a: m.nansum(a, axis=0), (A_NAN,), True),
    ("nanprod", lambda m, a: m.nanprod(a, axis=1), (A_NAN,), True),
    ("nanmax", lambda m, a: m.nanmax(a, axis=1), (A_NAN,), True),
    ("nanmin", lambda m, a: m.nanmin(a), (A_NAN,), True),
    ("nanmean", lambda m, a: m.nanmean(a, axis=1, keepdims=True), (A_NAN,), True),
    ("nanvar", lambda m, a: m.nanvar(a, axis=1, ddof=1), (A_NAN,), True),
    ("nanstd", lambda m, a: m.nanstd(a, axis=0), (A_NAN,), True),
    ("nanargmax", lambda m, a: m.nanargmax(a, axis=1), (A_NAN,), True),
    ("nanargmin", lambda m, a: m.nanargmin(a, axis=0), (A_NAN,), True),
    ("nancumsum", lambda m, a: m.nancumsum(a, axis=1), (A_NAN,), True),
    ("nancumprod", lambda m, a: m.nancumprod(a), (A_NAN,), True),
    ("nanmedian", lambda m, a: m.nanmedian(a, axis=1), (A_NAN,), True),
    ("nanquantile", lambda m, a: m.nanquantile(a, [0.2, 0.9], axis=0), (A_NAN,), True),
    ("nanpercentile", lambda m, a: m.nanpercentile(a, 40, axis=1), (A_NAN,), True),
    ("quantile", lambda m, a: m.quantile(a, [0.1, 0.5, 0.75], axis=1, keepdims=True), (A,), True),
    ("quantile_lower", lambda m, a: m.quantile(a, 0.3, method="lower"), (A,), True),
    ("quantile_higher", lambda m, a: m.quantile(a, 0.3, axis=0, method="higher"), (A,), True),
    ("quantile_midpoint", lambda m, a: m.quantile(a, 0.3, method="midpoint"), (A,), True),
    ("quantile_nearest", lambda m, a: m.quantile(a, 0.5, axis=1, method="nearest"), (A,), True),
    ("percentile", lambda m, a: m.percentile(a, [25, 50], axis=(0, 1)), (A,), True),
    ("cov", lambda m, a: m.cov(a), (A,), True),
    ("cov_weights", lambda m, a: m.cov(a, ddof=0, fweights=[1, 2, 1, 3, 1],
                                       aweights=[0.5, 1, 2, 1, 0.1]), (A,), True),
    ("cov_columns", lambda m, a, b: m.cov(a.T, b.T, rowvar=False), (A, A[::-1]), True),
    ("corrcoef", lambda m, a: m.corrcoef(a), (A,), True),
    ("bincount", lambda m, i: m.bincount(i, minlength=12), (I,), False),
    ("bincount_weights", lambda m, i, w: m.bincount(i, w), (I, V), False),
    ("digitize", lambda m, x: m.digitize(x, [-1.0, 0.0, 0.5, 2.0]), (X,), True),
    ("digitize_right_down", lambda m, x: m.digitize(x, [2.0, 0.5, 0.0, -1.0], right=True), (X,),
     True),
    ("histogram_bin_edges", lambda m, v: m.histogram_bin_edges(v, 4), (V,), True),
    ("histogram", lambda m, v: m.histogram(v, 4, range=(-1, 1), density=True), (V,), True),
    ("histogram_edges", lambda m, v, w: m.histogram(v, [-2.0, 0.0, 0.3, 3.0], weights=w),
     (V, V * V), True),
    ("histogram2d", lambda m, a, b: m.histogram2d(a, b, bins=(2, 3)), (A[0], A[1]), True),
    ("histogramdd", lambda m, a: m.histogramdd(a.T, bins=2)[0], (A,), True),
    ("convolve", lambda m, a, b: m.convolve(a, b), (V, W), True),
    ("convolve_same", lambda m, a, b: m.convolve(a, b, "same"), (W, V), True),
    ("correlate", lambda m, a, b: m.correlate(a, b), (V, W), True),
    ("correlate_full", lambda m, a, b: m.correlate(a, b, "full"), (W, V), True),
    ("interp", lambda m, x: m.interp(x, [-1.0, 0.0, 1.0, 2.0], [0.0, 2.0, 1.0, 4.0]), (X,), True),
    ("interp_period", lambda m, x: m.interp(x, [0.2, 1.0, 0.0, 1.5], [1.0, 2.0, 3.0, 0.0],
                                            period=2.0), (X,), True),
    ("unwrap", lambda m, a: m.unwrap(m.cumsum(a * 3, axis=1)), (A,), True),
    ("trapezoid", lambda m, a, x: m.trapezoid(a, x), (A, np.sort(V[:5])), True),
    ("polyval", lambda m, p, x: m.polyval(p, x), (P, X), True),
    ("polyadd", lambda m, p, q: m.polyadd(p, q), (P, Q), True),
    ("polysub", lambda m, p, q: m.polysub(q, p), (P, Q), True),
    ("polymul", lambda m, p, q: m.polymul(p, q), (P, Q), True),
    ("polydiv", lambda m, p, q: m.polydiv(p, q)[0], (P, Q), True),
    ("polyder", lambda m, p: m.polyder(p, 2), (P,), True),
    ("polyint", lambda m, p: m.polyint(p, 2, k=[1.0, 2.0]), (P,), True),
    ("polyfit", lambda m, x, y: m.polyfit(x, y, 2), (X, np.sin(X)), True),
    ("poly", lambda m, z: m.poly(z), (W,), True),
    ("vander", lambda m, x: m.vander(x, 4, increasing=True), (W,), True),
    ("frexp", lambda m, x: m.frexp(x * 1e5), (V,), True),
    ("ldexp", lambda m, x: m.ldexp(x, np.arange(7) - 3), (V,), True),
    ("modf", lambda m, x: m.modf(x * 3), (V,), True),
    ("nextafter", lambda m, x, y: m.nextafter(x, y), (V, V[::-1]), True),
    ("spacing", lambda m, x: m.spacing(x * 1e3), (V,), True),
    ("fmod", lambda m, x: m.fmod(x * 5, 1.5), (V,), True),
    ("divmod", lambda m, x: m.divmod(x * 5, 1.5), (V,), True),
    ("gcd", lambda m, i, j: m.gcd(i[:6] * 6, j), (I, J), True),
    ("lcm", lambda m, i, j: m.lcm(i[:6], j), (I, J), True),
    ("i0", lambda m, x: m.i0(x), (V,), True),
    ("isposinf", lambda m, x: m.isposinf(x), (INF,), True),
    ("isneginf", lambda m, x: m.isneginf(x), (INF,), True),
    ("union1d", lambda m, i, j: m.union1d(i, j), (I, J), False),
    ("intersect1d", lambda m, i, j: m.intersect1d(i, j, return_indices=True), (I, J), False),
    ("setdiff1d", lambda m, i, j: m.setdiff1d(i, j), (I, J), False),
    ("setxor1d", lambda m, i, j: m.setxor1d(i, j), (I, J), False),
    ("isin", lambda m, i, j: m.isin(i, j, invert=True), (I, J), True),
    ("insert", lambda m, a: m.insert(a, [1, 3], [[7.0], [8.0], [9.0]], axis=1), (M,), True),
    ("insert_block", lambda m, a: m.insert(a, 1, [[1, 2, 3, 4], [5, 6, 7, 8]], axis=0), (M,),
     True),
    ("delete", lambda m, a: m.delete(a, [0, 2], axis=1), (M,), True),
    ("delete_flat", lambda m, a: m.delete(a, slice(2, 9, 3)), (M,), True),
    ("compress", lambda m, a: m.compress([True, False, True], a, axis=1), (M,), True),
    ("extract", lambda m, a: m.extract(a > 6, a), (M,), False),
    ("choose", lambda m, i: m.choose(i % 3, [i, i * 10, -i]), (I,), True),
    ("choose_clip", lambda m, i: m.choose(i, [i, i * 10, -i], mode="clip"), (I,), True),
    ("resize", lambda m, a: m.resize(a, (5, 5)), (M,), True),
    ("trim_zeros", lambda m, x: m.trim_zeros(x), (np.array([0.0, 0, 1, 2, 0, 3, 0]),), False),
    ("block", lambda m, a, b: m.block([[a, b], [b, a]]), (M[:2, :2], M[:2, 2:]), True),
    ("diagflat", lambda m, a: m.diagflat(a, -1), (M[:2, :2],), True),
    ("ediff1d", lambda m, a: m.ediff1d(a, to_end=[7.0], to_begin=0.0), (M,), True),
    ("lexsort", lambda m, i, j: m.lexsort((i[:6], j)), (I, J), True),
    ("sort_complex", lambda m, x: m.sort_complex(x), (np.array([1 + 2j, 1 - 1j, 5j, 1]),), True),
    ("array_equiv", lambda m, a: m.array_equiv(a[0], a), (np.ones((3, 4)),), True),
    ("packbits", lambda m, b: m.packbits(b, axis=1, bitorder="little"), (B,), True),
    ("unpackbits", lambda m, b: m.unpackbits(b, axis=0, count=-2), (np.packbits(B, axis=0),),
     True),
    ("bitwise_count", lambda m, i: m.bitwise_count(i * 37 - 100), (I,), True),
    ("bartlett", lambda m: m.bartlett(6), (), True),
    ("blackman", lambda m: m.blackman(7), (), True),
    ("hamming", lambda m: m.hamming(5), (), True),
    ("hanning", lambda m: m.hanning(1), (), True),
    ("kaiser", lambda m: m.kaiser(6, 4.0), (), True),
    ("tril_indices", lambda m: m.tril_indices(4, 1, 5), (), True),
    ("triu_indices_from", lambda m, a: m.triu_indices_from(a, -1), (M,), True),
    ("diag_indices_from", lambda m, a: m.diag_indices_from(a), (np.ones((3, 3, 3)),), True),
    ("mask_indices", lambda m: m.mask_indices(3, np.triu, 1), (), True),
    ("indices", lambda m: m.indices((2, 3)), (), True),
    ("ix_", lambda m, i, j: m.ix_(i, j), (I[:2], J[:3]), True),
    ("unravel_index", lambda m, i: m.unravel_index(i, (3, 4)), (I,), True),
    ("ravel_multi_index", lambda m, i, j: m.ravel_multi_index((i, j), (10, 12), mode="wrap"),
     (I[:6], J), True),
    ("mgrid", lambda m: m.mgrid[0:3, 0:2:5j], (), True),
    ("ogrid", lambda m: m.ogrid[0:2, 1:4], (), True),
    ("fill_diagonal", lambda m, a: _fill_diagonal(m, a), (np.zeros((7, 3)),), True),
    ("put", lambda m, a: _put(m, a), (M,), True),
    ("put_along_axis", lambda m, a: _put_along_axis(m, a), (M,), True),
    ("place", lambda m, a: _place(m, a), (M,), True),
    ("apply_along_axis", lambda m, a: m.apply_along_axis(lambda v: v[::-1] * v[0], 1, a), (A,),
     True),
    ("apply_over_axes", lambda m, a: m.apply_over_axes(m.sum, a, [0, 1]), (A,), True),
    ("piecewise", lambda m, x: m.piecewise(x, [x < 0, x > 1], [lambda v: -v, 1.0, lambda v: v * v]),
     (X,), True),
    ("fromfunction", lambda m: m.fromfunction(lambda i, j: i * 10 + j, (2, 3)), (), True),
    ("vectorize", lambda m, a, b: m.vectorize(lambda u, v: u * v + 1)(a, b), (A, V[:5]), True),
    ("matvec", lambda m, a, v: m.matvec(a, v), (A, V[:5]), True),
    ("vecmat", lambda m, v, a: m.vecmat(v, a), (W, A), True),
    ("cumulative_prod", lambda m, a: m.cumulative_prod(a, axis=1), (A,), True),
]


def _fill_diagonal(m, a):
    if m is np:
        a = a.copy()
        np.fill_diagonal(a, [5.0, 6.0], wrap=True)
        return a
    return m.fill_diagonal(a, [5.0, 6.0], wrap=True, inplace=False)


def _put(m, a):
    if m is np:
        a = a.copy()
        np.put(a, [0, 5, 7], [-1.0, -2.0])
        return a
    return m.put(a, [0, 5, 7], [-1.0, -2.0], inplace=False)


def _put_along_axis(m, a):
    idx = np.array([[1], [0], [3]])
    if m is np:
        a = a.copy()
        np.put_along_axis(a, idx, 99.0, 1)
        return a
    return m.put_along_axis(a, idx, 99.0, 1, inplace=False)


def _place(m, a):
    if m is np:
        a = a.copy()
        np.place(a, a > 5, [1.0, 2.0, 3.0])
        return a
    return m.place(a, a > 5, [1.0, 2.0, 3.0], inplace=False)


def _leaves(x):
    if isinstance(x, (tuple, list)):
        return [leaf for e in x for leaf in _leaves(e)]
    return [x]


def _close(got, want, name):
    got, want = _leaves(got), _leaves(want)
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (name, g.shape, w.shape)
        tol = 1e-5 if g.dtype in (np.float32, np.complex64) else 1e-9
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=name)


def _reference(fn, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(np, *args)


@pytest.mark.parametrize("name,fn,args,jittable", CASES, ids=[c[0] for c in CASES])
def test_eager_matches_numpy(name, fn, args, jittable):
    _close(fn(jnp, *args), _reference(fn, args), name)


JIT_CASES = [c for c in CASES if c[3]]


@pytest.mark.interpreter
@pytest.mark.parametrize("name,fn,args,jittable", JIT_CASES, ids=[c[0] for c in JIT_CASES])
def test_jit_matches_numpy(name, fn, args, jittable):
    _close(jg.jit(lambda *a: fn(jnp, *a))(*args), _reference(fn, args), name)


COMPILED = ("nanvar", "quantile", "histogram", "convolve", "polyval", "frexp", "isin", "packbits",
            "choose", "vectorize")


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_jit_matches_numpy(name):
    _, fn, args, _ = next(c for c in CASES if c[0] == name)
    _close(jg.jit(lambda *a: fn(jnp, *a))(*args), _reference(fn, args), name)


@pytest.mark.interpreter
@pytest.mark.parametrize("fn,args", [
    (lambda a: jnp.nanmean(a, axis=1), (A,)),
    (lambda a: jnp.nanstd(a, axis=0), (A,)),
    (lambda a: jnp.quantile(a, 0.3, axis=1), (A,)),
    (lambda a: jnp.nanpercentile(a, 60), (A,)),
    (lambda a: jnp.cov(a), (A,)),
    (lambda a: jnp.corrcoef(a), (A,)),
    (lambda a, b: jnp.convolve(a, b), (V, W)),
    (lambda a, b: jnp.correlate(a, b, "same"), (V, W)),
    (lambda x: jnp.interp(x, jnp.asarray([-2.0, 0.0, 1.0, 3.0]), jnp.asarray([0.0, 2.0, 1.0, 4.0])),
     (X * 0.9 + 0.05,)),
    (lambda p, x: jnp.polyval(p, x), (P, X)),
    (lambda p, q: jnp.polydiv(p, q)[0], (P, Q)),
    (lambda y: jnp.polyfit(X, y, 2), (np.sin(X),)),
    (lambda a: jnp.trapezoid(a, dx=0.5), (A,)),
    (lambda w: jnp.histogram(V, 3, weights=w)[0], (V * V,)),
    (lambda a: jnp.insert(a, 1, 5.0, axis=1), (M,)),
    (lambda a: jnp.apply_along_axis(lambda v: jnp.sum(v * v), 0, a), (A,)),
    (lambda a: jnp.vectorize(lambda u, v: jnp.dot(u, v), signature="(n),(n)->()")(a, a), (A,)),
    (lambda x: jnp.piecewise(x, [x < 0], [lambda v: v * v, lambda v: jnp.sin(v)]), (X + 0.05,)),
    (lambda x: jnp.ldexp(x, 3), (V,)),
], ids=lambda v: "" if isinstance(v, tuple) else None)
def test_gradients(fn, args):
    check_grads(fn, args, order=1, modes=("rev",))


def test_vmap_over_new_functions():
    batch = R.randn(4, 7)
    np.testing.assert_allclose(jg.vmap(lambda v: jnp.quantile(v, 0.3))(batch).numpy(),
                               np.quantile(batch, 0.3, axis=1), rtol=1e-9)
    np.testing.assert_allclose(jg.vmap(lambda v: jnp.convolve(v, W))(batch).numpy(),
                               np.stack([np.convolve(b, W) for b in batch]), rtol=1e-9)
    np.testing.assert_allclose(jg.vmap(lambda v: jnp.nanmax(v))(batch).numpy(),
                               batch.max(axis=1))
    np.testing.assert_array_equal(
        jg.vmap(lambda v: jnp.isin(v, I))(np.stack([I, I + 1])).numpy(),
        np.stack([np.isin(I, I), np.isin(I + 1, I)]))


@pytest.mark.interpreter
def test_data_dependent_sizes_under_jit_take_size():
    f = jg.jit(lambda a, b: (jnp.union1d(a, b, size=8), jnp.setdiff1d(a, b, size=4),
                             jnp.intersect1d(a, b, size=4, fill_value=-1),
                             jnp.extract(a > 3, a, size=5, fill_value=0),
                             jnp.bincount(a, length=6)))
    union, diff, inter, ext, counts = f(I, J)
    assert union.tolist() == [1, 3, 4, 5, 7, 9, 11, 1]      # padded with the smallest value
    assert diff.tolist() == [5, 7, 0, 0]                     # padded with 0, as JAX
    assert inter.tolist() == [1, 3, 9, -1]
    assert ext.tolist() == [5, 7, 9, 0, 0]
    assert counts.tolist() == [0, 2, 0, 2, 0, 1]             # 7 and 9 are past length: dropped


def test_values_jax_chooses():
    assert jnp.nanargmax(jnp.asarray([np.nan, np.nan])).item() == -1
    q, r = jnp.polydiv(P, Q)
    np.testing.assert_allclose(r.numpy()[-1:], np.polydiv(P, Q)[1])
    assert r.shape == P.shape                                # JAX keeps u's length
    assert jnp.roots(P).shape == (3,)
    np.testing.assert_allclose(np.sort_complex(jnp.roots(P).numpy()), np.sort_complex(np.roots(P)))
    assert jnp.issubdtype(jnp.bfloat16, jnp.floating) and jnp.issubdtype(jnp.int4, jnp.integer)
    assert jnp.issubdtype(jnp.float32, jnp.inexact) and not jnp.issubdtype(jnp.int32, jnp.floating)
    assert jnp.unravel_index(jnp.asarray([-1, 99]), (3, 4))[0].tolist() == [2, 2]   # JAX clips
    u = jnp.frompyfunc(lambda a, b: a * b + a, 2, 1, identity=0)
    assert u.reduce(jnp.asarray([1.0, 2.0, 3.0])).item() == 12.0      # (1*2+1)*3+3
    assert u.accumulate(jnp.asarray([1.0, 2.0, 3.0])).tolist() == [1.0, 3.0, 12.0]
    assert u.outer(jnp.arange(2.0), jnp.arange(3.0)).shape == (2, 3)
    assert jnp.einsum_path("ij,jk->ik", np.ones((2, 3)), jnp.ones((3, 4)))[0][0] == "einsum_path"
    assert "1., 2." in jnp.array_repr(jnp.asarray([1.0, 2.0]))
    assert jnp.iterable([1]) and not jnp.iterable(1)


def test_save_and_load(tmp_path):
    path = tmp_path / "x.npy"
    jnp.save(path, jnp.arange(3.0))
    assert jnp.load(path).tolist() == [0.0, 1.0, 2.0]
    jnp.savez(tmp_path / "y.npz", a=jnp.ones(2))
    assert jnp.load(tmp_path / "y.npz")["a"].tolist() == [1.0, 1.0]
    assert jnp.frombuffer(b"\x01\x02", dtype=np.uint8).tolist() == [1, 2]
    assert jnp.fromstring("1 2", sep=" ").tolist() == [1.0, 2.0]
    assert jnp.fromiter(range(3), int).tolist() == [0, 1, 2]


@pytest.mark.parametrize("call,error,match", [
    (lambda: jnp.quantile(A, 1.5), ValueError, r"q must be in \[0, 1\]"),
    (lambda: jnp.quantile(A, 0.5, method="cubic"), ValueError, "method must be one of"),
    (lambda: jnp.bincount(jnp.asarray([1.0])), TypeError, "integer array, got float32"),
    (lambda: jg.jit(lambda i: jnp.bincount(i))(I), Exception, "pass length="),
    (lambda: jg.jit(lambda a, b: jnp.union1d(a, b))(I, J), Exception, "pass size="),
    (lambda: jnp.histogram(V, bins="auto"), NotImplementedError, "string bins"),
    (lambda: jnp.convolve(A, W), ValueError, "1-d"),
    (lambda: jnp.convolve(V, W, "middle"), ValueError, "mode must be"),
    (lambda: jnp.put(M, [0], 1.0), ValueError, "inplace=False"),
    (lambda: jnp.fill_diagonal(np.zeros(3), 1.0, inplace=False), ValueError, "at least 2-d"),
    (lambda: jnp.choose(jnp.asarray([0, 5]), [I[:2], J[:2]]), IndexError, "out of bounds"),
    (lambda: jnp.ravel_multi_index((jnp.asarray([5]),), (3,)), ValueError, "invalid entry"),
    (lambda: jnp.vectorize(lambda a: a, signature="(n->()")(V), ValueError, "signature"),
    (lambda: jnp.packbits(V), TypeError, "integer or boolean"),
    (lambda: jnp.unpackbits(I), TypeError, "uint8"),
    (lambda: jnp.gcd(V, V), TypeError, "integer arrays"),
    (lambda: jnp.ldexp(V, V), TypeError, "x2 must be an integer"),
    (lambda: jnp.hamming(2.5), TypeError, "M must be an int"),
    (lambda: jnp.polyder(P, -1), ValueError, "must be positive"),
    (lambda: jg.jit(lambda i: jnp.delete(M, i))(I[:2]), Exception, "positions must be known"),
    (lambda: jnp.lexsort([]), TypeError, "need sequence of keys"),
    (lambda: jnp.interp(X, [0.0, 1.0], [1.0]), ValueError, "1-d of one length"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_gcd_of_consecutive_fibonacci_numbers_needs_every_step():
    fib = [1, 1]
    while fib[-1] < 2 ** 62:
        fib.append(fib[-1] + fib[-2])
    a = np.array(fib[-2:-1] + [2 ** 62, 0], dtype=np.int64)
    b = np.array(fib[-3:-2] + [2 ** 40 * 3, 0], dtype=np.int64)
    assert jnp.gcd(a, b).tolist() == np.gcd(a, b).tolist()
    assert math.gcd(fib[-2], fib[-3]) == 1
