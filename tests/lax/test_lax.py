"""jg.lax against NumPy references of jax.lax's semantics (tests/support/lax_reference.py): values
eagerly and under jit, gradients against finite differences (float64), JAX's errors for bad
dimension numbers. tests/lax/test_lax_jax.py compares with jax.lax itself where jax is installed."""
from __future__ import annotations

import math

import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad import lax
from jitgrad.test_util import check_grads
from tests.support import lax_reference as ref

RNG = np.random.default_rng(0)


def randn(*shape):
    return RNG.standard_normal(shape)


def close(got, want, tol=1e-12):
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


def both_paths(fn, *args, want, tol=1e-12):
    """fn(*args) eagerly and jitted equals want."""
    close(fn(*args), want, tol)
    close(jg.jit(fn)(*args), want, max(tol, 1e-10))


def test_importable_both_ways():
    import jitgrad.lax
    assert jg.lax is jitgrad.lax
    assert jg.lax.stop_gradient is jg.stop_gradient


# ------------------------------------------------------------------------------ convolution

CONV_CASES = {   # (lhs shape, rhs shape, kwargs) in NC[spatial] / OI[spatial]
    "plain_same": ((2, 3, 6, 5), (4, 3, 3, 2), dict(window_strides=(1, 1), padding="SAME")),
    "strided_valid": ((2, 3, 7, 6), (4, 3, 3, 3), dict(window_strides=(2, 2), padding="VALID")),
    "explicit_negative": ((1, 2, 6, 6), (3, 2, 2, 3),
                          dict(window_strides=(1, 2), padding=((2, -1), (0, 1)))),
    "rhs_dilation": ((2, 2, 8, 7), (3, 2, 3, 2),
                     dict(window_strides=(1, 1), padding="SAME", rhs_dilation=(2, 3))),
    "lhs_dilation": ((1, 2, 4, 5), (3, 2, 3, 3),
                     dict(window_strides=(1, 1), padding=((2, 2), (1, 2)), lhs_dilation=(2, 3))),
    "groups": ((2, 4, 5, 5), (6, 2, 3, 3),
               dict(window_strides=(1, 1), padding="SAME_LOWER", feature_group_count=2)),
    "depthwise": ((1, 3, 5, 6), (3, 1, 2, 2),
                  dict(window_strides=(2, 1), padding="VALID", feature_group_count=3)),
    "conv1d": ((2, 3, 9), (4, 3, 3), dict(window_strides=(2,), padding="SAME")),
    "conv3d": ((1, 2, 4, 5, 3), (2, 2, 2, 3, 2),
               dict(window_strides=(1, 2, 1), padding="SAME", rhs_dilation=(1, 1, 2))),
}


def conv_reference(x, w, kw):
    nsp = x.ndim - 2
    pads = kw["padding"]
    if isinstance(pads, str):
        eff = [d * (k - 1) + 1 for k, d in zip(w.shape[2:], kw.get("rhs_dilation", (1,) * nsp))]
        pads = ((0, 0),) * nsp if pads == "VALID" else ref.same_pads(
            x.shape[2:], eff, kw["window_strides"], lower=pads == "SAME_LOWER")
    return ref.conv(x, w, kw["window_strides"], pads, kw.get("lhs_dilation"),
                    kw.get("rhs_dilation"), kw.get("feature_group_count", 1))


@pytest.mark.parametrize("case", list(CONV_CASES))
def test_conv_general_dilated_matches_reference(x64, case):
    xs, ws, kw = CONV_CASES[case]
    x, w = randn(*xs), randn(*ws)
    both_paths(lambda x, w: lax.conv_general_dilated(x, w, **kw), x, w,
               want=conv_reference(x, w, kw), tol=1e-11)


@pytest.mark.parametrize("case", ["plain_same", "rhs_dilation", "lhs_dilation", "groups",
                                  "conv1d"])
def test_conv_general_dilated_gradients(x64, case):
    xs, ws, kw = CONV_CASES[case]
    check_grads(lambda x, w: lax.conv_general_dilated(x, w, **kw), (randn(*xs), randn(*ws)),
                order=1)


