"""Float max/min reductions of the LLVM rowwise and reduce kernels that a select feeds
(attention's masked softmax) accumulate integer keys (codegen/cpu/kernels/accumulators.py `_key`),
which LLVM vectorizes; the others llvm.maximum/minimum. They must keep IEEE maximum/minimum's answers in every order: a
NaN of either sign wins, +0 is above -0, infinities and fully masked rows, float32 and float64;
checked against a NumPy reference on the compiled path (eagerly, NumPy's max decides a tie of
zeros by order, as it always did)."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.nn import functional as F


def _ieee(x, kind, axis=-1):
    """maximum/minimum over `axis`: NaN if any, else the extreme with +0 above -0."""
    red = np.max if kind == "max" else np.min
    out = red(x, axis=axis)
    zero = out == 0
    pos = np.any((x == 0) & ~np.signbit(x), axis=axis)
    neg = np.any((x == 0) & np.signbit(x), axis=axis)
    out = np.where(zero, np.where(pos if kind == "max" else ~neg, 0.0, -0.0), out)
    return np.where(np.any(np.isnan(x), axis=axis), np.nan, out).astype(x.dtype)


def _rows(dtype, rng):
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0], dtype)
    rows = [rng.standard_normal(37).astype(dtype) for _ in range(3)]
    for k in range(40):         # rows of specials and normals in random orders
        r = rng.standard_normal(37).astype(dtype)
        idx = rng.choice(37, size=rng.integers(1, 5), replace=False)
        r[idx] = rng.choice(special, size=len(idx))
        rows.append(r)
    rows.append(np.full(37, -np.inf, dtype))
    rows.append(np.full(37, np.inf, dtype))
    rows.append(np.array([-0.0] * 36 + [0.0], dtype))
    rows.append(np.array([0.0] + [-0.0] * 36, dtype))
    rows.append(np.full(37, -0.0, dtype))
    return np.stack(rows)


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(got[ok], want[ok])
    np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(want[ok]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["max", "min"])
def test_reduce_kernel_extremes(dtype, kind, rng):
    x = _rows(dtype, rng)
    red = jnp.max if kind == "max" else jnp.min
    want = _ieee(x, kind)
    keep = np.ones(x.shape, bool)
    fill = -np.inf if kind == "max" else np.inf
    _same(jg.jit(lambda a: red(a, axis=-1))(x), want)           # a reduce kernel
    _same(jg.jit(lambda a: red(a * 2.0, axis=-1) * 0.5)(x), want)   # with a prologue
    # through a select: the keyed accumulators
    _same(jg.jit(lambda a, m: red(jnp.where(m, a, fill), axis=-1))(x, keep), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["max", "min"])
def test_rowwise_kernel_extremes(dtype, kind, rng):
    x = _rows(dtype, rng)
    red = jnp.max if kind == "max" else jnp.min
    # the extreme broadcast back over its row: one rowwise kernel
    keep = np.ones(x.shape, bool)
    fill = -np.inf if kind == "max" else np.inf
    with np.errstate(invalid="ignore"):
        want = x - _ieee(x, kind)[:, None]
    _same(jg.jit(lambda a: a - red(a, axis=-1, keepdims=True))(x), want)
    _same(jg.jit(lambda a, m: a - red(jnp.where(m, a, fill), axis=-1, keepdims=True))(x, keep),
          want)                                                  # keyed


def test_masked_softmax_matches_numpy(rng):
    x = rng.standard_normal((2, 3, 16, 16)).astype(np.float32)
    mask = np.tril(np.ones((16, 16), bool))
    mask[0] = False                             # a fully masked row: -inf everywhere, NaN out
    got = jg.jit(lambda a: F.softmax(jnp.where(mask, a, -jnp.inf), axis=-1))(x)
    z = np.where(mask, x, -np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        want = e / e.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-7)
    assert np.isnan(np.asarray(got)[..., 0, :]).all()
