"""im2col / col2im (ir/primitives/conv_columns.py): a convolution's columns in one copy and their
gradient in one sum. Values against NumPy on the eager, interpreter and compiled paths, every
dtype; the two are adjoint; grad, jvp and vmap; bad parameters give a ShapeError naming them."""
import numpy as np
import pytest

import jitgrad as jg
import jitgrad.numpy as jnp
from jitgrad.eager.dispatch import apply
from jitgrad.ir import Op
from jitgrad.ir.errors import ShapeError

P = {"starts": ((0, 0), (1, 2), (3, 17), (2, 5)), "rows": 3, "length": 20}
SIZE = (6, 37)


def np_im2col(x, starts, rows, length):
    return np.concatenate([x[..., r:r + rows, c:c + length] for r, c in starts], axis=-2)


def np_col2im(y, starts, rows, length, size):
    out = np.zeros(y.shape[:-2] + size, y.dtype)
    for t, (r, c) in enumerate(starts):
        out[..., r:r + rows, c:c + length] += y[..., t * rows:(t + 1) * rows, :]
    return out


def im2col(x, p=P):
    return apply(Op.im2col, [jnp.asarray(x)], p)


def col2im(y, p=P, size=SIZE):
    return apply(Op.col2im, [jnp.asarray(y)], {**p, "size": size})


PATHS = {"eager": lambda f: f, "jit": jg.jit, "interpreter": jg.jit}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_,
                                   np.float16])
def test_values_match_numpy(rng, path, dtype, monkeypatch):
    if path == "interpreter":
        monkeypatch.setenv("JITGRAD_BACKEND", "interpreter")
    x = (rng.standard_normal((2, 3) + SIZE) * 5).astype(dtype)
    got = PATHS[path](im2col)(x)
    np.testing.assert_array_equal(np.asarray(got), np_im2col(x, **P))
    if dtype is np.bool_:
        return
    y = (rng.standard_normal((2, 3, 12, 20)) * 5).astype(dtype)
    got = PATHS[path](col2im)(y)
    want = np_col2im(y, **P, size=SIZE)
    if dtype is np.float16:     # computed in float32, rounded once (ir/lowp.py)
        want = np_col2im(y.astype(np.float32), **P, size=SIZE).astype(np.float16)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_adjoint_pair(rng):
    x = rng.standard_normal((2,) + SIZE)
    y = rng.standard_normal((2, 12, 20))
    lhs = np.sum(np.asarray(im2col(x)) * y)
    rhs = np.sum(x * np.asarray(col2im(y)))
    assert abs(lhs - rhs) < 1e-10 * abs(lhs)


def test_grad_jvp_vmap(rng):
    x = rng.standard_normal((2,) + SIZE)
    y = rng.standard_normal((2, 12, 20))

    def f(x):
        c = im2col(x)
        return jnp.sum(col2im(c * c) * x)
    jg.test_util.check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    g = jg.jit(jg.grad(lambda y: jnp.sum(col2im(y) ** 3)))(y)
    np.testing.assert_allclose(np.asarray(g), 3 * np_im2col(np_col2im(y, **P, size=SIZE) ** 2, **P),
                               rtol=1e-12)
    batched = jg.jit(jg.vmap(im2col))(x)
    np.testing.assert_array_equal(np.asarray(batched), np_im2col(x, **P))
    batched = jg.vmap(col2im, in_axes=1)(np.moveaxis(y, 0, 1))
    np.testing.assert_array_equal(np.asarray(batched), np_col2im(y, **P, size=SIZE))


@pytest.mark.parametrize("params, shape, match", [
    ({"starts": ((0, 30),), "rows": 3, "length": 20}, SIZE, "does not fit"),
    ({"starts": ((4, 0),), "rows": 3, "length": 20}, SIZE, "does not fit"),
    ({"starts": (), "rows": 3, "length": 20}, SIZE, "at least one start"),
    (P, (37,), "rank >= 2"),
])
def test_bad_parameters_are_shape_errors(params, shape, match):
    with pytest.raises(ShapeError, match=match):
        im2col(np.zeros(shape, np.float32), params)
    with pytest.raises(ShapeError, match=match):
        jg.jit(lambda x: im2col(x, params))(np.zeros(shape, np.float32))


def test_col2im_checks_its_input():
    with pytest.raises(ShapeError, match="last two axes"):
        col2im(np.zeros((2, 11, 20), np.float32))
    with pytest.raises(ShapeError, match="numeric"):
        col2im(np.zeros((2, 12, 20), np.bool_))