def test_conv_dimension_numbers_nhwc_hwio(x64):
    x, w = randn(2, 6, 5, 3), randn(3, 2, 3, 4)          # NHWC, HWIO
    want = conv_reference(x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1),
                          dict(window_strides=(2, 1), padding="SAME"))
    both_paths(lambda x, w: lax.conv_general_dilated(
        x, w, (2, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")), x, w,
        want=want.transpose(0, 2, 3, 1), tol=1e-11)
    both_paths(lambda x, w: lax.conv_general_dilated(
        x, w, (2, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NCHW")), x, w, want=want,
        tol=1e-11)
    dn = lax.conv_dimension_numbers(x.shape, w.shape, ("NHWC", "HWIO", "NHWC"))
    assert dn == lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    close(lax.conv_general_dilated(x, w, (2, 1), "SAME", dimension_numbers=dn),
          want.transpose(0, 2, 3, 1), 1e-11)


def test_conv_batch_group_count(x64):
    x, w = randn(4, 3, 5, 5), randn(6, 3, 2, 2)
    got = lax.conv_general_dilated(x, w, (1, 1), "VALID", batch_group_count=2)
    want = np.concatenate([ref.conv(x[:2], w[:3], (1, 1), ((0, 0), (0, 0))),
                           ref.conv(x[2:], w[3:], (1, 1), ((0, 0), (0, 0)))], axis=1)
    close(got, want, 1e-11)


def test_conv_alias_and_general_padding(x64):
    x, w = randn(1, 2, 5, 5), randn(3, 2, 2, 2)
    close(lax.conv(x, w, (1, 1), "VALID"), ref.conv(x, w, (1, 1), ((0, 0), (0, 0))), 1e-11)
    close(lax.conv_with_general_padding(x, w, (1, 1), ((1, 0), (0, 1)), (2, 1), (1, 2)),
          ref.conv(x, w, (1, 1), ((1, 0), (0, 1)), (2, 1), (1, 2)), 1e-11)


@pytest.mark.parametrize("transpose_kernel", [False, True])
@pytest.mark.parametrize("stride", [1, 2, 3])
def test_conv_transpose_valid_matches_scatter_reference(x64, stride, transpose_kernel):
    x, w = randn(2, 4, 3), randn(3, 3, 2) if not transpose_kernel else randn(3, 2, 3)
    want = ref.conv_transpose_1d_valid(x, w, stride, transpose_kernel)
    both_paths(lambda x, w: lax.conv_transpose(x, w, (stride,), "VALID",
                                               transpose_kernel=transpose_kernel), x, w,
               want=want, tol=1e-11)
    check_grads(lambda x, w: lax.conv_transpose(x, w, (stride,), "VALID",
                                                transpose_kernel=transpose_kernel), (x, w),
                order=1, modes=("rev",))


def test_conv_errors_name_what_was_expected():
    x, w = np.ones((1, 4, 5, 5), np.float32), np.ones((2, 4, 3, 3), np.float32)
    with pytest.raises(TypeError, match="must contain the characters 'N' and 'C' exactly once"):
        lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWX", "OIHW", "NCHW"))
    with pytest.raises(TypeError, match="same set of spatial characters"):
        lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHX"))
    with pytest.raises(TypeError, match="cannot have duplicate"):
        lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NCHH", "OIHW", "NCHW"))
    with pytest.raises(ValueError, match="feature_group_count must divide"):
        lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=3)
    with pytest.raises(ValueError, match="must equal the rhs input feature"):
        lax.conv_general_dilated(x, np.ones((2, 3, 3, 3), np.float32), (1, 1), "SAME")
    with pytest.raises(ValueError, match="String padding is not implemented"):
        lax.conv_general_dilated(x, w, (1, 1), "SAME", lhs_dilation=(2, 2))
    with pytest.raises(RuntimeError, match="Unrecognized padding"):
        lax.conv_general_dilated(x, w, (1, 1), "FULL")
    with pytest.raises(ValueError, match="window_strides must be 2"):
        lax.conv_general_dilated(x, w, (1,), "SAME")


# ------------------------------------------------------------------------------ windows

WINDOW_CASES = {
    "max_same": (np.maximum, -np.inf, lax.max, dict(window_dimensions=(1, 3, 3),
                                                   window_strides=(1, 2, 2), padding="SAME")),
    "add_valid": (np.add, 0.0, lax.add, dict(window_dimensions=(2, 2, 1),
                                             window_strides=(1, 1, 1), padding="VALID")),
    "min_dilated": (np.minimum, np.inf, jnp.minimum, dict(
        window_dimensions=(1, 2, 2), window_strides=(1, 1, 2), padding=((0, 0), (1, 0), (1, 1)),
        base_dilation=(1, 2, 1), window_dilation=(1, 1, 2))),
    "add_init": (np.add, 1.5, lax.add, dict(window_dimensions=(1, 2, 2),
                                            window_strides=(1, 1, 1), padding="VALID")),
}


def _window_pads(x, kw):
    pads = kw["padding"]
    if pads == "VALID":
        return [(0, 0)] * x.ndim
    if pads == "SAME":
        return ref.same_pads(x.shape, kw["window_dimensions"], kw["window_strides"])
    return pads


@pytest.mark.parametrize("case", list(WINDOW_CASES))
def test_reduce_window_matches_reference(x64, case):
    npop, init, comp, kw = WINDOW_CASES[case]
    x = randn(2, 5, 6)
    want = ref.reduce_window(x, init, npop, kw["window_dimensions"], kw["window_strides"],
                             _window_pads(x, kw), kw.get("base_dilation"),
                             kw.get("window_dilation"))
    both_paths(lambda x: lax.reduce_window(x, init, comp, **kw), x, want=want)


def test_reduce_window_any_binary_computation_and_gradients(x64):
    x = randn(1, 4, 5)
    # an associative, commutative computation that is not one of the recognized monoids
    f = lambda x: lax.reduce_window(x, -np.inf, lambda a, b: jnp.logaddexp(a, b), (1, 2, 2),
                                    (1, 1, 2), "VALID")
    want = ref.reduce_window(x, -np.inf, np.logaddexp, (1, 2, 2), (1, 1, 2), [(0, 0)] * 3)
    both_paths(f, x, want=want)
    check_grads(f, (x,), order=1)
    check_grads(lambda x: lax.reduce_window(x, -np.inf, lax.max, (1, 2, 2), (1, 2, 1), "SAME"),
                (x,), order=1)
    check_grads(lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 3, 2), (1, 1, 1),
                                            ((0, 0), (1, 1), (0, 1))), (x,), order=1)


# ------------------------------------------------------------------------------ dot_general

DOT_CASES = {
    "matmul": ((3, 4), (4, 5), (((1,), (0,)), ((), ())), "ij,jk->ik"),
    # JAX's order: batch dims (lhs 1, lhs 3), then lhs free (i), then rhs free (r)
    "batch_free_order": ((3, 4, 5, 2), (4, 2, 6, 5), (((2,), (3,)), ((1, 3), (0, 1))),
                         "iakc,acrk->acir"),
    "two_contractions": ((2, 3, 4), (4, 5, 3), (((1, 2), (2, 0)), ((), ())), "ijk,klj->il"),
    "outer": ((3,), (2,), (((), ()), ((), ())), "i,j->ij"),
}


@pytest.mark.parametrize("case", list(DOT_CASES))
def test_dot_general_matches_einsum(x64, case):
    ls, rs, dn, spec = DOT_CASES[case]
    a, b = randn(*ls), randn(*rs)
    want = np.einsum(spec, a, b)
    both_paths(lambda a, b: lax.dot_general(a, b, dn), a, b, want=want, tol=1e-11)
    check_grads(lambda a, b: lax.dot_general(a, b, dn), (a, b), order=1)


def test_dot_and_batch_matmul(x64):
    a, b, v = randn(3, 4), randn(4, 2), randn(4)
    close(lax.dot(a, b), a @ b, 1e-12)
    close(lax.dot(a, v), a @ v, 1e-12)
    x, y = randn(2, 3, 4), randn(2, 4, 5)
    close(lax.batch_matmul(x, y), x @ y, 1e-12)
    assert lax.dot(a.astype(np.float32), b.astype(np.float32),
                   preferred_element_type=np.float64).dtype == np.float64


def test_dot_general_errors():
    a, b = np.ones((3, 4)), np.ones((5, 4))
    with pytest.raises(TypeError, match=r"contracting dimensions to have the same shape, got "
                                        r"\(3,\) and \(5,\)"):
        lax.dot_general(a, b, (((0,), (0,)), ((), ())))
    with pytest.raises(TypeError, match="less than the number of axes of the lhs"):
        lax.dot_general(a, b, (((2,), (1,)), ((), ())))
    with pytest.raises(TypeError, match="batch dimensions to have the same length"):
        lax.dot_general(a, b, (((1,), (1,)), ((0,), ())))
    with pytest.raises(TypeError, match="dimension_numbers must be"):
        lax.dot_general(a, b, ((1,), (1,)))


# ------------------------------------------------------------------------------ slicing

@pytest.mark.parametrize("starts", [(0, 1, 2), (1, -1, 4), (9, 9, -9), (-2, 0, 1)])
def test_dynamic_slice_and_update_clamp_like_jax(x64, starts):
    x, u = randn(3, 4, 6), randn(2, 3, 3)
    close(lax.dynamic_slice(x, starts, (2, 3, 3)), ref.dynamic_slice(x, starts, (2, 3, 3)))
    close(lax.dynamic_update_slice(x, u, starts), ref.dynamic_update_slice(x, u, starts))
    traced_slice = jg.jit(lambda x, s: lax.dynamic_slice(x, (s[0], s[1], s[2]), (2, 3, 3)))
    close(traced_slice(x, np.array(starts)), ref.dynamic_slice(x, starts, (2, 3, 3)))
    traced_update = jg.jit(lambda x, u, s: lax.dynamic_update_slice(x, u, s))
    close(traced_update(x, u, np.array(starts)), ref.dynamic_update_slice(x, u, starts))


def test_dynamic_slice_gradients_with_traced_starts(x64):
    x, u = randn(4, 5), randn(2, 2)
    start = jg.tensor(np.int64(3))
    check_grads(lambda x: lax.dynamic_slice(x, (start, 1), (2, 3)), (x,), order=1)
    check_grads(lambda x, u: lax.dynamic_update_slice(x, u, (1, start)), (x, u), order=1)
    g = jg.jit(jg.grad(lambda x, s: jnp.sum(lax.dynamic_slice(x, (s, 1), (2, 3)))))(x, start)
    want = np.zeros((4, 5))
    want[2:4, 1:4] = 1.0      # start 3 clamped to 4 - 2 = 2
    close(g, want)


def test_dynamic_in_dim_helpers(x64):
    x = randn(4, 5)
    close(lax.dynamic_slice_in_dim(x, 3, 2, axis=1), x[:, 3:5])
    close(lax.dynamic_index_in_dim(x, 7, axis=0), x[3:4])
    close(lax.dynamic_index_in_dim(x, 1, axis=1, keepdims=False), x[:, 1])
    close(lax.dynamic_update_index_in_dim(x, np.zeros(5), 2, 0), np.where(
        np.arange(4)[:, None] == 2, 0.0, x))
    close(lax.dynamic_update_slice_in_dim(x, np.ones((4, 2)), -1, 1),
          np.concatenate([x[:, :3], np.ones((4, 2))], axis=1))
    with pytest.raises(TypeError, match="Length of slice indices"):
        lax.dynamic_slice(x, (0,), (1, 1))


# ------------------------------------------------------------------------------ pad and shapes

@pytest.mark.parametrize("config", [[(1, 2, 0), (0, 1, 1)], [(-1, 2, 1), (2, -3, 2)],
                                    [(0, 0, 3), (-2, -1, 0)], [(-3, 1, 1), (0, 0, 0)]])
def test_pad_interior_and_negative(x64, config):
    x = randn(3, 5)
    both_paths(lambda x: lax.pad(x, 0.5, config), x, want=ref.pad(x, 0.5, config))
    check_grads(lambda x: lax.pad(x, 0.5, config), (x,), order=1)


def test_pad_with_traced_value_and_errors(x64):
    x = randn(2, 3)
    got = jg.jit(lambda x, v: lax.pad(x, v, [(1, 0, 1), (0, 1, 0)]))(x, np.float64(-2.0))
    close(got, ref.pad(x, -2.0, [(1, 0, 1), (0, 1, 0)]))
    with pytest.raises(ValueError, match="interior padding in padding_config must be "
                                         "nonnegative"):
        lax.pad(x, 0.0, [(0, 0, -1), (0, 0, 0)])
    with pytest.raises(ValueError, match="not at least 0"):
        lax.pad(x, 0.0, [(-2, -1, 0), (0, 0, 0)])


def test_broadcast_reshape_transpose_family(x64):
    x = randn(3, 1)
    close(lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), np.broadcast_to(x[None], (2, 3, 4)))
    with pytest.raises(TypeError, match="strictly increasing"):
        lax.broadcast_in_dim(x, (3, 3), (1, 0))
    with pytest.raises(TypeError, match="must either be 1, or be equal"):
        lax.broadcast_in_dim(randn(2), (3,), (0,))
    close(lax.broadcast(x, (2,)), np.broadcast_to(x, (2, 3, 1)))
    y = randn(2, 3, 4)
    close(lax.reshape(y, (4, 6), dimensions=(2, 0, 1)), y.transpose(2, 0, 1).reshape(4, 6))
    with pytest.raises(TypeError, match="total size must be unchanged"):
        lax.reshape(y, (5, 5))
    close(lax.transpose(y, (1, 2, 0)), y.transpose(1, 2, 0))
    close(lax.squeeze(x, (1,)), x[:, 0])
    with pytest.raises(ValueError, match="size not equal to one"):
        lax.squeeze(y, (0,))
    close(lax.expand_dims(x, (0, 3)), x[None, :, :, None])
    close(lax.rev(y, (0, 2)), y[::-1, :, ::-1])
    close(lax.slice(y, (0, 1, 0), (2, 3, 4), (1, 1, 2)), y[0:2, 1:3, 0:4:2])
    close(lax.slice_in_dim(y, 1, 3, axis=2), y[:, :, 1:3])
    close(lax.index_in_dim(y, -1, axis=1, keepdims=False), y[:, -1])
    close(lax.concatenate([y, y], 1), np.concatenate([y, y], 1))
    close(lax.iota(np.int32, 4), np.arange(4))
    close(lax.broadcasted_iota(np.int32, (2, 3), 1), np.broadcast_to(np.arange(3), (2, 3)))
    assert lax.full((2, 2), 3, np.float32).dtype == np.float32
    close(lax.full_like(y, 2.0), np.full(y.shape, 2.0))
    with pytest.raises(TypeError, match="same dtypes"):
        lax.concatenate([np.ones(2, np.float32), np.ones(2, np.int32)], 0)


