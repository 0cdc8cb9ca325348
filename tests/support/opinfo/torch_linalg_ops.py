"""jitgrad.linalg's records (torch.linalg's meaning, issue 49): torch owns the names; the
reference is torch_linalg_reference.py (NumPy / SciPy written to torch's meaning), and
torch.linalg's own function where torch is installed. The records are named
'<name>[torch.linalg]' (test ids apart from jitgrad.numpy's 'linalg.<name>').

A record is call(lib, *args) with lib the jitgrad side (jg.linalg and jnp) or the reference
side; `call` makes its inputs well-conditioned (diagonally dominant, positive-definite,
complex from two real arguments) with the lib's own ops, and compares factors defined up to a
phase through absolute values. CALLS keeps (record, call), so tests/linalg can run the same
calls on torch. Cases: single and batched matrices, an empty batch, 0 x 0 where torch accepts
it; float32 and float64, complex built from two float arguments."""
import numpy as np

import jitgrad as jg
import jitgrad.numpy as jnp
from . import torch_linalg_reference as ref
from .core import err, table

RECORDS, _record = table("torch")

CALLS = []
SQUARE = [((3, 3),), ((2, 3, 3),), ((0, 3, 3),)]
SQUARE0 = SQUARE + [((0, 0),)]
PAIR = [((3, 3), (3, 3)), ((2, 3, 3), (2, 3, 3))]          # real and imaginary parts
_SHAPE = (ValueError, RuntimeError)


class _JG:
    la = jg.linalg

    @staticmethod
    def eye(x):
        return jnp.eye(x.shape[-1], dtype=x.dtype)

    @staticmethod
    def mH(x):  # noqa: N802 - torch's name
        return jnp.conj(jnp.swapaxes(x, -1, -2))

    @staticmethod
    def like(x, values):
        return jnp.asarray(values, dtype=x.dtype)

    abs = staticmethod(jnp.abs)


class _REF:
    la = ref

    @staticmethod
    def eye(x):
        return np.eye(x.shape[-1], dtype=x.dtype)

    @staticmethod
    def mH(x):  # noqa: N802
        return np.conj(np.swapaxes(x, -1, -2))

    @staticmethod
    def like(x, values):
        return np.asarray(values, dtype=x.dtype)

    abs = staticmethod(np.abs)


def dominant(m, x):
    return x + 4.0 * m.eye(x)


def spd(m, x):
    """A Hermitian positive-definite matrix from a square one."""
    return x @ m.mH(x) + 3.0 * m.eye(x)


def spread(m, x, kw):
    """Diagonal entries 0.25 .. 4 plus a small x (Hermitian when kw asks): singular values
    on both sides of the cutoffs 1.5 and 0.3 * 4, none near them."""
    n = x.shape[-1]
    d = m.eye(x) * m.like(x, 4.0 ** (1.0 - 2.0 * np.arange(n) / max(n - 1, 1)))
    small = 0.02 * x
    return d + (small + m.mH(small) if kw.get("hermitian") else small)


def cplx(x, y):
    return x + 1j * y


def rec(name, call, cases, **kw):
    """A record of call(lib, *args) (its own inputs; no owner function to compare)."""
    kw.setdefault("tol", 1e-4)
    r = _record(f"{name}[torch.linalg]", lambda *a: call(_JG, *a), lambda *a: call(_REF, *a),
                cases, owner_path=None, **kw)
    CALLS.append((r, call))
    return r


def direct(name, cases, **kw):
    """A record of jg.linalg.<name>(*args, **kwargs) on the drawn arguments themselves, torch's
    own function compared where torch is installed."""
    kw.setdefault("tol", 1e-4)
    return _record(f"{name}[torch.linalg]", getattr(jg.linalg, name), getattr(ref, name), cases,
                   owner_path=f"torch.linalg.{name}", **kw)


_NO_GRAD = dict(differentiable=False)
_COMPLEX = dict(lowp=())           # complex from two 16-bit parts: no 16-bit complex dtype
_COMPLEX_NO_GRAD = dict(lowp=(), differentiable=False, note=(
    "the derivatives of the decompositions (slogdet, solve, cholesky, eigh, svd, qr) of complex "
    "matrices are not implemented (ir/autodiff/linalg.py: real matrices only)"))
_HOST = dict(differentiable=False, traceable=False, batchable=False, lowp=())

