"""jitgrad.scipy.linalg's records: SciPy owns the names and is the reference. Inputs are made
well-conditioned (symmetric positive-definite, diagonally dominant, triangular with a firm
diagonal); factors defined up to signs or order are compared through products or absolute
values."""
import numpy as np
import scipy.linalg as sl

import jitgrad.numpy as jnp
import jitgrad.scipy.linalg as jsl
from .core import FLOATS, I64, err, table

RECORDS, record = table("scipy")
SQUARE = [((3, 3),), ((4, 4),)]
NO_ARGS = dict(dtypes=(I64,), differentiable=False, batchable=False)


def _spd(lib, x):
    x = lib.asarray(x)
    return lib.matmul(x, lib.swapaxes(x, -1, -2)) + 3.0 * np.eye(x.shape[-1], dtype=x.dtype)


def _dominant(lib, x):
    return lib.asarray(x) + 4.0 * np.eye(x.shape[-1], dtype=x.dtype)


def _upper(lib, x):
    return lib.triu(_dominant(lib, x))


def rec(name, call, cases=SQUARE, **kw):
    """A record of call(lib, *args), lib the jitgrad or the SciPy module pair (linalg, numpy)."""
    kw.setdefault("tol", 1e-4)
    record(name, lambda *a: call(_JG, *a), lambda *a: call(_SP, *a), cases, **kw)


class _JG:
    la, np = jsl, jnp


class _SP:
    la, np = sl, np


rec("det", lambda m, x: m.la.det(_dominant(m.np, x)))
rec("inv", lambda m, x: m.la.inv(_dominant(m.np, x)))
rec("cholesky", lambda m, x: m.la.cholesky(_spd(m.np, x)))
rec("cholesky", lambda m, x: m.la.cholesky(_spd(m.np, x), lower=True))
rec("cho_factor", lambda m, x: m.np.tril(m.la.cho_factor(_spd(m.np, x), lower=True)[0]))
rec("cho_solve", lambda m, x, b: m.la.cho_solve(m.la.cho_factor(_spd(m.np, x)), b),
    [((3, 3), (3,)), ((3, 3), (3, 2))])
rec("solve", lambda m, x, b: m.la.solve(_dominant(m.np, x), b), [((3, 3), (3,)),
                                                                  ((4, 4), (4, 2))])
record("solve", jsl.solve, sl.solve, [], differentiable=False, batchable=False, lowp=(),
       traceable=False, note="bad inputs only (the records above have the values)",
       errors=(err([(3, 4), (3,)], ValueError, "square|shape|dimension"),))
rec("solve", lambda m, x, b: m.la.solve(_spd(m.np, x), b, assume_a="pos"), [((3, 3), (3, 2))])
rec("solve_triangular", lambda m, x, b: m.la.solve_triangular(_upper(m.np, x), b),
    [((3, 3), (3,)), ((4, 4), (4, 2))])
rec("solve_triangular", lambda m, x, b: m.la.solve_triangular(
    m.np.swapaxes(_upper(m.np, x), 0, 1), b, lower=True, trans=1), [((3, 3), (3, 2))])
rec("lu", lambda m, x: list(m.la.lu(_dominant(m.np, x))), differentiable=False)
rec("lu", lambda m, x: m.np.matmul(*m.la.lu(_dominant(m.np, x), permute_l=True)))
rec("lu_factor", lambda m, x: list(m.la.lu_factor(_dominant(m.np, x))), differentiable=False)
rec("lu_solve", lambda m, x, b: m.la.lu_solve(m.la.lu_factor(_dominant(m.np, x)), b),
    [((3, 3), (3,)), ((3, 3), (3, 2))], differentiable=False)
rec("qr", lambda m, x: [m.np.abs(v) for v in m.la.qr(_dominant(m.np, x))])
rec("qr", lambda m, x: [m.np.abs(v) for v in m.la.qr(x, mode="economic")], [((4, 3),)])
rec("qr_multiply", lambda m, x, c: m.np.abs(m.la.qr_multiply(_dominant(m.np, x), c)[0]),
    [((3, 3), (2, 3))], differentiable=False)
rec("svd", lambda m, x: m.la.svd(_dominant(m.np, x), compute_uv=False))
rec("svd", lambda m, x: [m.np.abs(v) for v in m.la.svd(_dominant(m.np, x))],
    differentiable=False)
rec("eigh", lambda m, x: m.la.eigh(_spd(m.np, x), eigvals_only=True))
rec("eigh", lambda m, x: [m.np.abs(v) for v in m.la.eigh(_spd(m.np, x))], differentiable=False)
rec("eigh_tridiagonal", lambda m, d, e: m.la.eigh_tridiagonal(d, e, eigvals_only=True),
    [((4,), (3,))], differentiable=False)
rec("expm", lambda m, x: m.la.expm(0.5 * m.np.asarray(x)))
rec("expm_frechet", lambda m, a, e: list(m.la.expm_frechet(0.5 * m.np.asarray(a), e)),
    [((3, 3), (3, 3))])
rec("polar", lambda m, x: list(m.la.polar(_dominant(m.np, x))))
rec("solve_sylvester", lambda m, a, b, c: m.la.solve_sylvester(_spd(m.np, a), _spd(m.np, b), c),
    [((3, 3), (2, 2), (3, 2))], differentiable=False)

# special matrices from data
rec("block_diag", lambda m, a, b: m.la.block_diag(a, b), [((2, 2), (1, 3)), ((1, 1), (2, 1))])
for _n in ("circulant", "companion", "fiedler"):
    rec(_n, lambda m, c, _n=_n: getattr(m.la, _n)(c), [((4,),)],
        domain="nonzero" if _n == "companion" else "any")
rec("toeplitz", lambda m, c: m.la.toeplitz(c), [((4,),)])
rec("toeplitz", lambda m, c, r: m.la.toeplitz(c, r), [((3,), (4,))])
rec("hankel", lambda m, c: m.la.hankel(c), [((4,),)])
rec("hankel", lambda m, c, r: m.la.hankel(c, r), [((3,), (4,))])
rec("leslie", lambda m, f, s: m.la.leslie(f, s), [((4,), (3,))])
rec("convolution_matrix", lambda m, a: m.la.convolution_matrix(a, 5), [((3,),)])
rec("convolution_matrix", lambda m, a: m.la.convolution_matrix(a, 5, "same"), [((3,),)])
# special matrices of a size
for _n, _args in (("hadamard", (4,)), ("helmert", (4,)), ("helmert", (3, True)),
                  ("hilbert", (3,)), ("invhilbert", (3,)), ("pascal", (4,)),
                  ("invpascal", (4,)), ("dft", (4,))):
    record(f"{_n}{_args}", lambda _n=_n, _a=_args: _real(getattr(jsl, _n)(*_a)),
           lambda _n=_n, _a=_args: _real(getattr(sl, _n)(*_a)), [()], tol=1e-4, **NO_ARGS)


def _real(z):
    """[real, imag] of a complex matrix (dft), the matrix itself otherwise."""
    lib = np if isinstance(z, np.ndarray) else jnp
    return [lib.real(z), lib.imag(z)] if lib.iscomplexobj(z) else z


UNRECORDED = {"jitgrad.scipy.linalg": {}}