# ------------------------------------------------------------------------------ reductions

@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_ops(x64, reverse):
    x = randn(3, 5)
    flip = (lambda a: a[:, ::-1]) if reverse else (lambda a: a)
    for fn, want in ((lax.cumsum, np.cumsum), (lax.cumprod, np.cumprod),
                     (lax.cummax, np.maximum.accumulate), (lax.cummin, np.minimum.accumulate),
                     (lax.cumlogsumexp, np.logaddexp.accumulate)):
        both_paths(lambda x: fn(x, axis=1, reverse=reverse), x,
                   want=flip(want(flip(x), axis=1)), tol=1e-11)
        check_grads(lambda x: fn(x, axis=1, reverse=reverse), (x,), order=1)
    ints = RNG.integers(-5, 5, (4, 3))
    close(lax.cummax(ints, axis=0), np.maximum.accumulate(ints, axis=0))
    assert lax.cumsum(ints.astype(np.int32)).dtype == np.int32


def test_reductions_argmax_sort_top_k(x64):
    x = randn(3, 4, 5)
    close(lax.reduce_sum(x, (0, 2)), x.sum((0, 2)))
    close(lax.reduce_max(x, (1,)), x.max(1))
    close(lax.reduce_min(x, (2,)), x.min(2))
    close(lax.reduce_prod(x, (0,)), x.prod(0))
    assert lax.argmax(x, 1, np.int32).dtype == np.int32
    close(lax.argmin(x, 2, np.int64), x.argmin(2))
    close(lax.sort(x, dimension=1), np.sort(x, axis=1))
    k1, k2, v = RNG.integers(0, 3, 8), RNG.integers(0, 2, 8).astype(np.float64), randn(8)
    order = np.lexsort((k2, k1))
    got = lax.sort((k1, k2, v), num_keys=2)
    assert isinstance(got, tuple)
    for g, a in zip(got, (k1, k2, v)):
        close(g, a[order])
    vals, idx = lax.top_k(np.array([[1.0, 3.0, 3.0, 2.0]]), 3)
    close(vals, [[3.0, 3.0, 2.0]])
    np.testing.assert_array_equal(np.asarray(idx), [[1, 2, 3]])
    assert idx.dtype == np.int32
    check_grads(lambda x: lax.top_k(x, 2)[0], (x,), order=1)
    check_grads(lambda x: lax.sort(x, dimension=0), (x,), order=1)


