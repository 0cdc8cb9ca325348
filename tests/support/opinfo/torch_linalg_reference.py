"""torch.linalg's meaning written with NumPy / SciPy (CI has no torch): the reference namespace
of the jitgrad.linalg records (torch_linalg_ops.py). Each function takes torch's arguments and
gives torch's results (1-based int32 LU pivots, increasing vander powers, X A = B for
left=False, complex eig, ...)."""
import numpy as np
import scipy.linalg as sl


def _mh(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _info(a):
    return np.zeros(a.shape[:-2], np.int32)


def _each(f, a, *rest):
    """f on every matrix of a batch (a's leading dims; `rest` share them), stacked."""
    if a.ndim == 2:
        return f(a, *rest)
    outs = [_each(f, *xs) for xs in zip(a, *rest)]
    if not outs:
        return np.zeros((0,) + np.shape(f(np.zeros(a.shape[1:], a.dtype),
                                          *(np.zeros(r.shape[1:], r.dtype) for r in rest))),
                        a.dtype)
    return np.stack(outs)


def norm(A, ord=None, dim=None, keepdim=False):  # noqa: A002
    if ord is None and dim is None:
        return np.sqrt(np.sum(np.abs(A) ** 2, keepdims=keepdim))
    return np.linalg.norm(A, ord, dim, keepdim)


def vector_norm(x, ord=2, dim=None, keepdim=False):  # noqa: A002
    a = np.abs(x)
    if ord == np.inf:
        return np.max(a, axis=dim, keepdims=keepdim)
    if ord == -np.inf:
        return np.min(a, axis=dim, keepdims=keepdim)
    if ord == 0:
        return np.sum(a != 0, axis=dim, keepdims=keepdim).astype(a.dtype)
    return np.sum(a ** ord, axis=dim, keepdims=keepdim) ** (1.0 / ord)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False):  # noqa: A002
    return np.linalg.norm(A, ord, tuple(dim), keepdim)


def cond(A, p=None):
    return np.linalg.cond(A, p)


def cholesky(A, upper=False):
    L = np.linalg.cholesky(A)
    return _mh(L) if upper else L


def cholesky_ex(A, upper=False):
    return [cholesky(A, upper), _info(A)]


def inv_ex(A):
    return [np.linalg.inv(A), _info(A)]


def slogdet(A):
    return list(np.linalg.slogdet(A))


def eigh(A, UPLO="L"):  # noqa: N803
    return list(np.linalg.eigh(A, UPLO))


def eigvalsh(A, UPLO="L"):  # noqa: N803
    return np.linalg.eigvalsh(A, UPLO)


def svd(A, full_matrices=True):
    return list(np.linalg.svd(A, full_matrices))


def svdvals(A):
    return np.linalg.svd(A, compute_uv=False)


def qr(A, mode="reduced"):
    if mode == "r":
        return [np.zeros((0,), A.dtype), np.linalg.qr(A, mode="r")]
    return list(np.linalg.qr(A, mode))


def _spectrum(A, hermitian):
    """(left, values, right), A = left diag(values) right (eigh's for hermitian)."""
    if hermitian:
        w, v = np.linalg.eigh(A)
        return v, w, _mh(v)
    return np.linalg.svd(A, full_matrices=False)


def _cutoff(s, atol, rtol, shape):
    """max(atol, rtol * s_max); rtol's default eps * max(m, n), 0 where atol > 0 is given."""
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else max(shape[-2:]) * np.finfo(s.dtype).eps
    smax = s.max(axis=-1, keepdims=True, initial=0.0)
    return np.maximum(smax * rtol, 0.0 if atol is None else atol)


def pinv(A, atol=None, rtol=None, hermitian=False):
    left, w, right = _spectrum(A, hermitian)
    keep = np.abs(w) > _cutoff(np.abs(w), atol, rtol, A.shape)
    inv = np.where(keep, 1.0 / np.where(keep, w, 1.0), 0.0).astype(w.dtype)
    return _mh(right) @ (inv[..., :, None] * _mh(left))


def matrix_rank(A, atol=None, rtol=None, hermitian=False):
    s = np.abs(np.linalg.eigvalsh(A)) if hermitian else np.linalg.svd(A, compute_uv=False)
    return np.sum(s > _cutoff(s, atol, rtol, A.shape), axis=-1).astype(np.int64)