# ----------------------------------------------------------------------------- norms
direct("norm", [((5,),), ((3, 4),), ((2, 0),)])
direct("norm", [((3, 4),), ((2, 3, 4),)], kwargs={"ord": 1, "dim": 1, "keepdim": True})
direct("norm", [((3, 4),)], kwargs={"ord": "nuc"})
direct("vector_norm", [((5,),), ((2, 3, 4),), ((0, 3),)])
direct("vector_norm", [((3, 4),)], kwargs={"ord": 3, "dim": 0, "keepdim": True})
direct("vector_norm", [((3, 4),)], kwargs={"ord": float("inf"), "dim": (0, 1)})
direct("vector_norm", [((3, 4),)], kwargs={"ord": 0, "dim": 1}, differentiable=False)
for _ord in ("fro", "nuc", 1, -1, 2, float("inf")):
    direct("matrix_norm", [((3, 4),), ((2, 3, 3),)], kwargs={"ord": _ord})
direct("matrix_norm", [((3, 4, 2),)], kwargs={"dim": (0, 2), "keepdim": True})
rec("vector_norm", lambda m, x, y: m.la.vector_norm(cplx(x, y)), PAIR, **_COMPLEX)
rec("matrix_norm", lambda m, x, y: m.la.matrix_norm(cplx(x, y), ord="nuc"), PAIR,
    **_COMPLEX_NO_GRAD)
rec("cond", lambda m, x: m.la.cond(dominant(m, x)), SQUARE)
rec("cond", lambda m, x: m.la.cond(dominant(m, x), p="fro"), SQUARE[:2])
rec("cond", lambda m, x: m.la.cond(dominant(m, x), p=1), SQUARE[:2])

# ----------------------------------------------------------------------------- inverses, solves
direct("det", SQUARE0 + [((4, 4),)])
rec("det", lambda m, x, y: m.la.det(cplx(x, y)), PAIR, **_COMPLEX_NO_GRAD)
rec("slogdet", lambda m, x: m.la.slogdet(dominant(m, x)), SQUARE0)
rec("inv", lambda m, x: m.la.inv(dominant(m, x)), SQUARE0)
direct("inv", [((4, 4),)], errors=(err([(3, 4)], _SHAPE, "square"),))
rec("inv", lambda m, x, y: m.la.inv(dominant(m, cplx(x, y))), PAIR, **_COMPLEX_NO_GRAD)
rec("inv_ex", lambda m, x: m.la.inv_ex(dominant(m, x)), SQUARE)
rec("matrix_power", lambda m, x: m.la.matrix_power(dominant(m, x), -2), SQUARE)
direct("matrix_power", SQUARE0, kwargs={"n": 3}, domain="unit")
direct("matrix_power", SQUARE, kwargs={"n": 0})
_SOLVE = [((3, 3), (3, 2)), ((3, 3), (3,)), ((2, 3, 3), (2, 3)), ((2, 3, 3), (3, 2)),
          ((2, 3, 3), (2, 3, 1)), ((0, 3, 3), (0, 3)), ((0, 0), (0, 2))]
rec("solve", lambda m, a, b: m.la.solve(dominant(m, a), b), _SOLVE)
direct("solve", [((4, 4), (4, 2))], errors=(err([(3, 3), (4, 2)], _SHAPE, "rows|shape"),
                                            err([(3, 4), (3, 2)], _SHAPE, "square")))
rec("solve", lambda m, a, b: m.la.solve(dominant(m, a), b, left=False),
    [((3, 3), (2, 3)), ((2, 3, 3), (2, 4, 3))])
rec("solve", lambda m, a, x, y: m.la.solve(dominant(m, cplx(a, x)), cplx(y, y)),
    [((3, 3), (3, 3), (3, 2))], **_COMPLEX_NO_GRAD)
rec("solve_ex", lambda m, a, b: m.la.solve_ex(dominant(m, a), b), _SOLVE[:3])
for _kw in ({"upper": True}, {"upper": False}, {"upper": True, "left": False},
            {"upper": False, "unitriangular": True}):
    rec("solve_triangular", lambda m, a, b, _kw=_kw: m.la.solve_triangular(
        dominant(m, a), b, **_kw), [((3, 3), (3, 3)), ((2, 3, 3), (2, 3, 2))] if _kw.get(
        "left", True) else [((3, 3), (2, 3)), ((2, 3, 3), (2, 4, 3))])
rec("lstsq", lambda m, a, b: m.la.lstsq(a, b),
    [((5, 3), (5, 2)), ((2, 5, 3), (2, 5, 2)), ((3, 5), (3, 2))], tol=1e-3,
    differentiable=False)
rec("pinv", lambda m, a: m.la.pinv(a), [((3, 4),), ((2, 4, 3),)], tol=1e-3)
rec("pinv", lambda m, a: m.la.pinv(spd(m, a), hermitian=True), SQUARE[:2], tol=1e-3)
rec("pinv", lambda m, x, y: m.la.pinv(cplx(x, y)), [((3, 4), (3, 4))], tol=1e-3, **_COMPLEX_NO_GRAD)
rec("matrix_rank", lambda m, a, b: m.la.matrix_rank(a @ b),
    [((4, 2), (2, 4)), ((2, 3, 1), (2, 1, 3)), ((3, 3), (3, 4))], **_NO_GRAD)