# ------------------------------------------------------------------------------ elementwise

def test_integer_div_and_rem_round_toward_zero():
    a, b = np.array([-7, 7, -7, 7, 6]), np.array([2, 2, -2, -2, 3])
    np.testing.assert_array_equal(np.asarray(lax.div(a, b)), [-3, 3, 3, -3, 2])
    np.testing.assert_array_equal(np.asarray(lax.rem(a, b)), np.fmod(a, b))
    close(lax.rem(np.array([-7.5, 7.5]), np.array([2.0, -2.0])), np.fmod([-7.5, 7.5], [2.0, -2.0]))


def test_strict_dtypes_and_shapes():
    f32, i32 = np.ones(3, np.float32), np.ones(3, np.int32)
    with pytest.raises(TypeError, match="lax.add requires arguments to have the same dtypes, "
                                        "got float32, int32"):
        lax.add(f32, i32)
    with pytest.raises(TypeError, match="incompatible shapes"):
        lax.mul(f32, np.ones(4, np.float32))
    assert lax.add(f32, 2).dtype == np.float32          # Python scalars are weak
    with pytest.raises(TypeError, match="exponent must be a Python int"):
        lax.integer_pow(f32, 2.0)


def test_elementwise_values(x64):
    x = randn(7)
    close(lax.integer_pow(x, 3), x ** 3)
    close(lax.integer_pow(x, -2), x ** -2.0)
    close(lax.integer_pow(x, 0), np.ones(7))
    close(lax.clamp(-0.5, x, 0.5), np.clip(x, -0.5, 0.5))
    close(lax.select(x > 0, x, -x), np.abs(x))
    close(lax.select_n(np.array([0, 1, 2, 1, 0, 2, 2]), x, 2 * x, 3 * x),
          x * np.array([1, 2, 3, 2, 1, 3, 3]))
    close(lax.round(np.array([-2.5, -0.5, 0.5, 1.5, 2.4])), [-3, -1, 1, 2, 2])
    close(lax.round(np.array([-2.5, 0.5, 1.5]), 1), [-2, 0, 2])
    close(lax.logistic(x), 1 / (1 + np.exp(-x)))
    close(lax.rsqrt(np.abs(x)), 1 / np.sqrt(np.abs(x)))
    close(lax.convert_element_type(np.array([-1.7, 1.7]), np.int32), [-1, 1])
    for name, fn in (("exp", np.exp), ("tanh", np.tanh), ("neg", np.negative),
                     ("abs", np.abs), ("sign", np.sign), ("square", np.square)):
        close(getattr(lax, name)(x), fn(x))
    close(lax.log(np.abs(x)), np.log(np.abs(x)))
    close(lax.pow(np.abs(x), x), np.abs(x) ** x)
    close(lax.max(x, -x), np.abs(x))
    close(lax.sub(x, x), np.zeros(7))
    close(lax.erf(x), [math.erf(v) for v in x])
    check_grads(lambda x: lax.integer_pow(x, -3), (x,), order=2)


