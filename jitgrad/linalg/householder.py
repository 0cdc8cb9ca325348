"""torch.linalg.householder_product: the first n columns of the product H_1 ... H_k of
Householder reflections H_i = I - tau_i v_i v_i^H (LAPACK's orgqr / ungqr), v_i being column i
of A below the diagonal with a 1 on it. Built from matmuls, so it traces, vmaps and
differentiates."""
import numpy as np

from .. import numpy as jnp

_WHERE = "torch.linalg.householder_product"


def _check(A, tau):
    if A.ndim < 2:
        raise ValueError(f"{_WHERE}: input must have at least 2 dimensions, got shape "
                         f"{tuple(A.shape)}")
    if A.shape[-2] < A.shape[-1]:
        raise ValueError(f"{_WHERE}: input.shape[-2] must be greater than or equal to "
                         f"input.shape[-1], got shape {tuple(A.shape)}")
    if tau.ndim != A.ndim - 1:
        raise ValueError(f"{_WHERE}: expected tau to have one dimension less than input, got "
                         f"tau.ndim {tau.ndim} and input.ndim {A.ndim}")
    if A.shape[-1] < tau.shape[-1]:
        raise ValueError(f"{_WHERE}: input.shape[-1] must be greater than or equal to "
                         f"tau.shape[-1], got {A.shape[-1]} < {tau.shape[-1]}")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise ValueError(f"{_WHERE}: expected the batch dimensions of tau to equal "
                         f"input.shape[:-2] {tuple(A.shape[:-2])}, got {tuple(tau.shape[:-1])}")


def householder_product(A, tau):
    """torch.linalg.householder_product (torch.orgqr): the m x n matrix Q = (H_1 ... H_k)[:, :n]
    from A (m x n, the reflectors below its diagonal) and tau (k <= n scalars), batched."""
    A, tau = jnp.asarray(A), jnp.asarray(tau)
    _check(A, tau)
    dtype = jnp.result_type(A, tau)
    A, tau = A.astype(dtype), tau.astype(dtype)
    m, n = A.shape[-2], A.shape[-1]
    q = jnp.broadcast_to(jnp.eye(m, n, dtype=dtype), tuple(A.shape))
    rows = np.arange(m)
    for i in reversed(range(tau.shape[-1])):
        v = jnp.where(rows > i, A[..., :, i], (rows == i).astype(dtype))       # (..., m)
        w = jnp.matmul(jnp.conj(v)[..., None, :], q)                            # (..., 1, n)
        q = q - (tau[..., i, None] * v)[..., :, None] * w
    return q
