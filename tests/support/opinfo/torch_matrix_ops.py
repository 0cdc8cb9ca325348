"""torch's matrix, stacking and construction functions as jitgrad.* functions and jg.Tensor
methods: mm / mv / dot / addmv / baddbmm, det / inverse / cholesky / qr / svd, cat-likes taking a
sequence, zeros / arange / linspace / eye / full and the *_like forms; NumPy references written
to torch's meaning (float32 by default, int64 arange); torch's own function compared when it is
installed."""
import itertools

import numpy as np
import scipy.linalg

import jitgrad as jg
from .core import ALL, F32, FLOATS, NUMERIC, err
from .torch_records import function_record, method_record, op

_MATMUL_ERROR = (ValueError, RuntimeError, TypeError)


def _spd(a):
    """A symmetric positive-definite matrix from a square one (as _spd_jg builds it)."""
    return a @ np.swapaxes(a, -1, -2) + a.shape[-1] * np.eye(a.shape[-1], dtype=a.dtype)


def _spd_jg(a):
    return a @ a.mT + a.shape[-1] * jg.eye(a.shape[-1], dtype=a.dtype)


op("mm", np.matmul, [((3, 4), (4, 5)), ((0, 2), (2, 3))], dtypes=FLOATS, inplace=False,
   errors=(err([(3, 4), (3, 5)], _MATMUL_ERROR, "inner dimensions|shape|size"),))
op("mv", np.matmul, [((3, 4), (4,))], dtypes=FLOATS, inplace=False)
op("dot", np.dot, [((4,), (4,)), ((0,), (0,))], dtypes=NUMERIC, inplace=False)
op("vdot", np.vdot, [((4,), (4,))], dtypes=FLOATS, inplace=False)
op("inner", np.inner, [((3, 4), (5, 4)), ((4,), (4,))], dtypes=FLOATS, inplace=False)
op("ger", np.outer, [((3,), (4,))], dtypes=FLOATS, inplace=False)
op("outer", np.outer, [((3,), (4,))], dtypes=FLOATS, inplace=False, function=False)
op("matmul", np.matmul, [((3, 4), (4, 5)), ((2, 3, 4), (4,)), ((4,), (4, 2))], dtypes=FLOATS,
   inplace=False, function=False)
op("bmm", np.matmul, [((2, 3, 4), (2, 4, 5))], dtypes=FLOATS, inplace=False, function=False)
op("addmm", lambda c, a, b, beta=1, alpha=1: beta * c + alpha * a @ b,
   [((3, 5), (3, 4), (4, 5))], dtypes=FLOATS, kwargs={"beta": 0.5, "alpha": 2})
op("addmv", lambda c, a, v, beta=1, alpha=1: beta * c + alpha * a @ v,
   [((3,), (3, 4), (4,)), ((), (3, 4), (4,))], dtypes=FLOATS, kwargs={"alpha": 2},
   inplace_cases=[((3,), (3, 4), (4,))])
op("addr", lambda c, u, v, beta=1, alpha=1: beta * c + alpha * np.outer(u, v),
   [((3, 4), (3,), (4,))], dtypes=FLOATS, kwargs={"beta": 2})
op("baddbmm", lambda c, a, b, beta=1, alpha=1: beta * c + alpha * a @ b,
   [((2, 3, 5), (2, 3, 4), (2, 4, 5)), ((5,), (2, 3, 4), (2, 4, 5))], dtypes=FLOATS,
   inplace_cases=[((2, 3, 5), (2, 3, 4), (2, 4, 5))])
op("addbmm", lambda c, a, b, beta=1, alpha=1: beta * c + alpha * (a @ b).sum(0),
   [((3, 5), (2, 3, 4), (2, 4, 5))], dtypes=FLOATS, kwargs={"alpha": 0.5})
op("kron", np.kron, [((2, 3), (3, 2))], dtypes=FLOATS, inplace=False, function=False)
op("cross", lambda a, b, dim: np.cross(a, b, axis=dim), [((3, 4), (3, 4))], dtypes=FLOATS,
   kwargs={"dim": 0}, inplace=False)
op("cross", lambda a, b, dim: np.cross(a, b, axis=dim), [((4, 3), (4, 3)), ((3,), (3,))],
   dtypes=FLOATS, kwargs={"dim": -1}, inplace=False)
function_record("tensordot", jg.tensordot, lambda a, b, dims: np.tensordot(a, b, dims),
                [((3, 4, 5), (4, 5, 2))], dtypes=FLOATS, kwargs={"dims": 2})
function_record("tensordot", jg.tensordot, lambda a, b, dims: np.tensordot(a, b, dims),
                [((3, 4), (4, 5))], dtypes=FLOATS, kwargs={"dims": ([1], [0])})
function_record("einsum", lambda a, b: jg.einsum("ij,kj->ik", a, b),
                lambda a, b: np.einsum("ij,kj->ik", a, b), [((3, 4), (5, 4))], dtypes=FLOATS,
                owner_path=None)