_SPREAD = [((3, 3),), ((2, 4, 4),)]         # singular values spread by the diagonal's scale
for _kw in ({"atol": 1.5}, {"rtol": 0.3}, {"atol": 1.5, "rtol": 0.05}, {"hermitian": True,
                                                                           "atol": 1.5}):
    rec("matrix_rank", lambda m, a, _kw=_kw: m.la.matrix_rank(spread(m, a, _kw), **_kw),
        _SPREAD, **_NO_GRAD)
    rec("pinv", lambda m, a, _kw=_kw: m.la.pinv(spread(m, a, _kw), **_kw), _SPREAD, tol=1e-3)
rec("tensorinv", lambda m, a: m.la.tensorinv(a + 4.0 * m.eye(a.reshape(6, 6)).reshape(
    2, 3, 6), ind=2), [((2, 3, 6),)])
direct("tensorinv", [((4, 2, 2),)], kwargs={"ind": 1},
       errors=(err([(2, 3, 4)], _SHAPE, "prod"), err([(2, 3, 6)], _SHAPE, "strictly positive",
                                                     kwargs={"ind": 0})))
rec("tensorsolve", lambda m, a, b: m.la.tensorsolve(
    a + 4.0 * m.eye(a.reshape(6, 6)).reshape(2, 3, 6), b), [((2, 3, 6), (2, 3))])
rec("tensorsolve", lambda m, a, b: m.la.tensorsolve(
    a + 4.0 * m.eye(a.reshape(6, 6)).reshape(6, 2, 3), b, dims=(0,)), [((6, 2, 3), (2, 3))])

# ----------------------------------------------------------------------------- decompositions
rec("cholesky", lambda m, x: m.la.cholesky(spd(m, x) if x.shape[-1] == x.shape[-2] else x),
    SQUARE0, errors=(err([(2, 3)], _SHAPE, "square"),))      # a non-square x as it is
rec("cholesky", lambda m, x: m.la.cholesky(spd(m, x), upper=True), SQUARE)
rec("cholesky", lambda m, x, y: m.la.cholesky(spd(m, cplx(x, y))), PAIR, **_COMPLEX_NO_GRAD)
rec("cholesky_ex", lambda m, x: m.la.cholesky_ex(spd(m, x), upper=True), SQUARE)
for _uplo in ("L", "U"):
    rec("eigvalsh", lambda m, x, _u=_uplo: m.la.eigvalsh(x, UPLO=_u), SQUARE0)
    rec("eigh", lambda m, x, _u=_uplo: [v if i == 0 else m.abs(v) for i, v in enumerate(
        m.la.eigh(x, UPLO=_u))], SQUARE, **_NO_GRAD)
direct("eigvalsh", SQUARE, errors=(err([(3, 3)], ValueError, "UPLO must be 'L' or 'U'",
                                         kwargs={"UPLO": "X"}),))
rec("eigvalsh", lambda m, x, y: m.la.eigvalsh(cplx(x, y)), PAIR, **_COMPLEX_NO_GRAD)
rec("svdvals", lambda m, x: m.la.svdvals(x), [((3, 4),), ((2, 4, 3),), ((0, 3, 2),)])
rec("svdvals", lambda m, x, y: m.la.svdvals(cplx(x, y)), [((3, 4), (3, 4))], **_COMPLEX_NO_GRAD)
for _full in (True, False):
    rec("svd", lambda m, x, _f=_full: [m.abs(v) for v in m.la.svd(x, full_matrices=_f)],
        [((3, 4),), ((2, 4, 3),)], **_NO_GRAD)
rec("qr", lambda m, x: [m.abs(v) for v in m.la.qr(x)], [((4, 3),), ((3, 3),), ((2, 4, 3),)])
for _mode in ("reduced", "complete", "r"):      # the derivative: reduced, tall or square (JAX's)
    rec("qr", lambda m, x, _m=_mode: [m.abs(v) for v in m.la.qr(x, mode=_m)],
        [((4, 3),), ((3, 4),), ((2, 4, 3),)], **_NO_GRAD)
rec("qr", lambda m, x, y: [m.abs(v) for v in m.la.qr(cplx(x, y))], [((4, 3), (4, 3))],
    **_COMPLEX_NO_GRAD)
direct("lu_factor", SQUARE + [((3, 4),)], **_NO_GRAD,
       errors=(err([(3, 3)], NotImplementedError, "pivot=False", kwargs={"pivot": False}),))