def _erfinv_bisection(y):
    """z >= 0 with erfc(z) = 1 - |y| by bisection (erfc keeps its relative precision in the
    tails, where erf(z) rounds to 1), signed like y."""
    target = 1.0 - np.abs(y)
    lo, hi = np.zeros_like(y), np.full_like(y, 10.0)
    erfc = np.vectorize(math.erfc)
    for _ in range(200):
        mid = (lo + hi) / 2
        above = erfc(mid) > target
        lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
    return np.sign(y) * (lo + hi) / 2


def test_erf_inv_and_erfc(x64):
    y = np.concatenate([np.linspace(-0.999, 0.999, 41), [0.0, 0.99997]])
    np.testing.assert_allclose(np.asarray(lax.erf_inv(y)), _erfinv_bisection(y), rtol=1e-12,
                               atol=1e-14)
    tails = np.array([0.99999, 1 - 1e-9, -1 + 1e-12, 1 - 1e-15])     # |erf_inv| > 3: ~1e-8
    np.testing.assert_allclose(np.asarray(lax.erf_inv(tails)), _erfinv_bisection(tails),
                               rtol=5e-8)
    close(jg.jit(lax.erf_inv)(y[:41]), _erfinv_bisection(y[:41]), 1e-9)
    edge = np.asarray(lax.erf_inv(np.array([-1.0, 1.0, 1.5])))
    assert edge[0] == -np.inf and edge[1] == np.inf and np.isnan(edge[2])
    y32 = np.linspace(-0.99, 0.99, 21).astype(np.float32)
    got32 = lax.erf_inv(y32)
    assert got32.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got32), _erfinv_bisection(y32.astype(np.float64)),
                               rtol=2e-6, atol=1e-6)
    # the derivative is sqrt(pi)/2 exp(erfinv(y)^2)
    g = jg.grad(lambda y: jnp.sum(lax.erf_inv(y)))(y[:41])
    close(g, math.sqrt(math.pi) / 2 * np.exp(_erfinv_bisection(y[:41]) ** 2), 1e-8)
    check_grads(lax.erf_inv, (np.linspace(-0.9, 0.9, 7),), order=2)
    x = np.linspace(-5, 9, 29)
    np.testing.assert_allclose(np.asarray(lax.erfc(x)), [math.erfc(v) for v in x], rtol=2e-7)
    check_grads(lax.erfc, (np.linspace(-3, 3, 9),), order=1)


