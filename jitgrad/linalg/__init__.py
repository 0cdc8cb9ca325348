"""torch.linalg: its functions with torch's argument names (dim=, keepdim=, upper=, left=) and
results (named tuples, 1-based LU pivots, torch.linalg.vander's increasing powers), on
jitgrad.numpy.linalg and jitgrad.scipy.linalg, so they work eagerly, under jit, grad and vmap.

eig / eigvals run LAPACK's general eigensolver on the host (eager only, no derivative). The
names of torch.linalg not here are in EXCLUDED with the reason.

>>> import jitgrad as jg
>>> jg.linalg.vector_norm(jg.tensor([3.0, 4.0]))
tensor(5.)
"""
import collections

import numpy as np

from .. import numpy as jnp
from ..scipy import linalg as sla
from .ex_info import checked as _checked, lu_info as _lu_info
from .general_eigen import eig, eigvals
from .householder import householder_product
from .tensor_inverse import tensorinv, tensorsolve

__all__ = ["cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig", "eigh",
           "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex", "lstsq", "lu",
           "lu_factor", "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm",
           "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve",
           "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander",
           "vecdot", "vector_norm"]

# torch.linalg's names left out, with the reason
_LDL = ("the Bunch-Kaufman LDL^T factorization (LAPACK sytrf) is no primitive yet; "
        "for a positive-definite A use cholesky / cho_solve")
EXCLUDED = {"ldl_factor": _LDL, "ldl_factor_ex": _LDL, "ldl_solve": _LDL}

LinAlgError = np.linalg.LinAlgError     # what a bad matrix raises (torch.linalg.LinAlgError)
LstsqResult = collections.namedtuple("LstsqResult", "solution residuals rank singular_values")
LUResult = collections.namedtuple("LUResult", "P L U")
LUFactorResult = collections.namedtuple("LUFactorResult", "LU pivots")
CholeskyExResult = collections.namedtuple("CholeskyExResult", "L info")
InvExResult = collections.namedtuple("InvExResult", "inverse info")
SolveExResult = collections.namedtuple("SolveExResult", "result info")
LUFactorExResult = collections.namedtuple("LUFactorExResult", "LU pivots info")


