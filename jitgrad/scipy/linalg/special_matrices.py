"""Structured matrices (scipy.linalg names). Those built from array arguments (block_diag,
toeplitz, hankel, circulant, companion, leslie, fiedler, convolution_matrix) are gathers of
the inputs, so they trace and differentiate; those of a size only (hilbert, invhilbert,
pascal, invpascal, helmert, hadamard, dft) are scipy's constants, computed on the host."""
from __future__ import annotations

import importlib

import numpy as np

from ... import numpy as jnp
from ...numpy._convert import operands


def block_diag(*arrs):
    """The block-diagonal matrix of the arguments (0-d and 1-d ones are 1 x n rows, as scipy)."""
    if not arrs:
        return jnp.zeros((1, 0))
    blocks = [jnp.atleast_2d(a) for a in operands(*arrs)]
    if any(b.ndim != 2 for b in blocks):
        raise ValueError(f"block_diag: expected arguments of at most 2 dimensions, got shapes "
                         f"{[tuple(jnp.shape(a)) for a in arrs]}")
    total = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        rows.append(jnp.pad(b, ((0, 0), (left, total - left - b.shape[1]))))
        left += b.shape[1]
    return jnp.concatenate(rows, axis=0)


def _vector(x):
    (x,) = operands(x)
    return jnp.ravel(x)


def toeplitz(c, r=None):
    """t[i, j] = c[i - j] below the diagonal, r[j - i] above (r defaults to conj(c); r[0] is
    ignored), as scipy.linalg.toeplitz."""
    c = _vector(c)
    r = jnp.conj(c) if r is None else _vector(r)
    c, r = operands(c, r)
    values = jnp.concatenate([jnp.flip(r[1:]), c])
    m, n = c.shape[0], r.shape[0]
    return jnp.take(values, (n - 1) + np.arange(m)[:, None] - np.arange(n)[None, :])


def hankel(c, r=None):
    """h[i, j] = c[i + j] while i + j < len(c), then r[i + j - len(c) + 1] (r defaults to
    zeros; r[0] is ignored), as scipy.linalg.hankel."""
    c = _vector(c)
    r = jnp.zeros_like(c) if r is None else _vector(r)
    c, r = operands(c, r)
    values = jnp.concatenate([c, r[1:]])
    m, n = c.shape[0], r.shape[0]
    return jnp.take(values, np.arange(m)[:, None] + np.arange(n)[None, :])


def circulant(c):
    """c[(i - j) mod n]: each column is c rolled down by its index (scipy.linalg.circulant)."""
    c = _vector(c)
    n = c.shape[0]
    return jnp.take(c, (np.arange(n)[:, None] - np.arange(n)[None, :]) % n)


def companion(a):
    """The companion matrix of the polynomial with coefficients a (highest first): first row
    -a[1:] / a[0], ones below the diagonal (scipy.linalg.companion)."""
    (a,) = operands(a, float_only=True)
    if a.ndim != 1 or a.shape[0] < 2:
        raise ValueError(f"companion: expected a 1-d array of at least 2 coefficients, got "
                         f"shape {a.shape}")
    n = a.shape[0] - 1
    first = jnp.true_divide(jnp.negative(a[1:]), a[0])
    return jnp.add(jnp.multiply(np.eye(n, 1, dtype=a.dtype), first),
                   np.eye(n, k=-1, dtype=a.dtype))


def leslie(f, s):
    """The Leslie matrix: fecundities f on the first row, survival s below the diagonal."""
    f, s = operands(f, s, float_only=True)
    n = f.shape[-1]
    if s.shape[-1] != n - 1:
        raise ValueError(f"leslie: expected s with {n - 1} entries for f with {n}, got shapes "
                         f"{f.shape} and {s.shape}")
    sub = jnp.multiply(np.eye(n, k=-1, dtype=f.dtype), jnp.pad(s, (0, 1)))  # sub[j + 1, j] = s[j]
    return jnp.add(jnp.multiply(np.eye(n, 1, dtype=f.dtype), f), sub)


def fiedler(a):
    """|a[i] - a[j]| (scipy.linalg.fiedler)."""
    a = _vector(a)
    return jnp.abs(jnp.subtract(jnp.expand_dims(a, -1), a))


def convolution_matrix(a, n, mode="full"):
    """The matrix A with A @ v == np.convolve(a, v, mode) for v of length n
    (scipy.linalg.convolution_matrix)."""
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"convolution_matrix: expected mode 'full', 'same' or 'valid', got "
                         f"{mode!r}")
    a = _vector(a)
    m = a.shape[0]
    if m == 0 or n <= 0:
        raise ValueError(f"convolution_matrix: expected a non-empty a and n > 0, got len(a) = "
                         f"{m}, n = {n}")
    rows = np.arange(m + n - 1)
    if mode == "same":
        start = (min(m, n) - 1) // 2
        rows = rows[start:start + max(m, n)]
    elif mode == "valid":
        rows = rows[min(m, n) - 1:max(m, n)]
    idx = rows[:, None] - np.arange(n)[None, :]
    padded = jnp.concatenate([a, jnp.zeros((1,), a.dtype)])
    return jnp.take(padded, np.where((idx >= 0) & (idx < m), idx, m))


def _host(name):
    def build(*args, **kwargs):
        host = importlib.import_module("scipy.linalg")     # only when one is asked for
        out = np.asarray(getattr(host, name)(*args, **kwargs))
        # floats in the default float dtype (float32 unless x64), as jax.scipy
        real = np.dtype(jnp.zeros(()).dtype)
        want = {"f": real, "c": np.result_type(real, np.complex64)}.get(out.dtype.kind)
        return jnp.asarray(out if want is None else out.astype(want))
    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"scipy.linalg.{name}, computed on the host (a constant)."
    return build


hilbert, invhilbert, pascal, invpascal, helmert, hadamard, dft = (
    _host(n) for n in ("hilbert", "invhilbert", "pascal", "invpascal", "helmert", "hadamard",
                       "dft"))