# ------------------------------------------------------------------------------ control flow

def test_control_flow_aliases(x64):
    close(lax.fori_loop(0, 5, lambda i, c: c + i, 0.0), 10.0)
    close(lax.while_loop(lambda c: c < 10, lambda c: c * 2, 1.0), 16.0)
    close(lax.cond(True, lambda x: x + 1, lambda x: x - 1, 1.0), 2.0)
    close(lax.switch(5, [lambda x: x, lambda x: 2 * x], 3.0), 6.0)      # index clamped
    carry, ys = lax.scan(lambda c, x: (c + x, c * x), 0.0, np.arange(4.0), unroll=2)
    close(carry, 6.0)
    close(ys, [0.0, 0.0, 2.0, 9.0])
    xs = randn(7, 3)
    close(lax.map(lambda r: jnp.sum(r * r), xs), (xs * xs).sum(1))
    close(lax.map(lambda r: jnp.sum(r * r), xs, batch_size=3), (xs * xs).sum(1))
    close(jg.jit(lambda xs: lax.map(jnp.sin, xs))(xs), np.sin(xs))
    x = randn(3)
    close(jg.grad(lambda x: jnp.sum(lax.stop_gradient(x) * x))(x), x)


def test_under_vmap_each_row_as_alone(x64):
    x, w = randn(3, 1, 2, 5, 5), randn(4, 2, 3, 3)
    starts = np.array([0, 2, 9])
    for f, args in (
            (lambda x: lax.conv_general_dilated(x, w, (1, 1), "SAME", rhs_dilation=(2, 1)), (x,)),
            (lambda x: lax.reduce_window(x, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 1, 1),
                                         "VALID"), (x,)),
            (lambda x: lax.pad(x, 0.0, [(0, 0, 0), (1, -1, 1), (0, 0, 0), (2, 1, 1)]), (x,)),
            (lambda x, i: lax.dynamic_slice(x, (0, 0, i, i), (1, 2, 2, 2)), (x, starts)),
            (lambda x, i: lax.dynamic_update_slice(x, np.ones((1, 2, 2, 2)), (0, 0, i, i)),
             (x, starts)),
            (lambda x: lax.cummax(x, axis=2), (x,)),
            (lambda x: lax.erf_inv(jnp.tanh(x)), (x,))):
        want = np.stack([np.asarray(f(*[a[i] for a in args])) for i in range(3)])
        close(jg.vmap(f)(*args), want)
