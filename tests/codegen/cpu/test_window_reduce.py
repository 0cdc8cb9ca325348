"""Reductions over short windows (max pooling's 2x2): the reduced loops unrolled and the float
max / min branch-free, with llvm.maximum's meaning (a NaN wins, +0 > -0), bit for bit."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.nn import functional as F


def _windows(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(
        n, c, h // 2, w // 2, 4)


def _reference(x, kind):
    win = _windows(x)
    pick = np.max if kind == "max" else np.min
    out = pick(np.where(np.isnan(win), 0, win), axis=-1)
    zero = out == 0        # a tie of zeros: +0 for max, -0 for min, if any window holds one
    signs = np.signbit(win) & (win == 0)
    neg = signs.all(-1, where=win == 0) if kind == "max" else signs.any(-1)
    out = np.where(zero, np.where(neg, -0.0, 0.0), out).astype(x.dtype)
    return np.where(np.isnan(win).any(-1), np.nan, out).astype(x.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_window_max_min_bits(dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 8, 8)).astype(dtype)
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, 9, replace=False)] = np.nan
    flat[rng.choice(flat.size, 20, replace=False)] = 0.0
    flat[rng.choice(flat.size, 20, replace=False)] = -0.0
    flat[rng.choice(flat.size, 4, replace=False)] = np.inf
    flat[rng.choice(flat.size, 4, replace=False)] = -np.inf
    x[0, 0, :2, :2] = [[0.0, -0.0], [-0.0, 0.0]]
    x[0, 1, :2, :2] = -0.0
    f = jg.jit(lambda x: (jnp.max(x.reshape(2, 3, 4, 2, 4, 2), axis=(3, 5)),
                          jnp.min(x.reshape(2, 3, 4, 2, 4, 2), axis=(3, 5))))
    units = [u.source for u in f.lower(x).compile().units if "reduce_max" in u.source]
    assert units and "llvm.maximum" not in units[0]       # the branch-free form
    for got, kind in zip(f(x), ("max", "min")):
        want = _reference(x, kind)
        np.testing.assert_array_equal(np.isnan(np.asarray(got)), np.isnan(want))
        np.testing.assert_array_equal(np.signbit(np.asarray(got)), np.signbit(want))
        np.testing.assert_array_equal(np.asarray(got), want)


def test_max_pool_and_its_gradient_match_numpy():
    x = np.random.default_rng(1).standard_normal((4, 3, 10, 10)).astype(np.float32)
    f = jg.jit(jg.value_and_grad(lambda x: jnp.sum(F.max_pool2d(x, 2) ** 2)))
    loss, g = f(x)
    pooled = _windows(x).max(-1)
    np.testing.assert_allclose(float(loss), np.sum(pooled.astype(np.float64) ** 2), rtol=1e-5)
    win = _windows(x)
    hit = win == pooled[..., None]
    want = (hit * (2 * pooled)[..., None]).reshape(4, 3, 5, 5, 2, 2).transpose(
        0, 1, 2, 4, 3, 5).reshape(x.shape)
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6)
