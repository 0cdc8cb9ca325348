"""jg.lax against jax.lax itself, same inputs, float64 (skipped where jax is not installed: it is
not a test dependency; tests/lax/test_lax.py checks the same semantics against NumPy references)."""
from __future__ import annotations

import numpy as np
import pytest

import jitgrad as jg
from jitgrad import lax

jax = pytest.importorskip("jax")
jl = jax.lax
RNG = np.random.default_rng(2)


@pytest.fixture(autouse=True)
def x64():
    old, old_jax = jg.config.read("enable_x64"), jax.config.read("jax_enable_x64")
    jg.config.update("enable_x64", True)
    jax.config.update("jax_enable_x64", True)
    yield
    jg.config.update("enable_x64", old)
    jax.config.update("jax_enable_x64", old_jax)    # a global: later tests run jax in float32


def randn(*shape):
    return RNG.standard_normal(shape)


def same(name, *args, tol=1e-11, **kwargs):
    got = getattr(lax, name)(*args, **kwargs)
    want = getattr(jl, name)(*args, **kwargs)
    if isinstance(want, (tuple, list)):
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol)
        return
    assert tuple(np.shape(got)) == tuple(np.shape(want))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


CONV = [
    ((2, 4, 7, 6), (6, 4, 3, 2), dict(window_strides=(1, 1), padding="SAME")),
    ((2, 4, 7, 6), (6, 2, 3, 2), dict(window_strides=(1, 2), padding=((1, -1), (2, 0)),
                                      lhs_dilation=(2, 1), feature_group_count=2)),
    ((2, 4, 7, 6), (6, 4, 3, 2), dict(window_strides=(2, 1), padding="VALID",
                                      rhs_dilation=(2, 1))),
    ((4, 3, 5, 5), (6, 3, 2, 2), dict(window_strides=(1, 1), padding="VALID",
                                      batch_group_count=2)),
    ((2, 3, 9), (4, 3, 3), dict(window_strides=(2,), padding="SAME_LOWER")),
    ((1, 2, 4, 5, 3), (2, 2, 2, 3, 2), dict(window_strides=(1, 2, 1), padding="SAME",
                                            rhs_dilation=(1, 1, 2))),
    ((2, 7, 6, 4), (3, 2, 4, 5), dict(window_strides=(2, 2), padding="SAME",
                                      dimension_numbers=("NHWC", "HWIO", "NCHW"))),
]


@pytest.mark.parametrize("i", range(len(CONV)))
def test_conv_general_dilated(i):
    xs, ws, kw = CONV[i]
    same("conv_general_dilated", randn(*xs), randn(*ws), **kw)


@pytest.mark.parametrize("kw", [dict(strides=(2, 2), padding="SAME"),
                                dict(strides=(2, 1), padding="VALID"),
                                dict(strides=(2, 2), padding=((1, 0), (2, 1))),
                                dict(strides=(2, 2), padding="SAME", transpose_kernel=True),
                                dict(strides=(1, 2), padding="VALID", rhs_dilation=(2, 1))])
def test_conv_transpose(kw):
    kernel = (3, 2, 4, 3) if kw.get("transpose_kernel") else (3, 2, 3, 4)   # HWIO, I/O swapped
    same("conv_transpose", randn(2, 5, 4, 3), randn(*kernel), **kw)


@pytest.mark.parametrize("comp", ["max", "add", "min"])
@pytest.mark.parametrize("kw", [dict(window_dimensions=(1, 1, 3, 3), window_strides=(1, 1, 2, 2),
                                     padding="SAME"),
                                dict(window_dimensions=(1, 2, 2, 2), window_strides=(1, 1, 1, 1),
                                     padding=((0, 0), (0, 1), (1, 1), (0, 0)),
                                     base_dilation=(1, 1, 2, 1), window_dilation=(1, 1, 1, 2))])
def test_reduce_window(comp, kw):
    init = {"max": -np.inf, "add": 0.0, "min": np.inf}[comp]
    x = randn(2, 3, 6, 5)
    got = lax.reduce_window(x, init, getattr(lax, comp), **kw)
    want = jl.reduce_window(x, init, getattr(jl, comp), **kw)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-12)


def test_dot_general_and_friends():
    a, b = randn(3, 4, 5, 2), randn(4, 2, 6, 5)
    same("dot_general", a, b, (((2,), (3,)), ((1, 3), (0, 1))))
    same("batch_matmul", randn(2, 3, 4), randn(2, 4, 5))
    same("dot", randn(3, 4), randn(4))


@pytest.mark.parametrize("starts", [(0, 1, 2, 3), (1, -1, 6, -10), (5, 5, 5, 5)])
def test_dynamic_slices(starts):
    x, u = randn(2, 4, 7, 6), randn(1, 2, 3, 2)
    same("dynamic_slice", x, starts, (1, 2, 3, 2))
    same("dynamic_update_slice", x, u, starts)


def test_pad_cumulative_sort_and_elementwise():
    x = randn(2, 4, 5, 3)
    same("pad", x, 0.5, [(1, -2, 1), (-1, 2, 2), (0, 0, 0), (2, 1, 0)])
    for name in ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"):
        same(name, x, axis=2, reverse=True)
    same("top_k", x, 3)
    keys, vals = RNG.integers(0, 3, 6), randn(6)
    same("sort", (keys, randn(6), vals), num_keys=2)
    same("erf_inv", np.linspace(-0.999999, 0.999999, 101), tol=1e-9)
    same("erfc", np.linspace(-6, 6, 25), tol=1e-7)
    ints, divs = np.array([-7, 7, -7, 7]), np.array([2, 2, -2, -2])
    same("div", ints, divs)
    same("rem", ints, divs)
    same("round", np.array([-2.5, -1.5, 0.5, 1.5, 2.4]))
    same("integer_pow", x, -3)
    same("broadcast_in_dim", np.ones((3, 1)), (2, 3, 4), (1, 2))
    same("clamp", -0.5, x, 0.5)


def test_gradients_match_jax():
    x, w = randn(1, 2, 5, 5), randn(3, 1, 2, 2)

    def f(lib, numpy):
        def loss(x, w):
            y = lib.conv_general_dilated(x, w, (1, 1), "SAME", rhs_dilation=(2, 1),
                                         feature_group_count=2)
            y = lib.reduce_window(y, -np.inf, lib.max, (1, 1, 2, 2), (1, 1, 1, 1), "VALID")
            return numpy.sum(lib.dynamic_slice(y, (0, 1, 1, 0), (1, 2, 3, 3)) ** 2)
        return loss
    w = randn(4, 1, 2, 2)
    got = jg.jit(jg.grad(f(lax, jg.numpy), argnums=(0, 1)))(x, w)
    want = jax.grad(f(jl, jax.numpy), argnums=(0, 1))(x, w)
    for g, v in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(v), rtol=1e-10, atol=1e-12)
