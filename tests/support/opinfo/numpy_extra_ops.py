"""The rest of jitgrad.numpy's functions (NumPy owns the names): comparisons of whole arrays,
partitions, in-place setters in their copying form (inplace=False), histograms, polynomials,
bit packing, the functions that apply functions, data-dependent shapes (run eagerly), and
jitgrad.numpy.linalg's names that are jitgrad.numpy's products."""
import numpy as np
import scipy.special

import jitgrad.numpy as jnp
from jitgrad.errors import ShapeError
from .core import (ALL, B, BINARY, FLOATS, I32, I64, INTS, NUMERIC, R2, UNARY, Bools, Ints, err,
                   table)

RECORDS, record = table("numpy")
_EDGES = np.array([-2.0, -0.5, 0.0, 2.0])
EAGER = dict(differentiable=False, traceable=False, batchable=False)   # data-dependent shapes


def _both(call, **kw):
    """(jitgrad's, NumPy's) versions of call(lib, *args)."""
    return lambda *a: call(jnp, *a), lambda *a: call(np, *a)


def rec(name, call, cases, **kw):
    record(name, *_both(call), cases, **kw)


# whole-array comparisons
rec("allclose", lambda lib, a, b: lib.allclose(a, a + b * 1e-7), BINARY, dtypes=FLOATS,
    differentiable=False)
rec("allclose", lambda lib, a, b: lib.allclose(a, b), BINARY[:4], dtypes=NUMERIC,
    differentiable=False)
for _n in ("array_equal", "array_equiv"):
    rec(_n, lambda lib, a, b, _n=_n: [getattr(lib, _n)(a, a + 0 * b), getattr(lib, _n)(a, b)],
        BINARY[:5], dtypes=ALL, differentiable=False)
rec("array_equal", lambda lib, a, b: lib.array_equal(a, b), [((3,), (4,)), ((2, 3), (3,))],
    differentiable=False)

# elementwise
rec("angle", lambda lib, x: lib.angle(x), UNARY, dtypes=NUMERIC, domain="nonzero",
    float_result=True, differentiable=False)
for _n in ("iscomplex", "isreal"):
    rec(_n, lambda lib, x, _n=_n: getattr(lib, _n)(x), UNARY, dtypes=ALL, differentiable=False)
rec("real_if_close", lambda lib, x: lib.real_if_close(x), UNARY, dtypes=NUMERIC)
rec("nextafter", lambda lib, a, b: lib.nextafter(a, b), BINARY, dtypes=FLOATS,
    differentiable=False)
rec("spacing", lambda lib, x: lib.spacing(x), UNARY, dtypes=FLOATS, differentiable=False)
rec("bitwise_count", lambda lib, x: lib.bitwise_count(x), UNARY, dtypes=INTS,
    domain="shift", differentiable=False)
record("div", jnp.div, np.divide, BINARY, dtypes=NUMERIC, domain=("any", "nonzero"),
       float_result=True)
record("neg", jnp.neg, np.negative, UNARY, dtypes=NUMERIC)
record("round_", jnp.round_, np.rint, UNARY, dtypes=FLOATS, differentiable=False)
record("erf", jnp.erf, scipy.special.erf, UNARY, dtypes=FLOATS)
record("expand", lambda x: jnp.expand(x, 2, 3, -1),
       lambda x: np.broadcast_to(x, (2, 3, x.shape[-1])), [((3, 1),), ((3, 4),), ((1, 4),)],
       dtypes=ALL, owner="torch", note="torch.Tensor.expand's spelling, kept for torch users",
       errors=(err([(2, 2)], ShapeError, "broadcast"),))

# joining and broadcasting
rec("concat", lambda lib, a, b: lib.concat([a, b]), [((2, 3), (1, 3)), ((3,), (0,))], dtypes=ALL)
rec("concat", lambda lib, a, b: lib.concat([a, b], axis=-1), [((2, 3), (2, 2))])
rec("row_stack", lambda lib, a, b: (lib.row_stack if lib is jnp else lib.vstack)([a, b]),
    [((3,), (3,)), ((2, 3), (1, 3))], dtypes=NUMERIC)
