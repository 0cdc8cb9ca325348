"""Issue 25 (a convolution's compile time): a convolution's k*k taps are one im2col kernel and
their gradient one col2im kernel; slices and pads at different offsets share ONE compiled unit
each (their offsets are argv slots, not code: codegen/cpu/kernels/opaque.shifts), and copy kernels
copy contiguous runs with memcpy. Structural counts (no wall clock) and values against NumPy
and torch."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.nn import functional as F


def _units(fn, *args):
    return jg.jit(fn).lower(*args).compile().units


def _conv_loss(x, w, b):
    return jnp.sum(F.relu(F.conv2d(x, w, b, padding=1)) ** 2)


def test_3x3_conv_forward_and_backward_compile_few_distinct_units(rng):
    x = rng.standard_normal((4, 8, 12, 12)).astype(np.float32)
    w = rng.standard_normal((16, 8, 3, 3)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    units = _units(jg.value_and_grad(_conv_loss, argnums=(0, 1, 2)), x, w, b)
    ops = [u.ops for u in units]
    # no tap slices, no tap pads, no concatenate, no k-way sum (issue 25; before: 9 + 9 slices,
    # 9 + 2 pads), and no columns written: the three products (the output, the weight gradient,
    # the input gradient as a GEMM over the padded output gradient: ir/passes/conv_input_grad)
    # read them from the image in place, so there is no im2col or col2im kernel of its own
    assert ("im2col",) not in ops and ("col2im",) not in ops and ("concatenate",) not in ops
    products = [o for o in ops if "matmul" in o]
    assert len(products) == 3 and all("im2col" in o for o in products), products
    assert ops.count(("slice",)) <= 2 and ops.count(("pad",)) <= 3
    # before issue 25 every tap was a unit of its own: 47 units, all distinct; 23 distinct
    # with shared shifted units; 20 with im2col/col2im; 15 with the columns read in place
    assert len(units) <= 15, units


def test_identical_convolutions_share_their_units(rng):
    """Two same-shaped layers (a ResNet block) add no distinct copy units."""
    x = rng.standard_normal((2, 4, 10, 10)).astype(np.float32)
    w1, w2 = (rng.standard_normal((4, 4, 3, 3)).astype(np.float32) for _ in range(2))

    def one(x, w1):
        return jnp.sum(F.conv2d(x, w1, padding=1) ** 2)

    def two(x, w1, w2):
        return jnp.sum(F.conv2d(F.relu(F.conv2d(x, w1, padding=1)), w2, padding=1) ** 2)
    copies = ("slice", "pad", "concatenate", "im2col", "col2im")
    a = {u.name for u in _units(jg.grad(one, argnums=(0, 1)), x, w1) if u.ops[0] in copies}
    b = {u.name for u in _units(jg.grad(two, argnums=(0, 1, 2)), x, w1, w2)
         if u.ops[0] in copies}
    assert b == a


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.bool_, np.float16])
def test_shifted_slices_and_pads_match_numpy(rng, dtype):
    """Slices at many offsets (one shared unit), short and long runs, strided and 2-D; pads with
    zero (memset), -0.0 and non-zero fills at different low paddings."""
    x = (rng.standard_normal((3, 5, 40)) * 4).astype(dtype)
    fill = 1 if dtype is not np.bool_ else True

    def f(x):
        outs = [x[:, :, j:j + 30] for j in range(5)]               # runs of 30: memcpy
        outs += [x[:, i:i + 2, j:j + 7] for i in range(3) for j in (0, 3)]  # short runs: loop
        outs += [x[:, :, j::3] for j in range(2)]                  # strided
        outs += [jnp.pad(x, ((0, 0), (lo, 2 - lo), (lo, 3))) for lo in range(3)]
        outs.append(jnp.pad(x, ((1, 0), (0, 0), (2, 2)), constant_values=fill))
        return outs
    got = jg.jit(f)(x)
    want = [x[:, :, j:j + 30] for j in range(5)]
    want += [x[:, i:i + 2, j:j + 7] for i in range(3) for j in (0, 3)]
    want += [x[:, :, j::3] for j in range(2)]
    want += [np.pad(x, ((0, 0), (lo, 2 - lo), (lo, 3))) for lo in range(3)]
    want.append(np.pad(x, ((1, 0), (0, 0), (2, 2)), constant_values=fill))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)
    if dtype is np.float32:
        units = _units(f, x)
        long = {u.name for u in units if u.ops == ("slice",) and u.shapes == ((3, 5, 40),)}
        assert len(long) <= 4          # 5 run slices, 6 short, 2 strided: one unit per shape


def test_negative_zero_pad_fill_is_kept():
    x = np.ones((2, 20), np.float32)
    got = np.asarray(jg.jit(lambda x: jnp.pad(x, ((0, 0), (1, 1)), constant_values=-0.0))(x))
    assert np.signbit(got[:, 0]).all() and np.signbit(got[:, -1]).all()


def test_cnn_layers_forward_and_gradients_match_torch(rng):
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((8, 3, 16, 16)).astype(np.float32)
    w1 = (0.2 * rng.standard_normal((8, 3, 3, 3))).astype(np.float32)
    w2 = (0.2 * rng.standard_normal((16, 8, 3, 3))).astype(np.float32)
    b1, b2 = (rng.standard_normal(c).astype(np.float32) for c in (8, 16))

    def loss(x, w1, b1, w2, b2):
        h = F.max_pool2d(F.relu(F.conv2d(x, w1, b1, padding=1)), 2)
        h = F.relu(F.conv2d(h, w2, b2, stride=2, padding=1))
        return jnp.sum(h * h)
    val, grads = jg.jit(jg.value_and_grad(loss, argnums=(0, 1, 2, 3, 4)))(x, w1, b1, w2, b2)
    tx, tw1, tb1, tw2, tb2 = (torch.tensor(a, requires_grad=True) for a in (x, w1, b1, w2, b2))
    tf = torch.nn.functional
    h = tf.max_pool2d(tf.relu(tf.conv2d(tx, tw1, tb1, padding=1)), 2)
    h = tf.relu(tf.conv2d(h, tw2, tb2, stride=2, padding=1))
    tl = (h * h).sum()
    tl.backward()
    np.testing.assert_allclose(float(val), tl.item(), rtol=1e-4)
    for g, t in zip(grads, (tx, tw1, tb1, tw2, tb2)):
        np.testing.assert_allclose(np.asarray(g), t.grad.numpy(), rtol=2e-4, atol=2e-4)
