"""jnp.linalg: the Array API's linalg extension and NumPy's np.linalg names, with gradients.

The decompositions are primitives (ir.ops.LINALG: cholesky, eigh, svd, qr, solve, slogdet) with
JAX's derivative rules (ir/autodiff/linalg.py); everything else is built from them, matmul and
elementwise ops. Under jit they run as LAPACK calls inside the compiled CPU entry (numba's
np.linalg) and as host calls on CUDA. A matrix LAPACK cannot factor gives NaNs, as in JAX.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..eager.dispatch import apply
from ..ir import Op
from ._convert import asarray, device_of, host_array, normalize_axes, normalize_axis, operands
from .products import matmul, outer, tensordot, vecdot  # noqa: F401  (jnp.linalg's names)
from .shape import matrix_transpose  # noqa: F401  (jnp.linalg's name)
# the rest under private aliases, so that jnp.linalg holds only linear algebra
from ._convert import as_int as _as_int
from .complex_parts import conj as _conj
from .elementwise import true_divide as _true_divide, where as _where
from .half_compute import narrowed as _narrowed, widened as _widened
from .products import cross as _cross, diagonal as _diagonal, einsum as _einsum
from .reductions import amax as _amax, amin as _amin, sum as _sum
from .shape import (broadcast_to as _broadcast_to, expand_dims as _expand_dims,
                    moveaxis as _moveaxis, reshape as _reshape, squeeze as _squeeze)
from .ufuncs import (abs as _abs, add as _add, exp as _exp, greater as _greater,
                     multiply as _multiply, not_equal as _not_equal, power as _power,
                     sqrt as _sqrt, square as _square)
from ..ir.types import kind_of

EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
EighResult.__doc__ = "numpy.linalg.eigh's result: (eigenvalues, eigenvectors)."
QRResult.__doc__ = "numpy.linalg.qr's result: (Q, R)."
SlogdetResult.__doc__ = "numpy.linalg.slogdet's result: (sign, logabsdet)."
SVDResult.__doc__ = "numpy.linalg.svd's result: (U, S, Vh)."


def _float_matrices(x, what, square=False):
    (x,) = operands(x, float_only=True)
    if x.ndim < 2 or square and x.shape[-1] != x.shape[-2]:
        kind = "square matrices [..., n, n]" if square else "matrices [..., m, n]"
        raise np.linalg.LinAlgError(f"{what}: expected {kind}, got an array of shape {x.shape}")
    return x


def _sym(x):
    """The symmetric (Hermitian, for complex x) part."""
    return _multiply(_add(x, _H(x)), 0.5)


def _H(x):
    """The conjugate transpose of the matrices (the transpose of real ones)."""
    return _conj(matrix_transpose(x))


def cholesky(x, /, *, upper=False):
    """L with x = L L^T (upper=True: U with x = U^T U) for symmetric positive-definite x."""
    x = _float_matrices(x, "cholesky", square=True)
    L = apply(Op.cholesky, [_sym(x)])
    return _H(L) if upper else L


def eigh(x, /):
    """Eigenvalues (ascending) and eigenvectors of symmetric x (its symmetric part, as JAX)."""
    x = _float_matrices(x, "eigh", square=True)
    return EighResult(*apply(Op.eigh, [_sym(x)]))


def eigvalsh(x, /):
    """numpy.linalg.eigvalsh: eigenvalues of (a stack of) symmetric/Hermitian matrices, ascending."""
    return eigh(x).eigenvalues


def svd(x, /, full_matrices=True, compute_uv=True, hermitian=False):
    """numpy.linalg.svd: the singular value decomposition, an SVDResult(U, S, Vh) (S alone with
    compute_uv=False)."""
    x = _float_matrices(x, "svd")
    if not compute_uv:
        return svdvals(x)
    return SVDResult(*apply(Op.svd, [x], {"full_matrices": bool(full_matrices)}))


def svdvals(x, /):
    """numpy.linalg.svdvals: the singular values, descending."""
    x = _float_matrices(x, "svdvals")
    return apply(Op.svd, [x], {"full_matrices": False})[1]


def qr(x, /, mode="reduced"):
    """numpy.linalg.qr: the QR decomposition, a QRResult(Q, R)."""
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    x = _float_matrices(x, "qr")
    q, r = apply(Op.qr, [x], {"mode": "reduced" if mode == "r" else mode})
    return r if mode == "r" else QRResult(q, r)


def slogdet(x, /):
    """numpy.linalg.slogdet: sign and log|det| of (a stack of) square matrices, a SlogdetResult."""
    x = _float_matrices(x, "slogdet", square=True)
    return SlogdetResult(*apply(Op.slogdet, [x]))


def det(x, /):
    """numpy.linalg.det: the determinant of (a stack of) square matrices."""
    sign, logabsdet = slogdet(x)
    return _multiply(sign, _exp(logabsdet))


def solve(x1, x2, /):
    """x1^-1 x2. x2 is a vector (or a batch of them) only when it is 1-d (NumPy 2 and the
    standard); batch dimensions broadcast."""
    a, b = operands(x1, x2, float_only=True)      # NumPy's promotion of the two
    a = _float_matrices(a, "solve", square=True)
    n = a.shape[-1]
    vector = b.ndim == 1
    if vector:
        b = _reshape(b, (b.shape[0], 1))
    if b.shape[-2] != n:
        raise ValueError(f"solve: x2 needs {n} rows to match x1 of shape {a.shape}, got shape "
                         f"{asarray(x2).shape}")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = apply(Op.solve, [_broadcast_to(a, batch + a.shape[-2:]),
                           _broadcast_to(b, batch + b.shape[-2:])])
    return _reshape(out, out.shape[:-1]) if vector else out


def _identity_like(a):
    """I broadcast to a's shape, on a's device."""
    return _broadcast_to(host_array(np.eye(a.shape[-1], dtype=a.dtype), device_of(a)), a.shape)


def inv(x, /):
    """numpy.linalg.inv: the inverse of (a stack of) square matrices."""
    a = _float_matrices(x, "inv", square=True)
    return apply(Op.solve, [a, _identity_like(a)])


def _cutoff(s, rtol, shape):
    """rtol * largest singular value (default rtol: max(m, n) * eps, as the standard)."""
    if rtol is None:
        rtol = max(shape[-2:]) * float(np.finfo(s.dtype).eps)
    smax = _amax(s, axis=-1, keepdims=True) if s.shape[-1] else s
    rtol = asarray(rtol) if not np.isscalar(rtol) else rtol
    if not np.isscalar(rtol) and rtol.ndim:
        rtol = _expand_dims(rtol, -1)
    return _multiply(smax, rtol)


def pinv(x, /, rcond=None, hermitian=False, *, rtol=None):
    """The Moore-Penrose inverse from the SVD; singular values at most rtol * max are dropped."""
    a = _float_matrices(x, "pinv")
    u, s, vh = svd(a, full_matrices=False)
    keep = _greater(s, _cutoff(s, rtol if rtol is not None else rcond, a.shape))
    s_inv = _where(keep, _true_divide(1.0, _where(keep, s, 1.0)), 0.0)
    return matmul(_H(vh), _multiply(_H(u), s_inv[..., :, None]))


def matrix_rank(x, /, tol=None, hermitian=False, *, rtol=None):
    """numpy.linalg.matrix_rank: the number of singular values above the tolerance."""
    a = _float_matrices(x, "matrix_rank")
    s = svdvals(a)
    cut = tol if tol is not None else _cutoff(s, rtol, a.shape)
    return _sum(_greater(s, cut), axis=-1)


def matrix_power(x, n, /):
    """x @ x @ ... (n times) by repeated squaring; n < 0 powers the inverse, n = 0 is I."""
    n = _as_int(n, "matrix_power: the exponent")
    a = asarray(x)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise np.linalg.LinAlgError(f"matrix_power: expected square matrices [..., n, n], got "
                                    f"an array of shape {a.shape}")
    if n == 0:
        return _identity_like(a)
    if n < 0:
        a, n = inv(a), -n
    result = None
    while n:
        if n & 1:
            result = a if result is None else matmul(result, a)
        n >>= 1
        if n:
            a = matmul(a, a)
    return result


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    """The standard's vector_norm over `axis` (None: every axis, the array as one vector)."""
    v = asarray(x)
    if kind_of(v.dtype) == "c":
        v = _abs(v)              # the norm of complex entries is that of their moduli
    if kind_of(v.dtype) != "f":
        (v,) = operands(v, float_only=True)
    (v,), dtype = _widened(v)          # float16/bfloat16: summed in float32, rounded once
    return _narrowed(_vector_norm(v, normalize_axes(axis, v.ndim), keepdims, ord), dtype)