def _dims(dim):
    return tuple(dim) if isinstance(dim, list) else dim


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """torch.linalg.norm: a vector norm over one dim (or of a 1-d input), a matrix norm over
    two, the 2-norm of the flattened input for ord=None without dim."""
    x = jnp.asarray(A) if dtype is None else jnp.asarray(A).astype(dtype)
    if ord is None:                 # the 2-norm of the elements (Frobenius over two dims)
        return vector_norm(x, 2, dim, keepdim)
    return jnp.linalg.norm(x, ord, _dims(dim), keepdim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """torch.linalg.vector_norm: over every element by default. Its derivative at a zero
    vector is 0, as torch's (the root's infinite slope there is not taken)."""
    x = jnp.asarray(x) if dtype is None else jnp.asarray(x).astype(dtype)
    if ord in (0, np.inf, -np.inf) or ord < 0:
        return jnp.linalg.vector_norm(x, axis=_dims(dim), keepdims=keepdim, ord=ord)
    a = jnp.abs(x)
    total = jnp.sum(jnp.square(a) if ord == 2 else a ** ord, axis=_dims(dim), keepdims=keepdim)
    zero = total == 0
    root = jnp.sqrt if ord == 2 else (lambda t: t ** (1.0 / ord))
    return jnp.where(zero, 0.0, root(jnp.where(zero, 1.0, total))).astype(total.dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002
    """torch.linalg.matrix_norm over the two dims `dim`."""
    x = jnp.asarray(A) if dtype is None else jnp.asarray(A).astype(dtype)
    if ord == "fro":
        return vector_norm(x, 2, tuple(dim), keepdim)
    return jnp.linalg.norm(x, ord, tuple(dim), keepdim)


def cond(A, p=None):
    """torch.linalg.cond: the condition number, ||A||_p ||A^-1||_p (p=None: the 2-norm's,
    largest over smallest singular value)."""
    if p in (None, 2, -2):
        s = jnp.linalg.svdvals(A)
        hi, lo = jnp.max(s, axis=-1), jnp.min(s, axis=-1)
        return hi / lo if p in (None, 2) else lo / hi
    return matrix_norm(A, p) * matrix_norm(jnp.linalg.inv(A), p)


def cholesky(A, *, upper=False):
    """torch.linalg.cholesky: L (or U with upper=True) of a Hermitian positive-definite A."""
    return jnp.linalg.cholesky(A, upper=upper)


def cholesky_ex(A, *, upper=False, check_errors=False):
    """torch.linalg.cholesky_ex: (L, info); info is 0, or nonzero where A is not positive-definite
    (1: jitgrad's LAPACK call gives NaNs for the whole matrix, so the failing minor's order that
    torch reports is not known)."""
    L = cholesky(A, upper=upper)
    info = jnp.where(jnp.all(jnp.isfinite(L), axis=(-2, -1)), 0, 1).astype(jnp.int32)
    return CholeskyExResult(L, _checked("cholesky_ex", info, check_errors))


def inv(A):
    """torch.linalg.inv."""
    return jnp.linalg.inv(A)


def inv_ex(A, *, check_errors=False):
    """torch.linalg.inv_ex: (inverse, info); info is LU's: the first zero pivot (1-based), or
    0."""
    return InvExResult(inv(A), _checked("inv_ex", _lu_info(lu_factor(A).LU), check_errors))


def det(A):
    """torch.linalg.det."""
    return jnp.linalg.det(A)


def slogdet(A):
    """torch.linalg.slogdet: (sign, logabsdet)."""
    return jnp.linalg.slogdet(A)


def _triangle(A, UPLO):  # noqa: N803 - torch's name
    """The Hermitian matrix that A's lower (UPLO='L') or upper ('U') triangle stands for."""
    if UPLO not in ("L", "U"):
        raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
    A = jnp.asarray(A)
    part = jnp.tril(A) if UPLO == "L" else jnp.triu(A)
    return part + jnp.conj(jnp.swapaxes(part, -1, -2)) - jnp.diagonal(
        part, 0, -2, -1)[..., None] * jnp.eye(A.shape[-1], dtype=A.dtype)


def eigh(A, UPLO="L"):  # noqa: N803 - torch's name
    """torch.linalg.eigh: (eigenvalues ascending, eigenvectors) of the Hermitian matrix A's
    UPLO triangle stands for."""
    return jnp.linalg.eigh(_triangle(A, UPLO))


def eigvalsh(A, UPLO="L"):  # noqa: N803
    """torch.linalg.eigvalsh: the eigenvalues of eigh, ascending."""
    return jnp.linalg.eigvalsh(_triangle(A, UPLO))


def svd(A, full_matrices=True, *, driver=None):
    """torch.linalg.svd: (U, S, Vh)."""
    return jnp.linalg.svd(A, full_matrices=full_matrices)


def svdvals(A, *, driver=None):
    """torch.linalg.svdvals: the singular values, descending."""
    return jnp.linalg.svdvals(A)


def qr(A, mode="reduced"):
    """torch.linalg.qr: (Q, R); mode 'reduced', 'complete' or 'r' (Q empty)."""
    if mode == "r":
        r = jnp.linalg.qr(A, mode="r")
        return jnp.linalg.QRResult(jnp.zeros((0,), dtype=r.dtype), r)
    return jnp.linalg.qr(A, mode=mode)


def _cutoff(s, atol, rtol, shape):
    """torch's tolerance on singular values s: max(atol, rtol * the largest); rtol defaults to
    eps * max(m, n), or to 0 where a positive atol is given. atol / rtol may be batched."""
    if rtol is None:
        positive = atol is not None and (not np.isscalar(atol) or atol > 0)
        rtol = 0.0 if positive else max(shape[-2:]) * float(np.finfo(np.dtype(s.dtype)).eps)
    smax = (jnp.max(s, axis=-1, keepdims=True) if s.shape[-1]
            else jnp.zeros(tuple(s.shape[:-1]) + (1,), s.dtype))
    per_matrix = [jnp.asarray(t, dtype=s.dtype)[..., None] for t in (rtol, atol)
                  if t is not None]
    cut = smax * per_matrix[0]
    return cut if atol is None else jnp.maximum(cut, per_matrix[1])


def _mH(x):  # noqa: N802 - torch's name
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def _spectrum(a, hermitian):
    """(left, values, right) with a = left diag(values) right; |values| the singular values."""
    if hermitian:
        w, v = jnp.linalg.eigh(a)
        return v, w, _mH(v)
    return jnp.linalg.svd(a, full_matrices=False)


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """torch.linalg.pinv: the pseudo-inverse, singular values (eigenvalues with hermitian=True)
    at most max(atol, rtol * the largest) dropped, as torch's."""
    a = jnp.asarray(A)
    left, values, right = _spectrum(a, hermitian)
    keep = jnp.abs(values) > _cutoff(jnp.abs(values), atol, rtol, a.shape)
    inv = jnp.where(keep, 1.0 / jnp.where(keep, values, 1.0), 0.0).astype(values.dtype)
    return jnp.matmul(_mH(right), inv[..., :, None] * _mH(left))


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """torch.linalg.matrix_rank: the number of singular values (|eigenvalues| with
    hermitian=True) above max(atol, rtol * the largest), int64."""
    a = jnp.asarray(A)
    s = jnp.abs(jnp.linalg.eigvalsh(a)) if hermitian else jnp.linalg.svdvals(a)
    return jnp.sum(s > _cutoff(s, atol, rtol, a.shape), axis=-1).astype(jnp.int64)


def matrix_power(A, n):
    """torch.linalg.matrix_power: A to the integer power n (negative: of the inverse)."""
    return jnp.linalg.matrix_power(A, n)


def matrix_exp(A):
    """torch.linalg.matrix_exp: the matrix exponential (jitgrad.scipy.linalg.expm)."""
    return sla.expm(A)


def multi_dot(tensors):
    """torch.linalg.multi_dot: the product of a list of matrices, in the cheapest order."""
    return jnp.linalg.multi_dot(list(tensors))


def matmul(input, other):  # noqa: A002
    """torch.linalg.matmul: torch.matmul."""
    return jnp.matmul(input, other)


def vecdot(x, y, *, dim=-1):
    """torch.linalg.vecdot: sum of conj(x) * y over dim."""
    return jnp.linalg.vecdot(x, y, axis=dim)


def cross(input, other, *, dim=-1):  # noqa: A002
    """torch.linalg.cross over dim (the last by default)."""
    return jnp.cross(input, other, axis=dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.linalg.diagonal: of the last two dims by default (torch.diagonal's are 0, 1)."""
    return jnp.diagonal(A, offset, dim1, dim2)


def vander(x, *, N=None):  # noqa: N803
    """torch.linalg.vander: increasing powers x^0 ... x^(N-1) (numpy.vander's decrease) of the
    last dim of x, batched over the others, as torch's: a cumulative product of x."""
    x = jnp.asarray(x)
    if x.ndim == 0:
        raise ValueError("linalg.vander: x must have at least one dimension, got a 0-d tensor")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise ValueError(f"linalg.vander: N must be greater than 1, got {n}")
    cols = jnp.broadcast_to(x[..., None], tuple(x.shape) + (n - 1,))
    return jnp.concatenate([jnp.ones_like(x)[..., None], jnp.cumprod(cols, axis=-1)], axis=-1)


def solve(A, B, *, left=True):
    """torch.linalg.solve: X with A X = B (X A = B with left=False); B is a batch of vectors
    when its shape is A's without the last dim, as torch reads it."""
    A, B = jnp.asarray(A), jnp.asarray(B)
    if not left:
        return jnp.swapaxes(solve(jnp.swapaxes(A, -1, -2), jnp.swapaxes(B, -1, -2)), -1, -2)
    if B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]):
        return jnp.linalg.solve(A, B[..., None])[..., 0]
    return jnp.linalg.solve(A, B)


def solve_ex(A, B, *, left=True, check_errors=False):
    """torch.linalg.solve_ex: (solution, info); info is A's LU's: the first zero pivot
    (1-based), or 0."""
    info = _checked("solve_ex", _lu_info(lu_factor(A).LU), check_errors)
    return SolveExResult(solve(A, B, left=left), info)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """torch.linalg.solve_triangular: X with A X = B (X A = B with left=False), A triangular."""
    if not left:
        At, Bt = jnp.swapaxes(A, -1, -2), jnp.swapaxes(B, -1, -2)
        return jnp.swapaxes(sla.solve_triangular(At, Bt, lower=upper,
                                                 unit_diagonal=unitriangular), -1, -2)
    return sla.solve_triangular(A, B, lower=not upper, unit_diagonal=unitriangular)


def lstsq(A, B, rcond=None, *, driver=None):
    """torch.linalg.lstsq with its CPU default driver's results: the least-squares solution
    (through the pseudo-inverse), the rank; residuals and singular values empty."""
    A, B = jnp.asarray(A), jnp.asarray(B)
    x = jnp.matmul(jnp.linalg.pinv(A, rtol=rcond), B)
    empty = jnp.zeros((0,), dtype=x.dtype)
    return LstsqResult(x, empty, jnp.linalg.matrix_rank(A, rtol=rcond), empty)


def lu_factor(A, *, pivot=True):
    """torch.linalg.lu_factor: (LU, pivots) with LAPACK's 1-based pivots, as torch's."""
    if not pivot:
        raise NotImplementedError("lu_factor(pivot=False): only partial pivoting")
    lu_, piv = sla.lu_factor(A)
    return LUFactorResult(lu_, jnp.asarray(piv).astype(jnp.int32) + 1)


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """torch.linalg.lu_factor_ex: (LU, pivots, info); info is the first zero pivot (1-based)
    of U, or 0."""
    lu_, piv = lu_factor(A, pivot=pivot)
    return LUFactorExResult(lu_, piv, _checked("lu_factor_ex", _lu_info(lu_), check_errors))


def lu(A, *, pivot=True):
    """torch.linalg.lu: (P, L, U) with A = P L U."""
    if not pivot:
        raise NotImplementedError("lu(pivot=False): only partial pivoting")
    return LUResult(*sla.lu(A))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):  # noqa: N803
    """torch.linalg.lu_solve from lu_factor's (LU, 1-based pivots): X with A X = B, A^H X = B
    (adjoint=True), X A = B (left=False) or X A^H = B."""
    piv = jnp.asarray(pivots).astype(np.int64) - 1
    if left:
        return sla.lu_solve((LU, piv), B, trans=2 if adjoint else 0)
    # X A = B is A^T X^T = B^T; X A^H = B is A X^H = B^H
    B = jnp.asarray(B)
    flip = (lambda m: jnp.conj(jnp.swapaxes(m, -1, -2))) if adjoint else (
        lambda m: jnp.swapaxes(m, -1, -2))
    return flip(sla.lu_solve((LU, piv), flip(B), trans=0 if adjoint else 1))