rec("block", lambda lib, a, b, c, d: lib.block([[a, b], [c, d]]),
    [((2, 2), (2, 3), (1, 2), (1, 3)), ((1, 1), (1, 2), (3, 1), (3, 2))], dtypes=NUMERIC)
rec("block", lambda lib, a, b: lib.block([a, b]), [((3,), (2,))])
rec("broadcast_arrays", lambda lib, a, b: list(lib.broadcast_arrays(a, b)), BINARY, dtypes=ALL,
    errors=(err([(3,), (4,)], ValueError, "broadcast"),))
rec("choose", lambda lib, i, a, b, c: lib.choose(i, [a, b, c]),
    [(Ints((3, 4), 0, 3), (3, 4), (4,), ()), (Ints((5,), 0, 3), (5,), (5,), (5,))],
    dtypes=NUMERIC)

# partitions: only the k-th place and the two sides' sets are defined
def _parts(p, k):
    return [np.sort(np.asarray(p)[..., :k], -1), np.asarray(p)[..., k],
            np.sort(np.asarray(p)[..., k + 1:], -1)]


for _k in (0, 2, -1):
    record(f"partition(kth={_k})", lambda x, _k=_k: _parts(jnp.partition(x, _k), _k % 5),
           lambda x, _k=_k: _parts(np.partition(x, _k), _k % 5), [((5,),), ((3, 5),)],
           dtypes=NUMERIC, differentiable=False, traceable=False, batchable=False)
    record(f"argpartition(kth={_k})", lambda x, _k=_k: _parts(np.take_along_axis(
        np.asarray(x), np.asarray(jnp.argpartition(x, _k)), -1), _k % 5),
        lambda x, _k=_k: _parts(np.take_along_axis(x, np.argpartition(x, _k), -1), _k % 5),
        [((5,),), ((3, 5),)], dtypes=NUMERIC, **EAGER)
rec("partition", lambda lib, x: lib.sort(lib.partition(x, 4), -1), [((5,),), ((2, 5),)],
    dtypes=FLOATS)
rec("argpartition", lambda lib, x: lib.sort(lib.take_along_axis(x, lib.argpartition(x, 1), -1),
                                            -1), [((4,),), ((3, 4),)], dtypes=FLOATS)
rec("lexsort", lambda lib, a, b: lib.lexsort((a, b)),
    [(Ints((7,), 0, 3), Ints((7,), 0, 2)), (Ints((2, 5), 0, 3), Ints((2, 5), 0, 2))],
    dtypes=(I64,), differentiable=False)
rec("lexsort", lambda lib, a, b: lib.lexsort((a, b), axis=0), [(Ints((5, 2), 0, 3),
                                                                Ints((5, 2), 0, 2))],
    dtypes=(I64,), differentiable=False)


# in-place setters: jitgrad's copy (inplace=False, as jax.numpy), NumPy's on a copy
def _np_inplace(fn):
    def run(a, *rest, **kw):
        a = np.array(a)
        fn(a, *rest, **kw)
        return a
    return run


record("fill_diagonal", lambda a, v, **k: jnp.fill_diagonal(a, v, inplace=False, **k),
       _np_inplace(np.fill_diagonal), [((3, 3), ()), ((3, 4), ()), ((2, 2, 2), ())])
record("fill_diagonal", lambda a, v, **k: jnp.fill_diagonal(a, v, inplace=False, **k),
       _np_inplace(np.fill_diagonal), [((7, 3), ())], kwargs={"wrap": True})
record("put", lambda a, i, v: jnp.put(a, i, v, inplace=False), _np_inplace(np.put),
       [((3, 4), Ints((3,), 0, 12), (3,)), ((5,), Ints((2,), -5, 5), ())], dtypes=NUMERIC,
       differentiable=False)