function_record("chain_matmul", jg.chain_matmul, lambda *m: np.linalg.multi_dot(m),
                [((2, 3), (3, 4), (4, 2))], dtypes=FLOATS)
function_record("block_diag", jg.block_diag, scipy.linalg.block_diag,
                [((2, 3), (1, 2)), ((2, 2), (3,))], dtypes=FLOATS)
op("matrix_power", lambda a, n: np.linalg.matrix_power(a, n), [((3, 3),), ((2, 3, 3),)],
   dtypes=FLOATS, kwargs={"n": 3}, inplace=False, domain="near1")
op("matrix_exp", scipy.linalg.expm, [((3, 3),)], dtypes=FLOATS, inplace=False, tol=1e-4)
for _n, _ref in (("det", np.linalg.det), ("inverse", np.linalg.inv),
                 ("logdet", lambda a: np.log(np.linalg.det(a))),
                 ("slogdet", lambda a: list(np.linalg.slogdet(a))),
                 ("pinverse", np.linalg.pinv)):
    function_record(_n, lambda a, _f=getattr(jg, _n): _f(_spd_jg(a)),
                    lambda a, _r=_ref: _r(_spd(a)), [((3, 3),), ((2, 4, 4),)], dtypes=FLOATS,
                    tol=1e-4, owner_path=None)
    method_record(_n, lambda a, _r=_ref: _r(_spd(a)), [((3, 3),), ((2, 4, 4),)],
                  fn=lambda a, _n=_n: getattr(_spd_jg(a), _n)(), dtypes=FLOATS, tol=1e-4,
                  owner_path=None)
# decompositions of a symmetric positive-definite matrix; svd's singular values only (the
# vectors' signs are LAPACK's choice)
for _n, _ref, _fn in (
        ("cholesky", lambda a: np.linalg.cholesky(_spd(a)), lambda f, a: f(_spd_jg(a))),
        ("qr", lambda a: [np.abs(m) for m in np.linalg.qr(_spd(a))],
         lambda f, a: [m.abs() for m in f(_spd_jg(a))]),
        ("svd", lambda a: np.linalg.svd(a, compute_uv=False), lambda f, a: f(a)[1])):
    function_record(_n, lambda a, _f=getattr(jg, _n), _g=_fn: _g(_f, a), _ref,
                    [((3, 3),), ((2, 4, 4),)], dtypes=FLOATS, tol=1e-4, owner_path=None)
    method_record(_n, _ref, [((3, 3),), ((2, 4, 4),)], dtypes=FLOATS, tol=1e-4,
                  fn=lambda a, _n=_n, _g=_fn: _g(lambda m: getattr(m, _n)(), a), owner_path=None)
function_record("cholesky_inverse", lambda a: jg.cholesky_inverse(jg.cholesky(_spd_jg(a))),
                lambda a: np.linalg.inv(_spd(a)), [((3, 3),)], dtypes=FLOATS, tol=1e-4,
                owner_path=None)
method_record("cholesky_inverse", lambda a: np.linalg.inv(_spd(a)), [((3, 3),)],
              fn=lambda a: jg.cholesky(_spd_jg(a)).cholesky_inverse(), dtypes=FLOATS,
              tol=1e-4, owner_path=None)

# functions of a sequence of tensors
for _n, _ref in (("stack", np.stack), ("hstack", np.hstack), ("vstack", np.vstack),
                 ("dstack", np.dstack), ("column_stack", np.column_stack),
                 ("row_stack", np.vstack), ("concat", np.concatenate),
                 ("concatenate", np.concatenate)):
    function_record(_n, lambda a, b, _f=getattr(jg, _n): _f([a, b]),
                    lambda a, b, _r=_ref: _r([a, b]), [((2, 3), (2, 3)), ((3,), (3,))],
                    dtypes=ALL, owner_path=None)
function_record("stack", lambda a, b, dim: jg.stack([a, b], dim), lambda a, b, dim: np.stack(
    [a, b], dim), [((2, 3), (2, 3)), ((), ())], dtypes=FLOATS, kwargs={"dim": -1},
    owner_path=None, errors=(err([(2, 3), (3, 2)], _MATMUL_ERROR, "shape|size|same"),))
function_record("cartesian_prod", jg.cartesian_prod, lambda a, b: np.stack(
    [m.reshape(-1) for m in np.meshgrid(a, b, indexing="ij")], -1), [((3,), (2,))],
    dtypes=FLOATS)
function_record("meshgrid", lambda a, b, indexing: jg.meshgrid(a, b, indexing=indexing),
                lambda a, b, indexing: np.meshgrid(a, b, indexing=indexing), [((3,), (2,))],
                dtypes=FLOATS, kwargs={"indexing": "xy"}, owner_path=None)
op("combinations", lambda a, r=2: np.array(list(itertools.combinations(a, r))),
   [((4,),)], dtypes=FLOATS, inplace=False, method=False)
op("cov", lambda x: np.cov(x), [((3, 5),)], dtypes=FLOATS, inplace=False)
op("corrcoef", np.corrcoef, [((3, 5),)], dtypes=FLOATS, inplace=False)