def vecdot(x, y, dim=-1):
    return np.sum(np.conj(x) * y, axis=dim)


def cross(a, b, dim=-1):
    return np.cross(a, b, axis=dim)


def diagonal(A, offset=0, dim1=-2, dim2=-1):
    return np.diagonal(A, offset, dim1, dim2)


def vander(x, N=None):  # noqa: N803
    return x[..., None] ** np.arange(x.shape[-1] if N is None else N).astype(x.dtype)


def _is_vector(A, B):
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


def solve(A, B, left=True):
    if not left:
        return np.swapaxes(solve(np.swapaxes(A, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)
    if _is_vector(A, B):
        return np.linalg.solve(A, B[..., None])[..., 0]
    return np.linalg.solve(A, B)


def solve_ex(A, B, left=True):
    return [solve(A, B, left), _info(A)]


def solve_triangular(A, B, upper, left=True, unitriangular=False):
    T = np.triu(A) if upper else np.tril(A)
    if unitriangular:
        T = T - np.diagonal(T, 0, -2, -1)[..., None] * np.eye(T.shape[-1]) + np.eye(T.shape[-1])
    return np.linalg.solve(T, B) if left else np.swapaxes(
        np.linalg.solve(np.swapaxes(T, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)


def lstsq(A, B):
    """torch's CPU default (gelsy): (solution, empty residuals, rank, empty singular values)."""
    x = _each(lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0], A, B)
    empty = np.zeros((0,), x.dtype)
    return [x, empty, np.asarray(np.linalg.matrix_rank(A), np.int64), empty]


def lu_factor(A):
    lu, piv = _each(sl.lu_factor, A) if A.ndim == 2 else (
        _each(lambda a: sl.lu_factor(a)[0], A), _each(lambda a: sl.lu_factor(a)[1], A))
    return [lu, piv.astype(np.int32) + 1]


def lu(A):
    return [_each(lambda a, _i=i: sl.lu(a)[_i], A) for i in range(3)]


def lu_solve(LU, pivots, B, left=True, adjoint=False):  # noqa: N803
    """X with op(A) X = B (left) or X op(A) = B, op(A) = A^H with adjoint, from A's LU."""
    P, L, U = (_each(lambda lu, p, _i=i: _unpack(lu, p)[_i], LU, pivots) for i in range(3))
    A = P @ L @ U
    A = _mh(A) if adjoint else A
    return solve(A, B, left)


def _unpack(lu, piv):
    """(P, L, U) of LAPACK's packed LU and 1-based pivots, A = P L U."""
    n = lu.shape[-1]
    perm = np.arange(n)
    for k, p in enumerate(piv - 1):
        perm[[k, p]] = perm[[p, k]]
    return (np.eye(n, dtype=lu.dtype)[perm].T,           # A[perm] = L U
            np.tril(lu, -1) + np.eye(n, dtype=lu.dtype), np.triu(lu))


def matrix_exp(A):
    return sl.expm(A)


def eig(A):
    w, v = np.linalg.eig(A)
    ct = np.result_type(A.dtype, np.complex64)
    return [w.astype(ct), v.astype(ct)]


def eigvals(A):
    return eig(A)[0]


def householder_product(A, tau):
    def one(a, t):
        name = "ungqr" if np.iscomplexobj(a) else "orgqr"
        (f,) = sl.lapack.get_lapack_funcs((name,), (a,))
        return f(a, t)[0]
    dtype = np.result_type(A, tau)
    return _each(one, A.astype(dtype), tau.astype(dtype))


def det(A):
    return np.linalg.det(A)


def inv(A):
    return np.linalg.inv(A)


def matrix_power(A, n):
    return np.linalg.matrix_power(A, n)


def matmul(a, b):
    return np.matmul(a, b)


def multi_dot(arrays):
    return np.linalg.multi_dot(arrays)


def lu_factor_ex(A):
    return lu_factor(A) + [_info(A)]


def tensorinv(A, ind=2):
    return np.linalg.tensorinv(A, ind)


def tensorsolve(A, B, dims=None):
    return np.linalg.tensorsolve(A, B, dims)