record("put", lambda a, i, v, inplace=False: jnp.put(a, i, v, inplace=inplace),
       _np_inplace(np.put), [((5,), Ints((2,), 0, 5), ())],
       errors=(err([(3,), Ints((1,), 0, 3), ()], ValueError, "inplace",
                   kwargs={"inplace": True}),))
record("place", lambda a, m, v: jnp.place(a, m, v, inplace=False), _np_inplace(np.place),
       [((3, 4), Bools((3, 4)), (12,)), ((5,), Bools((5,)), (5,))], dtypes=NUMERIC,
       differentiable=False)
record("put_along_axis", lambda a, i, v, axis: jnp.put_along_axis(a, i, v, axis, inplace=False),
       _np_inplace(np.put_along_axis), [((3, 4), Ints((3, 1), 0, 4), (3, 1)),
                                        ((3, 4), Ints((3, 4), 0, 4), ())],
       dtypes=NUMERIC, kwargs={"axis": 1}, differentiable=False)

# histograms (counts and edges; the range fixed so the edges are data-independent)
# counts in a float dtype, as jax.numpy (NumPy: int64 without weights)
rec("histogram", lambda lib, x: [h.astype(x.dtype) if lib is np and h.dtype.kind == "i" else h
                                 for h in lib.histogram(x, bins=4, range=(-2, 2))],
    [((10,),), ((3, 4),), ((0,),)], dtypes=FLOATS,
    differentiable=False)
rec("histogram", lambda lib, x, w: list(lib.histogram(x, bins=_EDGES.astype(x.dtype), weights=w,
                                                      density=True)),
    [((10,), (10,))], differentiable=False)
rec("histogram_bin_edges", lambda lib, x: lib.histogram_bin_edges(x, bins=5), [((10,),)],
    tol=1e-4)
rec("histogram2d", lambda lib, x, y: list(lib.histogram2d(x, y, bins=3, range=[[-2, 2],
                                                                              [-2, 2]])),
    [((10,), (10,))], differentiable=False)
rec("histogramdd", lambda lib, s: _flat(lib.histogramdd(s, bins=(2, 3), range=[(-2, 2),
                                                                               (-2, 2)])),
    [((10, 2),)], differentiable=False)

# polynomials
rec("poly", lambda lib, r: lib.poly(r), [((3,),), ((1,),)])
rec("polydiv", lambda lib, u, v: list(lib.polydiv(u, v)) if lib is jnp else _np_polydiv(u, v),
    [((5,), (2,)), ((3,), (3,))], domain=("any", "nonzero"), tol=1e-4, tol16=0.05)


def _np_polydiv(u, v):
    """NumPy's quotient and remainder, the remainder zero-padded to u's length (JAX's)."""
    q, r = np.polydiv(u, v)
    return [q, np.concatenate([np.zeros(len(u) - len(r), r.dtype), r])]


_X = np.linspace(-1.0, 1.0, 7)
rec("polyfit", lambda lib, y: lib.polyfit(_X.astype(y.dtype), y, 2), [((7,),)], tol=1e-4,
    lowp=())
rec("roots", lambda lib, r: [lib.real(lib.sort_complex(lib.roots(lib.poly(r))))],
    [((3,),)], domain="nonzero", tol=1e-3, lowp=(), **EAGER)
rec("sort_complex", lambda lib, x: [lib.real(lib.sort_complex(x)), lib.imag(lib.sort_complex(
    x))], [((5,),), ((2, 3),)], dtypes=NUMERIC, differentiable=False, float_result=False)

# bit packing
rec("packbits", lambda lib, m: lib.packbits(m), [(Bools((10,)),), (Bools((3, 9)),)],
    dtypes=(I64,), differentiable=False)
rec("packbits", lambda lib, m: lib.packbits(m, axis=1, bitorder="little"), [(Bools((3, 9)),)],
    dtypes=(I64,), differentiable=False)
rec("unpackbits", lambda lib, i: lib.unpackbits(lib.asarray(i).astype(np.uint8)),
    [(Ints((3,), 0, 256),), (Ints((2, 2), 0, 256),)], dtypes=(I64,), differentiable=False)