def _vector_norm(v, axes, keepdims, ord):  # noqa: A002
    if ord == 2:
        return _sqrt(_sum(_square(v), axis=axes, keepdims=keepdims))
    a = _abs(v)
    if ord == np.inf:
        return _amax(a, axis=axes, keepdims=keepdims)
    if ord == -np.inf:
        return _amin(a, axis=axes, keepdims=keepdims)
    if ord == 0:
        return _sum(_not_equal(a, 0), axis=axes, keepdims=keepdims, dtype=v.dtype)
    if ord == 1:
        return _sum(a, axis=axes, keepdims=keepdims)
    p = float(ord)
    return _power(_sum(_power(a, p), axis=axes, keepdims=keepdims), 1.0 / p)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    """Norms of the matrices on the last two axes: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf."""
    return _matrix_norm(x, (-2, -1), keepdims, ord)


def _matrix_norm(x, axes, keepdims, ord):  # noqa: A002
    (a,), dtype = _widened(_float_matrices(x, "matrix_norm"))     # 16-bit: float32 sums
    r, c = (normalize_axis(i, a.ndim) for i in axes)
    if r == c:
        raise ValueError(f"matrix_norm: the two axes must differ, got {axes}")
    if ord == "fro":
        out = _sqrt(_sum(_square(_abs(a)), axis=(r, c)))
    elif ord in ("nuc", 2, -2):
        s = svdvals(_moveaxis(a, (r, c), (-2, -1)))
        out = {"nuc": _sum, 2: _amax, -2: _amin}[ord](s, axis=-1)
    elif ord in (1, -1, np.inf, -np.inf):
        over, across = (r, c) if ord in (1, -1) else (c, r)     # 1: column sums, inf: row sums
        sums = _sum(_abs(a), axis=over, keepdims=True)
        out = (_amax if ord > 0 else _amin)(sums, axis=across, keepdims=True)
        out = _squeeze(out, axis=tuple(sorted((r, c))))
    else:
        raise ValueError(f"matrix_norm: invalid norm order {ord!r} for matrices ('fro', 'nuc', "
                         "1, -1, 2, -2, inf, -inf)")
    if keepdims:
        for ax in sorted((r, c)):
            out = _expand_dims(out, ax)
    return _narrowed(out, dtype)


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """NumPy's norm: a vector norm over one axis (or a 1-d array), a matrix norm over two axes
    (or a 2-d array), the 2-norm of the flattened array when ord and axis are None."""
    a = asarray(x)
    if axis is None and ord is None:
        return vector_norm(a, axis=None, keepdims=keepdims)
    if axis is None:
        axis = tuple(range(a.ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if len(axes) == 1:
        return vector_norm(a, axis=axes, keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) == 2:
        return _matrix_norm(a, axes, keepdims, "fro" if ord is None else ord)
    raise ValueError(f"norm: improper number of dimensions to norm ({len(axes)} axes)")


def diagonal(x, /, *, offset=0):
    """The diagonals of the matrices on the last two axes."""
    return _diagonal(x, offset, -2, -1)


def trace(x, /, *, offset=0, dtype=None):
    """numpy.linalg.trace: returns the sum along the specified diagonals of a matrix (or a stack of
    matrices) ``x``."""
    d = diagonal(x, offset=offset)
    return _sum(d, axis=-1, dtype=dtype)


def cross(x1, x2, /, *, axis=-1):
    """numpy.linalg.cross: returns the cross product of 3-element vectors."""
    return _cross(x1, x2, axis=axis)


def multi_dot(arrays):
    """A chain of matmuls contracted pairwise in the cheapest order (einsum's greedy choice)."""
    xs = [asarray(a) for a in arrays]
    if len(xs) < 2:
        raise ValueError("multi_dot: expecting at least two arrays")
    first_vec, last_vec = xs[0].ndim == 1, xs[-1].ndim == 1
    letters = "abcdefghijklmnopqrstuvwxyz"
    subs = [letters[i:i + 2] for i in range(len(xs))]
    if first_vec:
        subs[0] = subs[0][1]
    if last_vec:
        subs[-1] = subs[-1][0]
    out = ("" if first_vec else "a") + ("" if last_vec else letters[len(xs)])
    return _einsum(",".join(subs) + "->" + out, *xs)
