"""conv2d and pooling lowered without gathers (k*k taps + batched GEMM, stride 1 as contiguous
runs of the flattened image; pooling as a reshape + one reduction or over stacked taps): values
against NumPy loops on every path (eager, jit compiled, jit on the reference interpreter),
gradients of the compiled path against finite differences of the float64 reference, and the
schedule holds no take / scatter_add."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.nn import functional as F
from jitgrad.test_util import check_grads

from tests.support import nn_norm_reference as ref

PATHS = ("eager", "jit", "interpreter")

CONV_CASES = [  # (N, C, H, W), (O, kh, kw), stride, padding (per side), dilation, groups
    ((2, 3, 7, 6), (4, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((2, 1, 8, 8), (5, 3, 3), (2, 2), (1, 1), (1, 1), 1),        # one input channel, stride 2
    ((1, 4, 9, 8), (6, 3, 2), (2, 1), (0, 2), (2, 3), 2),        # strides, dilation, groups
    ((2, 4, 5, 5), (4, 3, 3), (1, 1), (1, 1), (1, 1), 4),        # depthwise
    ((2, 3, 5, 4), (2, 1, 1), (1, 1), (0, 0), (1, 1), 1),        # 1x1: one tap
    ((2, 3, 8, 7), (4, 3, 2), (1, 1), (2, 0), (2, 3), 1),        # stride 1 dilated: runs
    ((1, 2, 4, 6), (3, 2, 2), (1, 1), (0, 1), (1, 1), 1),        # OW == padded W - 1
    ((2, 3, 9, 8), (4, 3, 2), (2, 3), (1, 2), (2, 1), 1),        # stride phases, dilated
    ((1, 2, 5, 6), (2, 2, 3), (3, 2), (2, 0), (1, 2), 1),        # padding cropped at the end
]


def _run(path, fn, *args, monkeypatch):
    if path == "eager":
        return np.asarray(fn(*args))
    if path == "interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    return np.asarray(jg.jit(fn)(*args))


def _conv_args(rng, case, dtype=np.float64):
    xs, (o, kh, kw), s, p, d, g = case
    x = rng.standard_normal(xs).astype(dtype)
    w = rng.standard_normal((o, xs[1] // g, kh, kw)).astype(dtype)
    b = rng.standard_normal(o).astype(dtype)
    return x, w, b, dict(stride=s, padding=p, dilation=d, groups=g)


def _conv_ref(x, w, b, kw):
    pads = tuple((p, p) for p in kw["padding"])
    return ref.conv2d(x, w, b, kw["stride"], pads, kw["dilation"], kw["groups"])


def _numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (f(hi) - f(lo)) / (2 * eps)
    return g


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_matches_numpy_on_every_path(rng, monkeypatch, path, case):
    x, w, b, kw = _conv_args(rng, case, np.float32)
    got = _run(path, lambda x, w, b: F.conv2d(x, w, b, **kw), x, w, b, monkeypatch=monkeypatch)
    np.testing.assert_allclose(got, _conv_ref(x, w, b, kw), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", CONV_CASES)
def test_compiled_conv2d_gradients_match_finite_differences(rng, case):
    x, w, b, kw = _conv_args(rng, case)
    ct = rng.standard_normal(_conv_ref(x, w, b, kw).shape)

    def loss(x, w, b):
        return jnp.sum(F.conv2d(x, w, b, **kw) * ct)

    got = jg.jit(jg.grad(loss, argnums=(0, 1, 2)))(x, w, b)
    want = (_numeric_grad(lambda v: np.sum(_conv_ref(v, w, b, kw) * ct), x),
            _numeric_grad(lambda v: np.sum(_conv_ref(x, v, b, kw) * ct), w),
            _numeric_grad(lambda v: np.sum(_conv_ref(x, w, v, kw) * ct), b))
    for g, n in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), n, rtol=1e-5, atol=1e-6)


def test_conv2d_check_grads_second_order_under_jit(rng):
    x, w, b, kw = _conv_args(rng, CONV_CASES[2])
    check_grads(jg.jit(lambda x, w, b: F.conv2d(x, w, b, **kw)), (x, w, b), order=2,
                modes=("rev", "fwd"))


def _schedule_ops(fn, *args):
    return [str(n.op) for k in jg.jit(fn).lower(*args).schedule for n in k.params["body"].nodes]


def test_cnn_step_schedule_has_no_gathers_and_the_bias_is_a_matmul_epilogue(rng):
    x = rng.standard_normal((4, 3, 8, 8)).astype(np.float32)
    w = rng.standard_normal((5, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)

    def loss(x, w, b):
        y = F.max_pool2d(F.relu(F.conv2d(x, w, b, padding=1)), 2)
        return jnp.sum(F.avg_pool2d(y, 3, 1, 1) ** 2)

    ops = _schedule_ops(jg.grad(loss, argnums=(0, 1, 2)), x, w, b)
    # conv and avg_pool gather nothing; max_pool takes one entry per window (its first maximum)
    # and its gradient scatters one value per window (window_extremum.py)
    assert ops.count("take") == 1 and ops.count("scatter_add") == 1
    kernels = jg.jit(lambda x, w, b: F.conv2d(x, w, b, padding=1)).lower(x, w, b).schedule
    bodies = [[str(n.op) for n in k.params["body"].nodes] for k in kernels]
    assert any("matmul" in b and "add" in b for b in bodies), bodies


POOL_CASES = [  # kernel, stride, padding, input (H, W)
    ((2, 2), None, 0, (8, 8)),        # non-overlapping: reshape + one reduction
    ((2, 2), None, 0, (7, 9)),        # non-overlapping, the last row / columns cropped
    ((3, 2), (3, 2), 0, (9, 6)),      # rectangular, non-overlapping
    ((3, 3), (2, 2), 1, (7, 7)),      # overlapping, padded
    ((3, 3), (1, 1), 1, (5, 6)),
    ((2, 3), (1, 2), (1, 1), (6, 7)),
]


def _pool_ref(x, kernel, stride, padding, reduce, fill):
    (kh, kw) = kernel
    sh, sw = kernel if stride is None else stride
    ph, pw = (padding, padding) if isinstance(padding, int) else padding
    x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=fill)
    oh, ow = (x.shape[2] - kh) // sh + 1, (x.shape[3] - kw) // sw + 1
    out = np.empty(x.shape[:2] + (oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = reduce(x[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw], axis=(2, 3))
    return out


POOLS = {"max": (F.max_pool2d, np.max, -np.inf), "avg": (F.avg_pool2d, np.mean, 0.0)}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kind", sorted(POOLS))
@pytest.mark.parametrize("case", POOL_CASES)
def test_pooling_matches_numpy_on_every_path(rng, monkeypatch, path, kind, case):
    k, s, p, hw = case
    op, reduce, fill = POOLS[kind]
    x = rng.standard_normal((2, 3) + hw).astype(np.float32)
    got = _run(path, lambda x: op(x, k, s, p), x, monkeypatch=monkeypatch)
    np.testing.assert_allclose(got, _pool_ref(x, k, s, p, reduce, fill), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", sorted(POOLS))
@pytest.mark.parametrize("case", POOL_CASES)
def test_compiled_pooling_gradients_match_finite_differences(rng, kind, case):
    k, s, p, hw = case
    op, reduce, fill = POOLS[kind]
    x = rng.standard_normal((2, 2) + hw)          # distinct values: no ties in a max window
    ct = rng.standard_normal(_pool_ref(x, k, s, p, reduce, fill).shape)
    got = jg.jit(jg.grad(lambda x: jnp.sum(op(x, k, s, p) * ct)))(x)
    want = _numeric_grad(lambda v: np.sum(_pool_ref(v, k, s, p, reduce, fill) * ct), x)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


def test_avg_pool_count_exclude_pad_every_path(rng, monkeypatch):
    x = rng.standard_normal((1, 2, 5, 4))
    counts = _pool_ref(np.ones_like(x), (3, 3), (2, 1), 1, np.sum, 0.0)
    want = _pool_ref(x, (3, 3), (2, 1), 1, np.sum, 0.0) / counts
    for path in PATHS:
        got = _run(path, lambda x: F.avg_pool2d(x, 3, (2, 1), 1, count_include_pad=False), x,
                   monkeypatch=monkeypatch)
        np.testing.assert_allclose(got, want, rtol=1e-10, err_msg=path)


def test_window_errors_name_the_sizes():
    with pytest.raises(ValueError, match=r"kernel \(5, 5\) is larger than the padded input 4x4"):
        F.conv2d(np.zeros((1, 1, 4, 4), np.float32), np.zeros((1, 1, 5, 5), np.float32))
    with pytest.raises(ValueError, match=r"kernel \(3, 3\) is larger than the padded input 2x2"):
        F.max_pool2d(np.zeros((1, 1, 2, 2), np.float32), 3)