rec("unpackbits", lambda lib, i: lib.unpackbits(lib.asarray(i).astype(np.uint8), axis=0,
                                                count=5, bitorder="little"),
    [(Ints((2, 3), 0, 256),)], dtypes=(I64,), differentiable=False)

# functions that apply functions
rec("apply_along_axis", lambda lib, x: lib.apply_along_axis(lambda v: v * v.sum(), 1, x),
    [((3, 4),), ((2, 3, 4),)])
rec("apply_along_axis", lambda lib, x: lib.apply_along_axis(lambda v: v.max(), 0, x), R2)
rec("apply_over_axes", lambda lib, x: lib.apply_over_axes(lib.sum, x, [0, 2]), [((2, 3, 4),)])
rec("vectorize", lambda lib, a, b: lib.vectorize(lambda u, v: u * v + 1.0)(a, b), BINARY[:5])
rec("vectorize", lambda lib, x: lib.vectorize(lambda v: (v * v).sum(), signature="(n)->()")(x),
    [((3, 4),), ((2, 3, 4),)])
rec("piecewise", lambda lib, x: lib.piecewise(x, [x < -0.5, x > 1.0], [lambda v: -v,
                                                                        lambda v: v * v, 0.25]),
    UNARY)
rec("einsum_path", lambda lib, a, b, c: lib.einsum_path("ij,jk,kl->il", a, b, c,
                                                        optimize="greedy")[0][1:],
    [((2, 3), (3, 4), (4, 5))], differentiable=False, batchable=False)

# data-dependent output shapes (eager only, as in JAX without size=)
for _n in ("nonzero", "argwhere", "flatnonzero"):
    rec(_n, lambda lib, x, _n=_n: _list(getattr(lib, _n)(x)), [((6,),), ((3, 4),)],
        dtypes=(I32, B), **EAGER)
rec("extract", lambda lib, m, x: lib.extract(m, x), [(Bools((3, 4)), (3, 4))], dtypes=ALL,
    **EAGER)
rec("compress", lambda lib, m, x: lib.compress(m, x, axis=1), [(Bools((4,)), (3, 4))],
    dtypes=ALL, **EAGER)
rec("trim_zeros", lambda lib, x: lib.trim_zeros(x), [((7,),)], dtypes=(I32,),
    domain="nonneg_small", **EAGER)
rec("trim_zeros", lambda lib, x: lib.trim_zeros(x, "b"), [((7,),)], dtypes=(I32,),
    domain="nonneg_small", **EAGER)
for _n in ("unique_all", "unique_counts", "unique_inverse"):
    rec(_n, lambda lib, x, _n=_n: _list(getattr(lib, _n)(x)), [((8,),), ((3, 4),)], dtypes=INTS,
        domain="nonneg_small", **EAGER)
# sorted, as jax.numpy and NumPy's unique (NumPy 2's unique_values may come in hash order)
record("unique_values", jnp.unique_values, np.unique, [((8,),), ((3, 4),)], dtypes=INTS,
       domain="nonneg_small", **EAGER)


def _list(r):
    return list(r) if isinstance(r, tuple) else r


def _flat(r):
    """(counts, [edges, ...]) as one list."""
    return [r[0], *r[1]]


# jitgrad.numpy.linalg's products (the same functions as jitgrad.numpy's)
for _n, _cases in (("matmul", [((3, 4), (4, 5)), ((2, 3, 4), (4,))]),
                   ("outer", [((3,), (4,))]), ("tensordot", [((2, 3, 4), (3, 4, 5))]),
                   ("vecdot", [((3,), (3,)), ((2, 3), (3,))]),
                   ("cross", [((3,), (3,)), ((4, 3), (3,))])):
    record(f"linalg.{_n}", getattr(jnp.linalg, _n), getattr(np.linalg, _n), _cases,
           dtypes=NUMERIC)
record("linalg.cross", jnp.linalg.cross, np.linalg.cross, [((3,), (3,))],
       errors=(err([(2,), (2,)], ValueError, "3|dimension|cross"),))