direct("lu_factor_ex", SQUARE, **_NO_GRAD)
direct("lu", SQUARE + [((3, 4),), ((4, 3),)], differentiable=False,
       errors=(err([(3, 3)], NotImplementedError, "pivot=False", kwargs={"pivot": False}),))
for _adj in (False, True):
    rec("lu_solve", lambda m, a, b, _a=_adj: m.la.lu_solve(*m.la.lu_factor(dominant(m, a)), b,
                                                           adjoint=_a),
        [((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1))], **_NO_GRAD)
    rec("lu_solve", lambda m, a, b, _a=_adj: m.la.lu_solve(*m.la.lu_factor(dominant(m, a)), b,
                                                           left=False, adjoint=_a),
        [((3, 3), (2, 3)), ((2, 3, 3), (2, 1, 3))], **_NO_GRAD)
    rec("lu_solve", lambda m, a, x, y, _a=_adj: m.la.lu_solve(
        *m.la.lu_factor(dominant(m, cplx(a, x))), cplx(y, y), left=_a, adjoint=True),
        [((3, 3), (3, 3), (3, 3))], **_NO_GRAD)
rec("eig", lambda m, x: [v if i == 0 else m.abs(v) for i, v in enumerate(m.la.eig(x))],
    SQUARE0, **_HOST, errors=(err([(3, 4)], _SHAPE, "square"),))
direct("eigvals", SQUARE0, **_HOST, errors=(err([(3, 4)], _SHAPE, "square"),))
direct("householder_product", [((4, 3), (2,)), ((3, 3), (3,)), ((2, 4, 3), (2, 3)),
                               ((0, 4, 2), (0, 2)), ((3, 2), (0,))],
       errors=(err([(3,), (1,)], _SHAPE, "at least 2 dimensions"),
               err([(2, 3), (1,)], _SHAPE, r"shape\[-2\] must be greater"),
               err([(3, 2), (3,)], _SHAPE, r"shape\[-1\] must be greater"),
               err([(2, 3, 2), (3, 2)], _SHAPE, "batch dimensions"),
               err([(3, 2), (2, 2)], _SHAPE, "one dimension less")))
rec("householder_product", lambda m, a, b, t, u: m.la.householder_product(cplx(a, b), cplx(t, u)),
    [((4, 3), (4, 3), (2,), (2,))], **_COMPLEX)

# ----------------------------------------------------------------------------- functions, products
direct("matrix_exp", SQUARE0, domain="unit")
rec("matrix_exp", lambda m, x, y: m.la.matrix_exp(cplx(x, y) * 0.5), PAIR, **_COMPLEX_NO_GRAD)
rec("multi_dot", lambda m, a, b, c: m.la.multi_dot([a, b, c]),
    [((2, 3), (3, 4), (4, 2)), ((3,), (3, 4), (4,))])
direct("matmul", [((3, 4), (4, 2)), ((2, 3, 4), (4,)), ((0, 3), (3, 2))])
direct("vecdot", [((3, 4), (3, 4)), ((2, 3), (3,)), ((0, 3), (0, 3))])
direct("vecdot", [((3, 4), (3, 4))], kwargs={"dim": 0})
rec("vecdot", lambda m, a, b, c, d: m.la.vecdot(cplx(a, b), cplx(c, d)),
    [((2, 3), (2, 3), (2, 3), (2, 3))], **_COMPLEX)
direct("cross", [((4, 3), (4, 3)), ((3,), (3,)), ((2, 1, 3), (1, 4, 3))])
direct("cross", [((3, 4), (3, 4))], kwargs={"dim": 0})
direct("diagonal", [((3, 4),), ((2, 3, 3),)])
direct("diagonal", [((2, 3, 4),)], kwargs={"offset": 1, "dim1": 0, "dim2": 2})
direct("vander", [((4,),), ((2, 3),), ((0, 3),)],
       errors=(err([(3,)], ValueError, "N must be greater than 1", kwargs={"N": 1}),))
direct("vander", [((3,),)], kwargs={"N": 5})

# ----------------------------------------------------------------------------- left out
UNRECORDED = {"jitgrad.linalg": {
    **dict.fromkeys(("CholeskyExResult", "InvExResult", "LUFactorExResult", "LUFactorResult",
                     "LUResult", "LstsqResult", "SolveExResult"),
                    "the named tuple class of a result (lu_factor, lu, lstsq, the _ex forms), "
                    "not a function"),
    "LinAlgError": "an exception class (torch.linalg.LinAlgError), not an op",
    "EXCLUDED": "the dict of torch.linalg's names left out, with the reason, not an op",
}}
