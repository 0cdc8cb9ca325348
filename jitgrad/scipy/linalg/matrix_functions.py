"""The matrix exponential and its Frechet derivative (scipy.linalg.expm, expm_frechet):
Higham's scaling and squaring with the degree-13 Pade approximant, as jax.scipy. The number of
squarings depends on the data, so all max_squarings are traced and masked (no data-dependent
loop), which keeps it differentiable under jit."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from .triangular import matrices

_THETA_13 = 5.371920351148152
_PADE_13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
            129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
            40840800.0, 960960.0, 16380.0, 182.0, 1.0)


def _pade13(a):
    b = _PADE_13
    eye = np.eye(a.shape[-1], dtype=a.dtype)
    a2 = jnp.matmul(a, a)
    a4 = jnp.matmul(a2, a2)
    a6 = jnp.matmul(a4, a2)

    def comb(c6, c4, c2, c0):
        return jnp.add(jnp.add(jnp.multiply(a6, c6), jnp.multiply(a4, c4)),
                       jnp.add(jnp.multiply(a2, c2), jnp.multiply(eye, c0)))
    u = jnp.matmul(a, jnp.add(jnp.matmul(a6, comb(b[13], b[11], b[9], 0.0)), comb(b[7], b[5], b[3], b[1])))
    v = jnp.add(jnp.matmul(a6, comb(b[12], b[10], b[8], 0.0)), comb(b[6], b[4], b[2], b[0]))
    return jnp.linalg.solve(jnp.subtract(v, u), jnp.add(v, u))


def expm(A, *, upper_triangular=False, max_squarings=16):
    """exp(A) for square A (scipy.linalg.expm; upper_triangular and max_squarings are
    jax.scipy's): NaN where more than max_squarings squarings would be needed."""
    (a,) = matrices(A, what="expm")
    if a.shape[-1] == 0:                    # 0 x 0: nothing to exponentiate (the 1-norm's max)
        return a
    if np.dtype(a.dtype).itemsize == 2:     # 16-bit: Pade's coefficients overflow float16
        return jnp.astype(expm(jnp.astype(a, np.float32), max_squarings=max_squarings), a.dtype)
    norm = jnp.max(jnp.sum(jnp.abs(a), axis=-2), axis=-1, keepdims=True)   # the 1-norm
    s = jnp.maximum(0.0, jnp.ceil(jnp.log2(jnp.true_divide(norm, _THETA_13))))
    s = jnp.where(jnp.isfinite(s), s, 0.0)
    scaled = jnp.true_divide(a, jnp.expand_dims(jnp.power(2.0, s), -1))
    r = _pade13(scaled)
    for i in range(int(max_squarings)):
        r = jnp.where(jnp.expand_dims(jnp.greater(s, i), -1), jnp.matmul(r, r), r)
    too_big = jnp.expand_dims(jnp.greater(s, max_squarings), -1)
    return jnp.where(too_big, np.nan, r)


def expm_frechet(A, E, *, method=None, compute_expm=True):
    """The Frechet derivative of expm at A in direction E (scipy.linalg.expm_frechet), as
    the upper-right block of expm([[A, E], [0, A]]); (expm(A), derivative) by default."""
    if method not in (None, "SPS", "blockEnlarge"):
        raise ValueError(f"expm_frechet: expected method None, 'SPS' or 'blockEnlarge', got "
                         f"{method!r}")
    a, e = matrices(A, E, what="expm_frechet")
    if e.shape != a.shape:
        raise ValueError(f"expm_frechet: expected E of A's shape {a.shape}, got {e.shape}")
    n = a.shape[-1]
    top = jnp.concatenate([a, e], axis=-1)
    bottom = jnp.concatenate([jnp.zeros_like(a), a], axis=-1)
    big = expm(jnp.concatenate([top, bottom], axis=-2))
    frechet = big[..., :n, n:]
    return (big[..., :n, :n], frechet) if compute_expm else frechet
