"""torch.linalg.tensorinv / tensorsolve (numpy.linalg's, with torch's argument names): the
inverse and the solve of a tensor read as a square matrix, built on inv / solve, so they trace,
vmap and differentiate."""
import math

from .. import numpy as jnp


def tensorinv(A, ind=2):
    """torch.linalg.tensorinv: the inverse of A read as a matrix of prod(A.shape[:ind]) rows,
    shaped A.shape[ind:] + A.shape[:ind]."""
    A = jnp.asarray(A)
    if not isinstance(ind, int) or ind <= 0:
        raise ValueError(f"linalg.tensorinv: expected a strictly positive integer for 'ind', "
                         f"got {ind!r}")
    outer, inner = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    rows, cols = math.prod(outer), math.prod(inner)
    if rows != cols:
        raise ValueError(f"linalg.tensorinv: expected prod(A.shape[ind:]) == prod(A.shape[:ind])"
                         f", got {cols} != {rows} (A of shape {tuple(A.shape)}, ind={ind})")
    return jnp.reshape(jnp.linalg.inv(jnp.reshape(A, (rows, cols))), inner + outer)


def tensorsolve(A, B, dims=None):
    """torch.linalg.tensorsolve: X with tensordot(A, X, X.ndim) == B; `dims` (dims of A) move
    to the end first. X has the shape A.shape[B.ndim:] (after the move)."""
    A, B = jnp.asarray(A), jnp.asarray(B)
    if dims is not None:
        moved = [d % A.ndim for d in dims]
        A = jnp.transpose(A, [d for d in range(A.ndim) if d not in moved] + moved)
    outer, inner = tuple(A.shape[:B.ndim]), tuple(A.shape[B.ndim:])
    rows, cols = math.prod(outer), math.prod(inner)
    if tuple(B.shape) != outer or rows != cols:
        raise ValueError(f"linalg.tensorsolve: expected B of shape A.shape[:B.ndim] and "
                         f"prod(A.shape[B.ndim:]) == prod(A.shape[:B.ndim]), got A of shape "
                         f"{tuple(A.shape)} and B of shape {tuple(B.shape)}")
    x = jnp.linalg.solve(jnp.reshape(A, (rows, cols)), jnp.reshape(B, (rows,)))
    return jnp.reshape(x, inner)
